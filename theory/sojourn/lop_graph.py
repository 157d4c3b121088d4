"""Why a crossing problem's forced pairs may be fixed and its twins merged before solving, with
numerical checks.

Setting (`solvers.lop.graph`): free vertices u with fixed neighbours N(u) (positions on a
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

Lemma (twins). Call u, v twins when N(u) = N(v) as multisets. Then c(u, x) = c(v, x) and
c(x, u) = c(x, v) for every x, c(u, v) = c(v, u), and some optimal order lists every class of
twins contiguously.

Proof. The equalities are immediate from the definition of c. Take an optimal order and a class
A that is not contiguous: two maximal runs R (left) and R' (right) of A's members with a
non-empty set S of non-members between them and no member of A in S. Moving R' to just behind R
changes the cost by |R'| sum_{x in S} (c(u, x) - c(x, u)) for u in A (every member of A has the
same costs against S, and pairs inside A cost the same either way); moving R to just before R'
changes it by |R| sum_{x in S} (c(x, u) - c(u, x)), the opposite sign. One of the two moves does
not raise the cost, so it gives an optimal order; it joins two runs of A and splits no run of
another class (removing a run splits nothing, and it is inserted next to a member of A). Repeat
until every class is one run. QED.

So `solve_graph` solves each block with its classes as single vertices (`merge_twins`: the
cost of class g before class h is the sum over their members' pairs, the pairs inside a class
a constant) and lists each class's members together; the merged optimum plus that constant is
the block's optimum, and a lower bound of the merged problem plus the constant is a lower bound
of the block's. With the forced pairs: every optimal order respects them and some optimal order
is contiguous, so some contiguous one respects them, and the merged problem's forced pairs are
its members' (the same counts times the class sizes). `check_twins` enumerates small graphs with
many twins and compares the merged optimum with the unmerged one.

The block decomposition and the bound of `solve_graph` need no lemma beyond
`theory/sojourn/lop.py`'s: any order's cost is the sum of its pairs' costs, at least the pairwise
minimum across blocks plus each block's own lower bound.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from schedlab.solvers.lop.core import lop_cost
from schedlab.solvers.lop.crossings import SparseCrossings, block_matrix
from schedlab.solvers.lop.graph import random_ocr_graph
from schedlab.solvers.lop.graph_route import merge_twins, twin_classes

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


@dataclass
class TwinCheck:
    """How many instances had a class of two or more twins, and those (seeds) where the merged
    optimum plus the constant inside the classes differed from the enumerated optimum, or the
    best expanded order did not cost that optimum."""

    instances: int = 0
    merged_vertices: int = 0
    violations: list[int] = field(default_factory=list)


TWIN_RULES = ("twins", "degree")


def check_twins(instances: int = 100, seed: int = 0, rule: str = "twins") -> TwinCheck:
    """Enumerate every order of small random graphs drawn on few fixed vertices (so that twins
    are common) and of their merged problems (`merge_twins`): the optima agree for the classes
    of twins ('twins'); merging the vertices of equal degree instead ('degree', not a lemma)
    shows that the check can fail."""
    if rule not in TWIN_RULES:
        raise ValueError(f"rule must be one of {TWIN_RULES}, not {rule!r}")
    out = TwinCheck()
    for k in range(instances):
        rng = np.random.default_rng(seed + k)
        g = random_ocr_graph(3, int(rng.integers(4, 8)), seed + k, mean_degree=1.6, span=1,
                             isolated_share=0.0)  # fmt: skip
        sc = SparseCrossings.of(g)
        W, _ = block_matrix(sc, sc.active)
        if rule == "twins":
            label = twin_classes(g, sc.active)
        else:
            label = np.unique(np.diff(g.ptr)[sc.active], return_inverse=True)[1]
        tm = merge_twins(W, label)
        if len(tm.members) == W.shape[0]:
            continue
        out.instances += 1
        out.merged_vertices += W.shape[0] - len(tm.members)
        best = lop_cost(W, _optimal_orders(W)[0])
        merged = _optimal_orders(tm.W)[0]
        if lop_cost(tm.W, merged) + tm.inner != best or lop_cost(W, tm.expand(merged)) != best:
            out.violations.append(seed + k)
    return out
