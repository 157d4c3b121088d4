"""Why a crossing problem's forced pairs may be fixed before solving, with a numerical check.

Setting (`solvers.sojourn.lop_graph`): free vertices u with fixed neighbours N(u) (positions on a
line), c(u, v) = #{(a, b) in N(u) x N(v): a > b}, the cost of u before v; an order costs the sum
of c over its pairs.

Lemma (forced pairs). If c(u, v) = 0 < c(v, u), then u precedes v in every optimal order.

Proof. Take an order with v before u, and let w_1, ..., w_k be the vertices between them.
Moving u to just before v changes the cost by D1 = sum_{x in {v, w_i}} (c(u, x) - c(x, u));
moving v to just behind u changes it by D2 = sum_{x in {w_i, u}} (c(x, v) - c(v, x)). Write
c(u, x) - c(x, u) = sum_{a in N(u), b in N(x)} sgn(a - b). Every a in N(u) is at most every a' in
N(v) (c(u, v) = 0), and sgn(a - b) grows with a, so the mean of sgn(a - b) over a in N(u) is at
most its mean over a' in N(v): deg(v) (c(u, w) - c(w, u)) + deg(u) (c(w, v) - c(v, w)) <= 0 for
every w. The pair (u, v) itself adds c(u, v) - c(v, u) = -c(v, u) < 0 to both D1 and D2. Hence
deg(v) D1 + deg(u) D2 < 0, so D1 < 0 or D2 < 0: the order was not optimal. QED.

So the forced pairs (a transitive relation: an interval order on the neighbour spans) can all be
fixed at once, and a lower bound on the orders that respect them is a lower bound on all. The
lemma is special to crossing costs: for a general linear ordering matrix, "W[u, v] = 0 < W[v, u]
puts u first in some optimal order" is false, and `check_forced_pairs(rule="matrix")` finds a
counterexample on random sparse matrices.

The block decomposition and the bound of `solve_graph` need no lemma beyond
`theory/sojourn/lop.py`'s: any order's cost is the sum of its pairs' costs, at least the pairwise
minimum across blocks plus each block's own lower bound.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from schedlab.solvers.sojourn.lop_graph import SparseCrossings, block_matrix, random_ocr_graph

RULES = ("graph", "matrix")


@dataclass
class ForcedCheck:
    """How many instances were enumerated, and those (seeds) where an optimal order broke a
    forced pair."""

    instances: int = 0
    violations: list[int] = field(default_factory=list)


def _optimal_orders(W: np.ndarray) -> list[tuple[int, ...]]:
    n = W.shape[0]
    costs = {p: float(np.triu(W[np.ix_(p, p)], 1).sum()) for p in itertools.permutations(range(n))}
    best = min(costs.values())
    return [p for p, c in costs.items() if c == best]


def _instance(rule: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(W, forced): a random graph's crossing matrix ('graph'), or a random sparse integer
    matrix with the same zero rule applied ('matrix', where the lemma does not hold)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    if rule == "graph":
        g = random_ocr_graph(8, n, seed, mean_degree=2.5, span=3, isolated_share=0.0)
        sc = SparseCrossings.of(g)
        return block_matrix(sc, sc.active)
    W = rng.integers(0, 6, (n, n)).astype(float) * (rng.random((n, n)) < 0.6)
    np.fill_diagonal(W, 0.0)
    return W, (W == 0) & (W.T > 0) & ~np.eye(n, dtype=bool)


def check_forced_pairs(instances: int = 200, seed: int = 0, rule: str = "graph") -> ForcedCheck:
    """Enumerate every order of small random instances and record those where some optimal
    order puts v before u for a forced pair (u, v): none under the lemma ('graph'); found for
    general matrices ('matrix'), which shows the check can fail."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
    out = ForcedCheck()
    for k in range(instances):
        W, forced = _instance(rule, seed + k)
        if W.shape[0] < 2:
            continue
        out.instances += 1
        fi, fj = np.nonzero(forced)
        for p in _optimal_orders(W):
            pos = np.empty(len(p), dtype=np.int64)
            pos[list(p)] = np.arange(len(p))
            if np.any(pos[fi] > pos[fj]):
                out.violations.append(seed + k)
                break
    return out
