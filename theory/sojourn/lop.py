"""Why the exact A/B models may split jobs into preference blocks, with a numerical check.

Setting. value(order) = sum_i c_i + sum_{a before b} W[a, b] (objectives A and B; see
solvers/sojourn/batch.py). Call "a first" strictly better for the pair {a, b} when
W[a, b] < W[b, a].

Lemma (block decomposition). Let B_1, ..., B_r partition the jobs so that for every p < q,
every a in B_p and b in B_q, W[a, b] < W[b, a]. Then an order is optimal iff it lists B_1,
then B_2, ..., then B_r, and within each block it is optimal for the block's own pair costs.

Proof. Take any order s and let s' list the blocks in the given order, keeping the relative
order of s inside each block (a stable sort by block index). A pair inside one block keeps its
relative order, so it costs the same in s and s'. A pair a in B_p, b in B_q, p < q, costs
W[a, b] in s', the smaller of its two possible costs, and costs W[b, a] > W[a, b] in s if s
has b before a. Hence cost(s') <= cost(s), with equality only if s already lists the blocks in
order. So every optimal order lists the blocks in order; for such orders the cross-block cost
sum_{p<q} sum_{a in B_p, b in B_q} W[a, b] is fixed, and the rest is the sum of the blocks'
own costs, which separate: each block must be ordered optimally on its own. QED.

Finding blocks. `solvers.lop.core.preference_blocks` uses the digraph with an edge a -> b
when W[a, b] - W[b, a] <= tol (tol = 1e-9 max|W| covers the rounding error of the
Gauss-Legendre weights, about 1e-13 relative), sorts by out-degree and cuts wherever no edge
points back across the cut. Across a cut no edge b -> a exists, i.e. W[b, a] - W[a, b] > tol,
which is exactly the strict hypothesis of the lemma even after rounding; the blocks need not
be strongly connected for the lemma, only for it to cut finely. The same argument (one block)
shows that a transitive preference tournament is optimal outright, since its order puts every
pair at min(W[a, b], W[b, a]), a lower bound for every order.

Not used (and false in general): "if a first is better for the pair {a, b}, some optimal
order has a before b" (the adjacent-swap argument does not carry over to non-adjacent pairs).
Preference can be cyclic (e.g. generate(8, 1863, max_checkpoints=2)
for B), and `check_block_rule(rule="pairwise")` finds the violation. For B,
W[b,a] - W[a,b] = pi_a pi_b int_0^1 w G (idx_b(u) - idx_a(u)) / (g_a g_b) du with the line
idx(u) = e/pi + m u (`check_swap_identity`): a first wins the pair whenever a's index line
lies below b's on [0, 1], but pairs weigh u differently, which is how cycles arise.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.lop.core import (
    lop_cost,
    preference_blocks,
    preference_tournament,
    three_cycles,
)
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, b_node_terms
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve

RULES = ("blocks", "score-order", "pairwise")
REL_TOL = 1e-9


@dataclass
class RuleEvidence:
    """What a check found: `holds` is False as soon as one instance contradicts the rule."""

    rule: str
    holds: bool
    instances: int
    cyclic_instances: int
    worst_rel_excess: float
    counterexample: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)


def all_orders_costs(W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every permutation of W's indices and its pair cost sum_{a before b} W[a, b]."""
    n = W.shape[0]
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)
    cost = np.zeros(len(perms))
    for x in range(n):
        for y in range(x + 1, n):
            cost += W[perms[:, x], perms[:, y]]
    return perms, cost


def _block_rule_value(c: np.ndarray, W: np.ndarray, blocks: Sequence[np.ndarray]) -> float:
    """sum c + fixed cross-block cost + each block's brute-force optimum."""
    total = float(c.sum())
    for p, bp in enumerate(blocks):
        total += float(all_orders_costs(W[np.ix_(bp, bp)])[1].min())
        for bq in blocks[p + 1 :]:
            total += float(W[np.ix_(bp, bq)].sum())
    return total


def _rule_value(c: np.ndarray, W: np.ndarray, rule: str) -> float:
    """Best value the rule allows (its claimed optimum)."""
    if rule == "blocks":
        return _block_rule_value(c, W, preference_blocks(W))
    if rule == "score-order":  # wrong: cut after every job of the out-degree order
        pref = preference_tournament(W)
        order = np.argsort(-pref.sum(axis=1), kind="stable")
        return _block_rule_value(c, W, [np.array([i]) for i in order])
    if rule == "pairwise":  # wrong: each strict pairwise preference, alone, is a precedence
        perms, cost = all_orders_costs(W)
        n = W.shape[0]
        pos = np.empty_like(perms)
        pos[np.arange(len(perms))[:, None], perms] = np.arange(n)[None, :]
        worst = -math.inf
        for a in range(n):
            for b in range(n):
                if W[a, b] < W[b, a]:  # the rule would fix "a before b"
                    worst = max(worst, float(cost[pos[:, a] < pos[:, b]].min()))
        return float(c.sum() + max(worst, cost.min()))
    raise ValueError(f"rule must be one of {RULES}, got {rule!r}")


def check_block_rule(
    instances: Sequence[Instance], objective: str = "B", rule: str = "blocks"
) -> RuleEvidence:
    """Compare the rule's optimum with the exact DP optimum on each instance (n <= 9).

    The DP (solvers/sojourn/exact_enum.py) never uses blocks, so it is an independent oracle.
    A rule that cuts off every optimum shows up as a value above the DP optimum.
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    obj = Objective(objective)
    worst, cyclic, example = 0.0, 0, None
    largest_block = 0
    for inst in instances:
        c, W = linear_ordering_weights(inst, obj)
        if three_cycles(preference_tournament(W), limit=1):
            cyclic += 1
        largest_block = max(largest_block, max(len(b) for b in preference_blocks(W)))
        opt = solve(SojournProblem(inst, obj), "dp").value
        assert opt is not None
        got = _rule_value(c, W, rule)
        excess = (got - opt) / max(abs(opt), 1e-300)
        if excess > worst:
            worst = excess
            if excess > REL_TOL:
                example = {"instance": inst.to_dict(), "rule_value": got, "optimum": opt}
    return RuleEvidence(
        rule=rule,
        holds=worst <= REL_TOL,
        instances=len(instances),
        cyclic_instances=cyclic,
        worst_rel_excess=worst,
        counterexample=example,
        details={"objective": objective, "largest_block": largest_block, "rel_tol": REL_TOL},
    )


def check_stable_sort_step(instances: Sequence[Instance], samples: int, seed: int) -> RuleEvidence:
    """The proof's key step: sorting any order stably by block never raises its cost."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for inst in instances:
        c, W = linear_ordering_weights(inst, Objective("B"))
        blocks = preference_blocks(W)
        label = np.empty(inst.n, dtype=np.int64)
        for p, b in enumerate(blocks):
            label[b] = p
        for _ in range(samples):
            o = rng.permutation(inst.n)
            s = o[np.argsort(label[o], kind="stable")]
            before, after = lop_cost(W, o.tolist()), lop_cost(W, s.tolist())
            worst = max(worst, (after - before) / max(before, 1e-300))
    return RuleEvidence("stable-sort", worst <= REL_TOL, len(instances), 0, worst)


def check_swap_identity(instances: Sequence[Instance]) -> float:
    """Largest relative error of W[b,a] - W[a,b] = pi_a pi_b int wG (idx_b - idx_a)/(g_a g_b)."""
    worst = 0.0
    for inst in instances:
        c, W = linear_ordering_weights(inst, Objective("B"))
        t = b_node_terms(inst)
        u, wG = t["u"], t["wG"]
        pi, e, m = inst.pi, inst.e, inst.m
        g = 1.0 - pi[None, :] + pi[None, :] * u[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            idx = e[None, :] / pi[None, :] + m[None, :] * u[:, None]
        for a, b in itertools.combinations(range(inst.n), 2):
            if pi[a] == 0 or pi[b] == 0:
                continue
            rhs = pi[a] * pi[b] * np.sum(wG * (idx[:, b] - idx[:, a]) / (g[:, a] * g[:, b]))
            lhs = W[b, a] - W[a, b]
            worst = max(worst, abs(lhs - rhs) / max(abs(W).max(), 1e-300))
    return worst


def cyclic_instances(count: int, n: int = 8, start: int = 0, max_tries: int = 200_000) -> list:
    """The first `count` seeds s >= start whose instance generate(n, s, C) (C in 2, 4) has a
    cyclic B preference tournament, as (n, seed, max_checkpoints)."""
    found = []
    for s in range(start, start + max_tries):
        for mc in (2, 4):
            inst = generate(n, s, max_checkpoints=mc)
            _, W = linear_ordering_weights(inst, Objective("B"))
            if three_cycles(preference_tournament(W), limit=1):
                found.append((n, s, mc))
                if len(found) >= count:
                    return found
    return found
