"""The pairs of a crossing graph a solver has to decide, and its blocks.

A PACE 2024 graph (`p ocr n0 n1 m`, then m lines `a b`, a fixed vertex 1..n0 and a free vertex
n0+1..n0+n1; lines starting with `c` are comments) is drawn with the fixed layer in its order;
the problem is an order of the free layer with the fewest edge crossings. Placing u before v
costs c(u, v) = #{(a, b): a in N(u), b in N(v), a > b} crossings, so an order's crossing number
is the linear-ordering cost sum_{u before v} c(u, v): the LOP core's problem.

Most pairs are decided before any solver runs (theory/sojourn/lop_graph.py has the proofs and
their numerical checks):
- a free vertex without edges costs nothing anywhere (listed last);
- `c(u, v) = 0 < c(v, u)` (u's neighbours all at or left of v's): u precedes v in every optimal
  order (the forced pairs; an exchange argument special to crossing costs, false for a general
  LOP). Only pairs with both counts positive (overlapping neighbour spans) are counted
  (`kernels.crossings.overlapping_pairs`), so nothing of size n^2 is built;
- the preference digraph (u -> v when c(u, v) <= c(v, u)) is semicomplete, so sorting by
  out-degree lists its strong components contiguously in topological order; a prefix is a union
  of components exactly when Landau's count holds (`blocks`). Across blocks every pair is at its
  cheaper cost in every optimal order (`core.preference_blocks`' lemma); each block is solved
  alone on its dense cost matrix (`block_matrix`), with the forced pairs inside it marked;
- free vertices with the same neighbour multiset (twins) cost the same against every other
  vertex, and some optimal order keeps each class of them together: a block is solved with each
  class as one vertex (`graph_route.twin_classes`, `graph_route.merge_twins`).

Crossing numbers are integers: a block's sound lower bound rounds up to the next integer, so a
block closes once its bound is within `core.INTEGER_CLOSE_SLACK` (0.74) of its order: the bound
rounded up is then the order's cost.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.solvers.kernels.crossings import overlapping_pairs
from schedlab.solvers.lop.graph import OcrGraph
from schedlab.solvers.validate import check_alloc

CANDIDATE_BYTES = 64  # memory per candidate pair of `overlapping_pairs` (slots, then pairs)
BLOCK_BYTES_PER_PAIR = 200  # memory of a block's dense tables and model per pair (checked)


@dataclass(frozen=True)
class SparseCrossings:
    """The pairs of a graph's free vertices that a solver has to decide: `u[k]`, `v[k]` with
    both counts `cuv[k]` = c(u, v) and `cvu[k]` = c(v, u) positive; every other pair of
    `active` vertices (those with an edge) has a zero count one way (forced, or a tie at zero
    for two vertices on one and the same fixed vertex)."""

    graph: OcrGraph
    active: np.ndarray
    u: np.ndarray
    v: np.ndarray
    cuv: np.ndarray
    cvu: np.ndarray

    @classmethod
    def of(cls, g: OcrGraph) -> SparseCrossings:
        """The overlapping pairs of `g`; their candidates' memory is checked first."""
        deg = np.diff(g.ptr)
        active = np.nonzero(deg > 0)[0]
        check_alloc(
            CANDIDATE_BYTES * candidate_pairs(g, active),
            f"the overlapping neighbour spans of {g.name}'s {len(active)} free vertices",
        )
        u, v, cuv, cvu = overlapping_pairs(g.ptr, g.nbr, active)
        return cls(g, active, u, v, cuv, cvu)

    def out_degrees(self) -> np.ndarray:
        """Per vertex (indexed by vertex, 0 for inactive): how many active w have an arc
        v -> w of the preference digraph (c(v, w) <= c(w, v), w != v)."""
        g = self.graph
        left, right = g.ends
        ls = np.sort(left[self.active])
        # c(v, w) = 0 iff right[v] <= left[w]; v itself counts when it sits on one vertex
        zero = len(ls) - np.searchsorted(ls, right, side="left")
        zero = zero - (right <= left)
        out = np.where(np.diff(g.ptr) > 0, zero, 0).astype(np.int64)
        np.add.at(out, self.u, (self.cuv <= self.cvu).astype(np.int64))
        np.add.at(out, self.v, (self.cvu <= self.cuv).astype(np.int64))
        return out


def candidate_pairs(g: OcrGraph, active: np.ndarray) -> int:
    """How many candidate pairs `overlapping_pairs` enumerates (and may hold slots for):
    pairs whose later span, by left end, starts strictly before the earlier one's right end.
    O(n log n), before any pair is built."""
    left, right = g.ends
    order = active[np.lexsort((right[active], left[active]))]
    ends = np.searchsorted(left[order], right[order], side="left")
    return int(np.maximum(ends - np.arange(len(order)) - 1, 0).sum())


def blocks(sc: SparseCrossings) -> list[np.ndarray]:
    """The strong components of the preference digraph on the active vertices, in topological
    order (each as vertex ids, in out-degree order). Sorted by out-degree (descending; ties by
    neighbour span), a prefix of k of the n vertices has no arc back into it exactly when its
    out-degrees sum to C(k, 2) + T_k + k (n - k) and no two-way pair straddles it, where T_k
    counts the two-way pairs (ties c(u, v) = c(v, u)) inside it (Landau's count for a
    semicomplete digraph): the cuts are found in O(pairs + n log n), without the n x n table."""
    g = sc.graph
    act = sc.active
    n = len(act)
    if n == 0:
        return []
    outd = sc.out_degrees()
    left, right = g.ends
    order = act[np.lexsort((act, right[act], left[act], -outd[act]))]
    pos = np.full(g.n1, -1, dtype=np.int64)
    pos[order] = np.arange(n)
    # two-way pairs: overlapping ties, and vertices on one and the same single fixed vertex
    tie = sc.cuv == sc.cvu
    p1, p2 = pos[sc.u[tie]], pos[sc.v[tie]]
    lo, hi = np.minimum(p1, p2), np.maximum(p1, p2)
    point = left[order] == right[order]
    key = np.where(point, left[order], -1)
    blocked = np.zeros(n + 1, dtype=np.int64)  # cuts k in (lo, hi] are not allowed
    np.add.at(blocked, lo + 1, 1)
    np.add.at(blocked, hi + 1, -1)
    inside = np.zeros(n + 1, dtype=np.int64)  # T_k: two-way pairs with both ends below k
    np.add.at(inside, hi + 1, 1)
    lo, hi, size = point_groups(key, point)  # groups on one fixed vertex (contiguous here)
    np.add.at(blocked, lo + 1, 1)
    np.add.at(blocked, hi + 1, -1)
    np.add.at(inside, hi + 1, size * (size - 1) // 2)
    blocked = np.cumsum(blocked)
    inside = np.cumsum(inside)
    k = np.arange(n + 1)
    prefix = np.concatenate([[0], np.cumsum(outd[order])])
    full = k * (k - 1) // 2 + inside + k * (n - k)
    cut = np.nonzero((prefix == full) & (blocked == 0))[0]
    cut = cut[(cut > 0) & (cut < n)]
    return [order[a:b] for a, b in zip(np.r_[0, cut], np.r_[cut, n], strict=True)]


def point_groups(key: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, ...]:
    """(first position, last position, size) of every group of two or more `point` positions
    with one and the same key, all groups at once (sorting, not a scan per group)."""
    pos = np.nonzero(point)[0]
    srt = np.argsort(key[pos], kind="stable")
    k, pos = key[pos][srt], pos[srt]
    starts = np.nonzero(np.r_[True, k[1:] != k[:-1]])[0] if len(k) else np.zeros(0, np.int64)
    size = np.diff(np.r_[starts, len(k)])
    if not len(starts):
        return starts, starts, starts
    lo = np.minimum.reduceat(pos, starts)
    hi = np.maximum.reduceat(pos, starts)
    many = size > 1
    return lo[many], hi[many], size[many]


def block_matrix(
    sc: SparseCrossings, blk: np.ndarray, pairs: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(W, forced) for the block's vertices in the given order: W[i, j] = c(blk[i], blk[j])
    (exact integers as floats) and forced[i, j] when c(i, j) = 0 < c(j, i) (i precedes j in
    every optimal order). Pairs not overlapping have c one way 0 and the other way all their
    edge pairs but those sharing a fixed vertex. `pairs`: the indices of sc's pairs inside the
    block when the caller has them (then the work is the block's, not the graph's)."""
    g = sc.graph
    nb = len(blk)
    check_alloc(BLOCK_BYTES_PER_PAIR * nb * nb, f"a block of {nb} free vertices of {g.name}")
    left, right = g.ends
    deg = (g.ptr[blk + 1] - g.ptr[blk]).astype(np.float64)
    L, R = left[blk], right[blk]
    mult_l, mult_r = end_multiplicities(g, blk)
    zero = R[:, None] <= L[None, :]  # c(i, j) = 0
    shared = np.where(R[:, None] == L[None, :], mult_r[:, None] * mult_l[None, :], 0.0)
    W = np.where(zero.T, np.outer(deg, deg) - shared.T, 0.0)  # c(i, j) when c(j, i) = 0
    if pairs is None:
        loc = np.full(g.n1, -1, dtype=np.int64)
        loc[blk] = np.arange(nb)
        pairs = np.nonzero((loc[sc.u] >= 0) & (loc[sc.v] >= 0))[0]
    srt = np.argsort(blk)
    i = srt[np.searchsorted(blk[srt], sc.u[pairs])]
    j = srt[np.searchsorted(blk[srt], sc.v[pairs])]
    W[i, j] = sc.cuv[pairs]
    W[j, i] = sc.cvu[pairs]
    np.fill_diagonal(W, 0.0)
    forced = (W == 0) & (W.T > 0)
    return W, forced


def end_multiplicities(g: OcrGraph, blk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many edges each vertex of `blk` has to its leftmost and to its rightmost
    neighbour (more than one for a repeated edge)."""
    key = g.edge_keys
    left, right = g.ends
    base = blk.astype(np.int64) * (g.n0 + 2)

    def count(x: np.ndarray) -> np.ndarray:
        hi = np.searchsorted(key, base + x, "right")
        return (hi - np.searchsorted(key, base + x, "left")).astype(np.float64)

    return count(left[blk]), count(right[blk])


def forced_order(sc: SparseCrossings, blk: np.ndarray) -> np.ndarray:
    """The vertices of `blk` by (left end, right end, id): every pair that is not free (one
    count zero) sits at its zero count in this order."""
    left, right = sc.graph.ends
    return blk[np.lexsort((blk, right[blk], left[blk]))]
