"""One-sided crossing minimization (PACE 2024 `.gr` graphs) as a sparse linear-ordering problem.

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
  cheaper cost in every optimal order (`lop.preference_blocks`' lemma); each block is solved
  alone on its dense cost matrix (`block_matrix`), with the forced pairs inside it marked;
- free vertices with the same neighbour multiset (twins) cost the same against every other
  vertex, and some optimal order keeps each class of them together: a block is solved with each
  class as one vertex (`twin_classes`, `merge_twins`; PACE #50: 481 vertices, 328 classes).

Crossing numbers are integers: a block's sound lower bound rounds up to the next integer, so a
block closes once its bound is within `lop.INTEGER_CLOSE_SLACK` (0.74) of its order: the bound
rounded up is then the order's cost.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.crossings import crossing_number, overlapping_pairs, spans
from schedlab.solvers.result import SolveResult, certify
from schedlab.solvers.sojourn.lop_text import excerpt, iter_lines, read_count, split_line
from schedlab.solvers.sojourn.lpcut_options import LpcutOptions, lpcut_stats
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc, read_text_file

if TYPE_CHECKING:  # lpcut and the LOP core load numba and HiGHS: imported where a block needs them
    from schedlab.solvers.sojourn.exact_lpcut import LpSolver
    from schedlab.solvers.sojourn.lop import BlockModel, ModelFactory

MAX_VERTICES = 10_000_000  # n0 and m above this are refused
MAX_FREE_VERTICES = 1_000_000  # n1 above this is refused: `lop solve` prints the whole order
READ_BYTES_PER_EDGE = 64  # memory per edge of reading, sorting and recounting (checked)
READ_BYTES_PER_FREE_VERTEX = 256  # ... per free vertex: CSR, spans, the order as a list
CANDIDATE_BYTES = 64  # memory per candidate pair of `overlapping_pairs` (slots, then pairs)
BLOCK_BYTES_PER_PAIR = 200  # memory of a block's dense tables and model per pair (checked)


@dataclass(frozen=True)
class OcrGraph:
    """A two-layer graph: free vertex v (0-based; file id n0 + 1 + v) has the sorted fixed
    neighbours nbr[ptr[v]:ptr[v + 1]] (file ids 1..n0; repeated for a repeated edge)."""

    name: str
    n0: int
    n1: int
    ptr: np.ndarray
    nbr: np.ndarray

    @property
    def m(self) -> int:
        return int(self.ptr[-1])

    @cached_property
    def ends(self) -> tuple[np.ndarray, np.ndarray]:
        """(left, right): each free vertex's smallest and largest neighbour (`spans`), computed
        once: the per-block helpers look them up instead of rescanning every edge."""
        return spans(self.ptr, self.nbr)

    @cached_property
    def edge_keys(self) -> np.ndarray:
        """Per edge, free vertex * (n0 + 2) + fixed neighbour: ascending (`end_multiplicities`
        bisects it), computed once."""
        return (
            np.repeat(np.arange(self.n1, dtype=np.int64), np.diff(self.ptr)) * (self.n0 + 2)
            + self.nbr
        )

    def ids_of(self, order: list[int]) -> list[int]:
        """The file's ids (n0 + 1 + v) of free vertices listed 0-based."""
        return [self.n0 + 1 + int(v) for v in order]

    def crossings(self, order: list[int] | np.ndarray) -> int:
        """The crossing number of the drawing with the free vertices in `order` (0-based),
        counted from the edges (`kernels.crossings.crossing_number`)."""
        o = np.asarray(order, dtype=np.int64)
        if sorted(o.tolist()) != list(range(self.n1)):
            raise InvalidInput(f"order: not a permutation of the {self.n1} free vertices")
        return crossing_number(o, self.ptr, self.nbr)


def _header(tokens: list[str], ln: int, name: str) -> tuple[int, int, int]:
    if len(tokens) not in (5, 6) or tokens[1] != "ocr":
        raise InvalidInput(
            f"{name}: line {ln}: the problem line must read 'p ocr n0 n1 m' (PACE 2024), "
            f"got {excerpt(' '.join(tokens))}"
        )
    limits = (("n0", MAX_VERTICES), ("n1", MAX_FREE_VERTICES), ("m", MAX_VERTICES))
    n0, n1, m = (
        read_count(tok, f"{name}: line {ln}: {field}", 0, hi)
        for (field, hi), tok in zip(limits, tokens[2:5], strict=True)
    )
    if len(tokens) == 6:  # the parameterized track's cutwidth: read, not used
        read_count(tokens[5], f"{name}: line {ln}: cutwidth", 0, MAX_VERTICES)
    check_alloc(
        READ_BYTES_PER_EDGE * m + READ_BYTES_PER_FREE_VERTEX * n1,
        f"the graph {name} ({n1} free vertices, {m} edges, by its problem line {ln})",
    )
    return n0, n1, m


def parse_ocr_text(text: str, name: str = "<text>", deadline: Deadline = NO_DEADLINE) -> OcrGraph:
    """The graph of a PACE 2024 `.gr` text; InvalidInput names the line and what is wrong.

    The memory the graph needs is checked from the problem line's counts before anything is
    allocated, edges are counted as they are read (one too many is refused at its line), and
    `deadline` is looked at while reading (InvalidInput once it has passed: no order exists)."""
    lines = iter_lines(text, deadline, name)
    head = None
    for ln, line in lines:
        t = split_line(line)
        if t and t[0] != "c":
            if t[0] != "p":
                raise InvalidInput(f"{name}: line {ln}: expected the problem line 'p ocr n0 n1 m'")
            head = ln, *_header(t, ln, name)
            break
    if head is None:
        raise InvalidInput(f"{name}: no problem line 'p ocr n0 n1 m' (is it a PACE .gr file?)")
    hl, n0, n1, m = head
    a = np.empty(m, dtype=np.int64)
    b = np.empty(m, dtype=np.int64)
    k = 0
    for ln, line in lines:
        t = split_line(line)
        if not t or t[0] == "c":
            continue
        if k == m:
            raise InvalidInput(
                f"{name}: line {ln}: the problem line (line {hl}) says m = {m} edges, this is "
                f"one more ({excerpt(line)})"
            )
        a[k], b[k] = _edge(t, ln, hl, n0, n1, name)
        k += 1
    if k != m:
        raise InvalidInput(f"{name}: the problem line says m = {m} edges, the file has {k}")
    order = np.lexsort((a, b))
    ptr = np.zeros(n1 + 1, dtype=np.int64)
    np.cumsum(np.bincount(b, minlength=n1), out=ptr[1:])
    return OcrGraph(name, n0, n1, ptr, a[order])


def _edge(t: list[str], ln: int, hl: int, n0: int, n1: int, name: str) -> tuple[int, int]:
    """(fixed vertex, free vertex 0-based) of an edge line's tokens (ASCII digits only)."""
    if t[0] == "p":
        raise InvalidInput(f"{name}: line {ln}: a second problem line (the first is line {hl})")
    try:
        x = read_count(t[0], "a", 1, n0)
        y = read_count(t[1], "b", n0 + 1, n0 + n1) if len(t) == 2 else -1
    except InvalidInput:
        y = -1
    if y < 0:
        raise InvalidInput(
            f"{name}: line {ln}: an edge is 'a b' with a fixed vertex a in 1..{n0} and a "
            f"free vertex b in {n0 + 1}..{n0 + n1}, got {excerpt(' '.join(t))}"
        )
    return x, y - n0 - 1


def read_ocr_file(path: str | Path) -> OcrGraph:
    """Read one PACE 2024 `.gr` file."""
    p = Path(path)
    return parse_ocr_text(read_text_file(p, "a PACE .gr graph"), str(p))


def write_ocr_text(g: OcrGraph) -> str:
    """The `.gr` text of `g` (edges by free vertex, then fixed vertex)."""
    deg = np.diff(g.ptr)
    free = np.repeat(np.arange(g.n1), deg) + g.n0 + 1
    lines = [f"p ocr {g.n0} {g.n1} {g.m}"] + [f"{a} {b}" for a, b in zip(g.nbr, free, strict=True)]
    return "\n".join(lines) + "\n"


def random_ocr_graph(n0: int, n1: int, seed: int, *, mean_degree: float = 2.0,
                     span: int = 6, isolated_share: float = 0.05) -> OcrGraph:  # fmt: skip
    """A random two-layer graph shaped like the PACE instances: free vertex v gets
    1 + Poisson(mean_degree - 1) distinct neighbours drawn within `span` positions of a
    centre that drifts along the fixed layer (so most pairs are forced and blocks form), a
    share of free vertices none. Same seed, same graph."""
    if n0 < 1 or n1 < 1:
        raise InvalidInput(f"n0, n1: need at least one vertex per layer (got {n0}, {n1})")
    rng = np.random.default_rng(seed)
    centre = np.sort(rng.uniform(0, n0, n1))[rng.permutation(n1)]
    ptr, nbr = [0], []
    for v in range(n1):
        k = 0 if rng.random() < isolated_share else 1 + int(rng.poisson(max(mean_degree - 1, 0)))
        lo = int(np.clip(centre[v] - span, 0, n0 - 1))
        hi = int(np.clip(centre[v] + span, lo + 1, n0))
        pick = rng.choice(np.arange(lo, hi), size=min(k, hi - lo), replace=False) + 1
        nbr.extend(sorted(int(a) for a in pick))
        ptr.append(len(nbr))
    return OcrGraph(f"random-{n0}-{n1}-{seed}", n0, n1, np.array(ptr, dtype=np.int64),
                    np.array(nbr, dtype=np.int64))  # fmt: skip


def is_ocr_text(text: str) -> bool:
    """Whether the first line that is not a comment is a problem line ('p ...'), or there is
    none but a comment (a graph without its problem line: its reader says so)."""
    comments = False
    for _, line in iter_lines(text, NO_DEADLINE, ""):  # one line at a time, never a list
        t = split_line(line)
        if t and t[0] != "c":
            return t[0] == "p"
        comments |= bool(t)
    return comments


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


GRAPH_PER_PAIR = 6  # incumbent cycles per reversed pair and round on crossing blocks (lpcut's
# PER_PAIR is 12). In-process CPU s with twins merged, 3 / 6 / 9 per pair: PACE #50 2.67 / 2.45
# / 2.68, #58 6.01 / 8.43 / 7.05, #63 4.77 / 5.57 / 5.82, #64 7.23 / 5.57 / 8.04, #77 21.71 /
# 7.47 / 15.88, #96 31.75 / 20.28 / 21.06; 3 / 6 on the largest blocks: #52 13.07 / 8.38, #53
# 66.88 / 18.44, #54 31.27 / 25.28, #66 61.36 / 39.89 (2 per pair: #54 68.91, #66 90.14).
# Before the twins, 2 / 3 / 5: #50 3.5 / 2.5 / 27.0 (5: stalled into the MIP), #64 17.9 / 11.0
# / 10.8
GRAPH_IPM_MIN_FREE_SHARE = 0.35  # crossing blocks with at least this share of their pairs free
# run their LP rounds by the interior point, the others by the dual simplex, warm-started,
# until a round is slow (`graph_lp_solver`). In-process CPU s, twins merged, 6 per pair, interior
# point / dual simplex only, with the free share of the largest block: PACE #63 (0.44) 5.28 /
# 27.56, #64 (0.48) 6.69 / 28.38, #77 (0.57) 8.18 / 34.18, #96 (0.66) 21.71 / 137.92, #50
# (0.52) 2.18 / 1.71; #66 (0.22) 40.18 / 5.84, #52 (0.21) 9.39 / 4.05, #59 (0.13) 5.76 / 4.26,
# but #58 (0.22) 8.28 / 20.25; #67 (0.21) not proven in 120 s by the interior point (the sweep
# at 2975207) / 19.51 (docs/lop.md)
GRAPH_IPM_SWITCH_RATIO = 3.0  # a simplex round of a sparse block slower per row than this many
# times the block's first round is stopped and solved again by the interior point, which runs
# the block's other rounds (`HighsCutModel.ipm_switch_ratio`): the warm rounds of the blocks
# where the simplex paid took 0.1-1.4 times the first round's time per row (PACE #51-#54,
# #59-#61, #66, #67, #73: up to 2.2 on its second and third), #58's second 6.1 (each block's
# rounds logged, 2026-12-02); one of #62's blocks also reaches 6.1 and is switched although
# its simplex would have paid, at a cost of about 2 s. It replaced a fixed 40 microseconds per
# row, set on a faster machine, which on a slower one switched #60 and #67 where the simplex
# paid (#60: 54.4 CPU s against 12.7 without the switch) (docs/lop.md)

GRAPH_CROSSOVER_MIN_ROWS_PER_N = 40.0  # a sparse block whose first LP round with rows has at
# least this many rows per vertex solves it by the interior point with crossover, not by the
# dual simplex from the slack basis (`HighsCutModel.crossover_min_rows_per_n`). That round,
# dual simplex / interior point with crossover, s (in-process, 2026-12-03): #51 (54 rows per
# vertex) 0.20 / 0.13, #52 (67) 0.34 / 0.19, #53 (94) 0.48 / 0.28, #54 (100) 1.16 / 0.38, #66
# (98) 0.93 / 0.36, #67 (97) 2.75 / 0.45; #59 (19) 0.28 / 0.51, #60 (16) 0.31 / 0.60, #61 (15,
# 16) 0.25 / 0.36 and 0.32 / 0.44, #62 (24, 20) 0.24 / 0.57 and 0.20 / 0.35, #73 (25) 1.77 /
# 1.99, #58 (34) 0.30 / 0.39 (docs/lop.md)

GRAPH_IPM_OPTIMALITY_TOL = 3e-10  # the interior point's LP rounds of crossing blocks run to this
# optimality tolerance, not HiGHS's 1e-8 (`HighsCutModel.ipm_optimality_tol`): its duals give a
# tighter Lagrangian bound and fewer, smaller rounds. In-process CPU s, HiGHS's 1e-8 / 1e-9 /
# 5e-10 / 3e-10 (2026-12-04, one core busy beside): PACE #78 31.5 / 21.1 / 20.0 / 12.7 (1e-10:
# 35.4), #79 22.4 / 16.0 / 15.1 / 15.0, #80 18.8 / 14.2 / 11.8 / 14.9, #81 11.8 / 9.5 / 9.0 / 9.5,
# #82 15.2 / 9.6 / 8.5 / 8.8, #96 24.5 / 13.3 / 10.2 / 10.4, #77 9.4 / 7.8 / 7.5 / 7.0, #63 7.2
# / 4.8 / 5.7 / 6.2; where few rounds run by it, 1e-8 / 1e-9 / 3e-10: #58 8.1 / 7.9 / 7.7, #62
# 9.3 / 11.1 / 10.1, #50 2.1 / 2.7 / 2.0, #64 7.3 / 10.7 / 7.7, #39 1.2 / 1.8 / 1.3 (#67, no
# interior point round: 7.9 / 8.3 / 8.1). Looser feasibility tolerances (1e-7, 1e-6 against
# lpcut's 1e-9) changed #78 by 2%; a looser optimality one (1e-7) tripled it (docs/lop.md)


GRAPH_START_KICKS = 1000  # kicks of the iterated insertion search from the starting order before
# the LP rounds of a crossing block (`HighsCutModel.search_start_kicks`): on the largest block
# of PACE #50, #58, #63, #64, #77 it reached the proven block optimum, on #96 and #68 the best
# cost found (0.4-1.9 s); 300 kicks stopped one crossing above on #68 and #96. PACE #77 with /
# without it: 25.5 / 49.4 CPU s, #96 43.6 / 83.1, but #50 8.3 / 2.6 and #63 16.0 / 9.5 (the
# interior point's rounds take another path from another optimal order: docs/lop.md)
# With the dual simplex's rounds on blocks of more than GRAPH_START_FULL_N, no kicks / the
# kicks of `graph_start_kicks` for the interior point, CPU s: #67 8.56 / 25.36, #66 3.96 / 8.80,
# #53 2.95 / 6.34, #60 4.05 / 7.28, #73 33.38 / 33.22; on smaller ones they still paid (#58, 616
# classes: 14.35 without, 8.3-9.3 with; #77, #96 not proven in 300 s without)
GRAPH_START_PATIENCE = 100  # on blocks of at most GRAPH_START_PATIENT_N vertices the start search
# stops after this many kicks in a row without improvement (`graph_start_patience`). Per block,
# the first kick count whose prefix reached the 1,000 kicks' cost (of 0, 25, 50, 100, 200, ...;
# PACE #38, #40, #45, #50, #51, #52, #58, #59, #60, #61, #65, #66): at most 100 on every block
# of 200 vertices or fewer, 200 on #50's 328, 50 on #51's 614. In-process CPU s, every kick /
# patience 100 on every block (the LP rounding still by `lop.insertion_descent`): #40 1.44 /
# 0.72, #43 1.90 / 0.83, #50 2.56 / 1.43, #51 3.72 / 2.33, #63 6.12 / 5.39; with the compiled
# rounding, #77 (425 vertices) not proven in 100 s with it (200: 8.23, 300: 8.00, every kick
# 8.74) and #96 (526) not in 150 s with 200 or 300 (every kick, earlier rounding: 19.24): hence
# small blocks only where the interior point runs the rounds; on the sparse blocks whose rounds
# run by the dual simplex it pays at every size that gets kicks (every kick / patience 100,
# in-process CPU s, two runs side by side, 2026-12-02: #51 11.39 / 4.80, #58 23.29 / 15.76,
# #60 11.32 / 8.45; #59, #61, #62 within 0.8 s) (docs/lop.md)
GRAPH_START_PATIENT_N = 350
GRAPH_START_FULL_N = 700  # blocks of more vertices (after merging twins) get fewer kicks,
# GRAPH_START_KICKS (GRAPH_START_FULL_N / n)^2 (`graph_start_kicks`): a kick's descent costs
# about n^2, and 1,000 kicks took 54.9 of 76.4 CPU s on PACE #73 (1,947 classes)


def graph_start_patience(n: int, solver: LpSolver = "ipm") -> int | None:
    """The start search's patience on a crossing block of n vertices (after merging twins):
    GRAPH_START_PATIENCE up to GRAPH_START_PATIENT_N or where the dual simplex runs the
    block's rounds (`graph_lp_solver`), else None (every kick runs)."""
    patient = n <= GRAPH_START_PATIENT_N or solver == "simplex"
    return GRAPH_START_PATIENCE if patient else None


def free_share(Wb: np.ndarray) -> float:
    """The share of a block's pairs with both counts positive (the LP's free columns)."""
    n = Wb.shape[0]
    both = int(np.count_nonzero((Wb > 0) & (Wb.T > 0))) // 2
    return both / max(n * (n - 1) // 2, 1)


def graph_lp_solver(Wb: np.ndarray) -> LpSolver:
    """The LP rounds' solver on a crossing block: the interior point where many pairs are free
    (GRAPH_IPM_MIN_FREE_SHARE: the simplex's pivots grow dense there), else the dual simplex,
    with the switch to the interior point on a slow round (GRAPH_IPM_SWITCH_RATIO)."""
    return "ipm" if free_share(Wb) >= GRAPH_IPM_MIN_FREE_SHARE else "simplex"


def graph_start_kicks(n: int, solver: LpSolver = "ipm") -> int:
    """The start search's kicks on a crossing block of n vertices: GRAPH_START_KICKS up to
    GRAPH_START_FULL_N vertices, then scaled by (GRAPH_START_FULL_N / n)^2, so that its time
    stays about that of a block of GRAPH_START_FULL_N (at least one kick); none on a larger
    block whose LP rounds run by the dual simplex (`graph_lp_solver`), where the rounds' own
    roundings found the optimum sooner (GRAPH_START_KICKS)."""
    if n <= GRAPH_START_FULL_N:
        return GRAPH_START_KICKS
    if solver == "simplex":
        return 0
    return max(1, round(GRAPH_START_KICKS * (GRAPH_START_FULL_N / n) ** 2))


def twin_classes(g: OcrGraph, blk: np.ndarray) -> np.ndarray:
    """Per vertex of `blk`, the index of its class of twins (0, 1, ... in first-seen order):
    vertices with the same neighbour multiset. Twins cost the same against every other vertex
    and c(u, v) = c(v, u) between them, and some optimal order lists each class contiguously
    (the twin lemma of theory/sojourn/lop_graph.py, checked by its `check_twins`), so a class
    can be solved as one vertex."""
    seen: dict[bytes, int] = {}
    label = np.empty(len(blk), dtype=np.int64)
    for i, v in enumerate(blk.tolist()):  # neighbour lists are sorted (`OcrGraph`): equal
        key = g.nbr[g.ptr[v] : g.ptr[v + 1]].tobytes()  # multisets have equal bytes
        label[i] = seen.setdefault(key, len(seen))
    return label


@dataclass(frozen=True)
class TwinMerge:
    """A block with each class of twins as one vertex: `W[g, h]` the cost of class g before
    class h (the sum over their members' pairs), `forced` as `block_matrix`'s, `members[g]`
    the block positions of class g, `inner` the cost of the pairs inside the classes (the
    same in every order, since c(u, v) = c(v, u) for twins)."""

    W: np.ndarray
    forced: np.ndarray
    members: list[np.ndarray]
    inner: float

    def expand(self, order: Sequence[int]) -> np.ndarray:
        """The block positions of an order of the classes, each class's members together."""
        return np.concatenate([self.members[int(k)] for k in order])


def merge_twins(Wb: np.ndarray, label: np.ndarray) -> TwinMerge:
    """`TwinMerge` of the block matrix `Wb` under the classes `label` (`twin_classes`, every
    class 0..m-1 non-empty): block sums by sorted label, of integers below 2^53, so exact."""
    if not len(label):
        return TwinMerge(np.zeros((0, 0)), np.zeros((0, 0), dtype=bool), [], 0.0)
    m = int(label.max()) + 1
    by = np.argsort(label, kind="stable")
    starts = np.searchsorted(label[by], np.arange(m))
    M = np.add.reduceat(np.add.reduceat(Wb[by], starts, axis=0)[:, by], starts, axis=1)
    inner = float(np.trace(M)) / 2.0  # each pair inside a class twice, at equal costs
    np.fill_diagonal(M, 0.0)
    members = np.split(by, starts[1:])  # each class's positions, ascending (stable sort)
    return TwinMerge(M, (M == 0) & (M.T > 0), members, inner)


GRAPH_STALL_SEARCH_SHARE = 1.0  # crossing blocks whose LP rounds stall short of the best
# order search for up to their LP seconds again before the MIP (`HighsCutModel.stall_search`)


def block_factory(
    factory: ModelFactory, forced: np.ndarray | None, tuned: bool = True
) -> ModelFactory:
    """`factory`'s block models with the block's forced pairs fixed (`fix_forced`) and, with
    `tuned`, the LP rounds of crossing blocks (GRAPH_PER_PAIR, `graph_lp_solver`, and on the
    dual simplex's blocks the switch ratio and the crossover first round), the start search
    (`graph_start_kicks`, `graph_start_patience`), the probe and general round on a stall
    (`stall_general`), the search after one (`GRAPH_STALL_SEARCH_SHARE`) and the interior
    point's optimality tolerance (`GRAPH_IPM_OPTIMALITY_TOL`)."""

    from schedlab.solvers.sojourn.exact_lpcut import HighsCutModel

    def make(Wb: np.ndarray, deadline: Deadline, slack: float) -> BlockModel:
        model = factory(Wb, deadline, slack)
        if isinstance(model, HighsCutModel):
            if forced is not None:
                model.fix_forced(forced)
            if tuned:
                model.per_pair = GRAPH_PER_PAIR
                solver = model.lp_solver_pref = graph_lp_solver(Wb)
                if solver == "simplex":
                    model.ipm_switch_ratio = GRAPH_IPM_SWITCH_RATIO
                    model.crossover_min_rows_per_n = GRAPH_CROSSOVER_MIN_ROWS_PER_N
                model.start_kicks = graph_start_kicks(Wb.shape[0], solver)
                model.start_patience = graph_start_patience(Wb.shape[0], solver)
                model.stall_general = True
                model.stall_search_share = GRAPH_STALL_SEARCH_SHARE
                model.ipm_optimality_tol = GRAPH_IPM_OPTIMALITY_TOL
        return model

    return make


def solve_graph(
    g: OcrGraph,
    *,
    time_limit: float | None = None,
    seed: int | None = 0,
    options: LpcutOptions | None = None,
    fix_forced: bool = True,
    integral: bool = True,
    tuned: bool = True,
    twins: bool = True,
    deadline: Deadline | None = None,
) -> SolveResult[list[int]]:
    """The fewest crossings of `g` by lpcut, block by block: blocks without a free pair take
    `forced_order` (every pair at its zero count), the others their dense block matrix. The
    value is the crossing number of the order returned, counted from the edges; the bound is
    the sum over blocks of their rounded-up bounds plus, for every free pair split between two
    blocks, its smaller count: a lower bound for any partition into blocks, since an order's
    cost is its pairs' costs. The status is `certify`'s. lpcut (numba, HiGHS) is imported only
    when some block has a free pair."""
    opts = options or LpcutOptions()
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit) if deadline is None else deadline
    if deadline.passed():  # reading took the whole limit: no pair is counted
        return _stopped_before_pairs(g, t0, opts)
    sc = SparseCrossings.of(g)
    bl = blocks(sc)
    loc = np.full(g.n1, -1, dtype=np.int64)
    for bi, blk in enumerate(bl):
        loc[blk] = bi
    inside = loc[sc.u] == loc[sc.v]
    free_in = np.bincount(loc[sc.u[inside]], minlength=len(bl))
    by_block = np.nonzero(inside)[0]  # the pairs inside blocks, grouped by block
    by_block = by_block[np.argsort(loc[sc.u[by_block]], kind="stable")]
    first_pair = np.concatenate([[0], np.cumsum(free_in)])
    pair_min = np.minimum(sc.cuv, sc.cvu)
    min_in = np.bincount(loc[sc.u[inside]], weights=pair_min[inside], minlength=len(bl))
    largest = max((len(b) for b, f in zip(bl, free_in, strict=True) if f), default=0)
    check_alloc(BLOCK_BYTES_PER_PAIR * largest * largest,
                f"a block of {largest} free vertices of {g.name}")  # fmt: skip
    order: list[int] = []
    bound = float(pair_min[~inside].sum())
    proven = True
    stats: dict[str, Any] = {"blocks": len(bl), "free_pairs": len(sc.u), "solver_blocks": 0,
                             "largest_block": max((len(b) for b in bl), default=0),
                             "largest_solver_block": 0, "twins_merged": 0,
                             "blocks_stopped": 0, **lpcut_stats(opts)}  # fmt: skip
    stats["prepare_s"] = time.perf_counter() - t0
    routes: list[str] = []
    solver = _BlockSolver(g, sc, opts, seed, deadline, fix_forced, integral, tuned, twins)
    for bi, blk in enumerate(bl):
        if free_in[bi] == 0 or deadline.passed():  # no free pair, or no time: forced order
            order.extend(int(v) for v in forced_order(sc, blk))
            if free_in[bi]:  # every pair costs at least its smaller count: a sound bound
                bound += float(min_in[bi])
                proven = False
                stats["blocks_stopped"] += 1
            continue
        part, b, ok, out_stats = solver.solve(blk, by_block[first_pair[bi] : first_pair[bi + 1]])
        order.extend(part)
        bound += b
        proven &= ok
        stats["solver_blocks"] += 1
        stats["largest_solver_block"] = max(stats["largest_solver_block"], len(blk))
        stats["twins_merged"] += out_stats.pop("twins_merged")
        for k, v in out_stats.items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                stats[k] = stats.get(k, 0) + v
            elif k == "route":
                routes.append(str(v))
    order.extend(int(v) for v in np.nonzero(np.diff(g.ptr) == 0)[0])  # no edge: anywhere
    value = float(g.crossings(order))
    cert = certify(value, bound, "min")
    stats = {**stats, **cert.stats, "routes": routes, "all_blocks_closed": bool(proven)}
    res = SolveResult(cert.status, cert.value, cert.bound, order, "lpcut", 0.0, stats)
    return replace(res, runtime_s=time.perf_counter() - t0)


def _stopped_before_pairs(g: OcrGraph, t0: float, opts: LpcutOptions) -> SolveResult[list[int]]:
    """The answer when the time limit ran out before any pair was counted: the free vertices
    with an edge by their neighbour spans (`forced_order`'s rule), then those without; bound
    0, sound for every crossing number."""
    active = np.nonzero(np.diff(g.ptr) > 0)[0]
    left, right = g.ends
    order = [int(v) for v in active[np.lexsort((active, right[active], left[active]))]]
    order.extend(int(v) for v in np.nonzero(np.diff(g.ptr) == 0)[0])
    cert = certify(float(g.crossings(order)), 0.0, "min")
    stats = {**lpcut_stats(opts), **cert.stats, "stopped_while_preparing": True,
             "all_blocks_closed": False}  # fmt: skip
    res = SolveResult(cert.status, cert.value, cert.bound, order, "lpcut", 0.0, stats)
    return replace(res, runtime_s=time.perf_counter() - t0)


@dataclass
class _BlockSolver:
    """lpcut on the blocks of `solve_graph` that have a free pair: twins merged, forced pairs
    fixed, the tuned rounds; its factory (and with it numba and HiGHS) made at the first."""

    g: OcrGraph
    sc: SparseCrossings
    opts: LpcutOptions
    seed: int | None
    deadline: Deadline
    fix_forced: bool
    integral: bool
    tuned: bool
    twins: bool
    factory: ModelFactory | None = None

    def solve(
        self, blk: np.ndarray, pairs: np.ndarray | None = None
    ) -> tuple[list[int], float, bool, dict[str, Any]]:
        """(the block's order as vertex ids, its sound bound, proven, lpcut's stats); `pairs`:
        the indices of the block's pairs (`block_matrix`)."""
        from schedlab.solvers.sojourn.exact_lpcut import block_close_abs, lpcut_factory
        from schedlab.solvers.sojourn.lop import INTEGER_CLOSE_SLACK, integer_bound, solve_block

        if self.factory is None:
            self.factory = lpcut_factory(self.opts, self.seed, integral=self.integral)
        Wb, _ = block_matrix(self.sc, blk, pairs)
        label = twin_classes(self.g, blk) if self.twins else np.arange(len(blk))
        tm = merge_twins(Wb, label)
        fac = block_factory(self.factory, tm.forced if self.fix_forced else None, self.tuned)
        slack = INTEGER_CLOSE_SLACK if self.integral else block_close_abs(tm.W)
        out = solve_block(tm.W, fac, "separate", self.deadline, True, self.opts.hint, slack)
        bound = (integer_bound(out.bound) if self.integral else out.bound) + tm.inner
        stats = {**out.stats, "twins_merged": len(blk) - len(tm.members)}
        return [int(v) for v in blk[tm.expand(out.order)]], bound, out.proven, stats
