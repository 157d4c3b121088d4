"""lpcut on a PACE crossing graph: the blocks of `lop.crossings`, twins merged, tuned rounds.

`solve_graph` is the engine's solver of a crossing graph (registered as the "lop" method
"lpcut" for `OcrGraph` problems, `lop.methods`): most pairs are decided before any solver runs
(`lop.crossings`), a block with a free pair is solved on its dense cost matrix with each class
of twins as one vertex (`twin_classes`, `merge_twins`) and the forced pairs fixed, by lpcut's
block model with the crossing tuning (`CrossingTuning.for_block`). Crossing numbers are
integers: a block's sound lower bound rounds up to the next integer, so a block closes once its
bound is within `core.INTEGER_CLOSE_SLACK` (0.74) of its order. Why each tuning default is what
it is (the PACE runs that chose it) is in docs/lop.md, "Tuning of the crossing blocks".
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.solvers.lop.crossings import (
    BLOCK_BYTES_PER_PAIR,
    SparseCrossings,
    block_matrix,
    blocks,
    forced_order,
)
from schedlab.solvers.lop.graph import OcrGraph
from schedlab.solvers.lop.lpcut.options import (
    DEFAULT_TUNING,
    LpcutOptions,
    LpcutTuning,
    LpSolver,
    lpcut_stats,
)
from schedlab.solvers.result import SolveResult, certify
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc

if TYPE_CHECKING:  # lpcut and the LOP core load numba and HiGHS: imported where a block needs them
    from schedlab.solvers.lop.core import ModelFactory


@dataclass(frozen=True)
class CrossingTuning:
    """lpcut's tuning on the crossing blocks of a PACE graph (docs/lop.md, "Tuning of the
    crossing blocks", has the runs behind each default); `for_block` makes a block's
    `LpcutTuning` from it."""

    per_pair: int = 6  # incumbent cycles per reversed pair and round (lpcut's default: 12)
    ipm_min_free_share: float = 0.35  # blocks with this share of free pairs: interior point
    ipm_switch_ratio: float = 3.0  # a simplex round this many times slower per row than the
    # block's first hands the block's rounds to the interior point
    crossover_min_rows_per_n: float = 40.0  # a first round with rows with this many rows per
    # vertex runs by the interior point with crossover
    ipm_optimality_tol: float = 3e-10  # the interior point's rounds' optimality tolerance
    start_kicks: int = 1000  # kicks of the start search before the LP rounds ...
    start_full_n: int = 700  # ... on blocks up to this many vertices; fewer above it
    start_patience: int = 100  # the start search stops after this many kicks without gain ...
    start_patient_n: int = 350  # ... on blocks up to this size (or run by the dual simplex)
    stall_search_share: float = 1.0  # a search for this share of the LP seconds at a stall
    base: LpcutTuning = DEFAULT_TUNING  # the rest of each block's tuning

    def free_share(self, Wb: np.ndarray) -> float:
        """The share of a block's pairs with both counts positive (the LP's free columns)."""
        n = Wb.shape[0]
        both = int(np.count_nonzero((Wb > 0) & (Wb.T > 0))) // 2
        return both / max(n * (n - 1) // 2, 1)

    def lp_solver(self, Wb: np.ndarray) -> LpSolver:
        """The LP rounds' solver on a crossing block: the interior point where many pairs are
        free (`ipm_min_free_share`: the simplex's pivots grow dense there), else the dual
        simplex, with the switch to the interior point on a slow round (`ipm_switch_ratio`)."""
        return "ipm" if self.free_share(Wb) >= self.ipm_min_free_share else "simplex"

    def start_kicks_for(self, n: int, solver: LpSolver = "ipm") -> int:
        """The start search's kicks on a block of n vertices: `start_kicks` up to
        `start_full_n` vertices, then scaled by (start_full_n / n)^2, so that its time stays
        about that of a block of `start_full_n` (at least one kick); none on a larger block
        whose LP rounds run by the dual simplex, where the rounds' own roundings found the
        optimum sooner."""
        if n <= self.start_full_n:
            return self.start_kicks
        if solver == "simplex":
            return 0
        return max(1, round(self.start_kicks * (self.start_full_n / n) ** 2))

    def patience_for(self, n: int, solver: LpSolver = "ipm") -> int | None:
        """The start search's patience on a block of n vertices: `start_patience` up to
        `start_patient_n` or where the dual simplex runs the block's rounds, else None (every
        kick runs)."""
        patient = n <= self.start_patient_n or solver == "simplex"
        return self.start_patience if patient else None

    def for_block(self, Wb: np.ndarray) -> LpcutTuning:
        """lpcut's tuning of one crossing block (its matrix after merging twins): the LP
        solver, the start search, the probe and general round at a stall, the search after
        it, and on the dual simplex's blocks the switch ratio and the crossover first round."""
        solver = self.lp_solver(Wb)
        simplex = solver == "simplex"
        n = Wb.shape[0]
        return replace(
            self.base,
            per_pair=self.per_pair,
            lp_solver=solver,
            ipm_switch_ratio=self.ipm_switch_ratio if simplex else None,
            crossover_min_rows_per_n=self.crossover_min_rows_per_n if simplex else None,
            start_kicks=self.start_kicks_for(n, solver),
            start_patience=self.patience_for(n, solver),
            stall_general=True,
            stall_search_share=self.stall_search_share,
            ipm_optimality_tol=self.ipm_optimality_tol,
        )


#: The crossing blocks' tuning where none is passed.
CROSSING_TUNING = CrossingTuning()


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


def solve_graph(
    g: OcrGraph,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = 0,
    options: LpcutOptions | None = None,
    fix_forced: bool = True,
    integral: bool = True,
    tuning: CrossingTuning | None = CROSSING_TUNING,
    twins: bool = True,
) -> SolveResult[list[int]]:
    """The fewest crossings of `g` by lpcut, block by block: blocks without a free pair take
    `forced_order` (every pair at its zero count), the others their dense block matrix. The
    value is the crossing number of the order returned, counted from the edges; the bound is
    the sum over blocks of their rounded-up bounds plus, for every free pair split between two
    blocks, its smaller count: a lower bound for any partition into blocks, since an order's
    cost is its pairs' costs. The status is `certify`'s. lpcut (numba, HiGHS) is imported only
    when some block has a free pair. `deadline`: the caller's (`solve`'s, which reading
    counted against too); `tuning` None: lpcut's default tuning on every block."""
    opts = options or LpcutOptions()
    t0 = time.perf_counter()
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
    solver = _BlockSolver(g, sc, opts, seed, deadline, fix_forced, integral, tuning, twins)
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
    fixed, each block's tuning (`CrossingTuning.for_block`); lpcut (and with it numba and
    HiGHS) imported at the first."""

    g: OcrGraph
    sc: SparseCrossings
    opts: LpcutOptions
    seed: int | None
    deadline: Deadline
    fix_forced: bool
    integral: bool
    tuning: CrossingTuning | None
    twins: bool

    def solve(
        self, blk: np.ndarray, pairs: np.ndarray | None = None
    ) -> tuple[list[int], float, bool, dict[str, Any]]:
        """(the block's order as vertex ids, its sound bound, proven, lpcut's stats); `pairs`:
        the indices of the block's pairs (`block_matrix`)."""
        from schedlab.solvers.lop.core import INTEGER_CLOSE_SLACK, integer_bound, solve_block
        from schedlab.solvers.lop.lpcut.model import block_close_abs, lpcut_factory

        Wb, _ = block_matrix(self.sc, blk, pairs)
        label = twin_classes(self.g, blk) if self.twins else np.arange(len(blk))
        tm = merge_twins(Wb, label)
        tuning = DEFAULT_TUNING if self.tuning is None else self.tuning.for_block(tm.W)
        forced = tm.forced if self.fix_forced else None
        fac: ModelFactory = lpcut_factory(
            self.opts, self.seed, integral=self.integral, tuning=tuning, forced=forced
        )
        slack = INTEGER_CLOSE_SLACK if self.integral else block_close_abs(tm.W)
        out = solve_block(tm.W, fac, "separate", self.deadline, True, self.opts.hint, slack)
        bound = (integer_bound(out.bound) if self.integral else out.bound) + tm.inner
        stats = {**out.stats, "twins_merged": len(blk) - len(tm.members)}
        return [int(v) for v in blk[tm.expand(out.order)]], bound, out.proven, stats
