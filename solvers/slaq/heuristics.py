"""SLAQ's heuristics: the marginal-gain heap (sum), two water-fillings (max-min) and fair share.

All return work-conserving allocations in the exact methods' feasible set: new jobs at the fair
share, old jobs at least their minimum, every free core given to an old job.

Two max-min rules, on different quantities:
- `maxmin_quality_extra` (the simulator's policy `maxmin`, the paper's max-min on quality):
  water-filling on each job's *quality level* after the epoch, its normalized loss reduction
  since it started, (L_first - L^(now + c T / W_j)) / (L_first - L^(inf)) (`QualityLevel`);
- `maxmin_extra` (the snapshot objective `maxmin`, the simulator's policy `maxmin-gain`):
  water-filling on the predicted *gain* of the epoch, Q_j.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence

import numpy as np

from schedlab.solvers.options import NoOptions
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.slaq.problem import Allocation, Snapshot
from schedlab.solvers.slaq.quality import JobQuality, QualityBatch, QualityModel, quality_model
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

QFn = Callable[[np.ndarray], np.ndarray]
CHUNK = 16
CONCAVE = frozenset({"exponential", "naive", "geometric", "constant"})
NO_OPTIONS = NoOptions()
_NO_TABLE = np.zeros((0, 0))


class _Lazy:
    """Q of one job at base + 0, 1, 2, ... cores, evaluated in growing vectorized chunks, never
    beyond base + limit (the most a job can receive, plus the next core's gain)."""

    def __init__(self, q: QFn, base: int, limit: int):
        self.q, self.base, self.limit = q, base, limit
        self.vals = np.asarray(q(base + np.arange(min(CHUNK, limit + 1), dtype=float)), float)

    def at(self, extra: int) -> float:
        if extra >= len(self.vals):
            n = len(self.vals)
            more = self.q(
                self.base + np.arange(n, max(extra + 1, min(2 * n, self.limit + 1)), dtype=float)
            )
            self.vals = np.concatenate([self.vals, np.asarray(more, dtype=float)])
        return float(self.vals[extra])


def greedy_extra(qs: Sequence[QFn], base: Sequence[int], free: int) -> list[int]:
    """Extra cores per job: each free core to the largest marginal gain (heap, ties: index).

    When every Q_j is a `JobQuality` (or `qs` is a `QualityBatch`), the heap runs compiled on
    the fits' arrays (`alloc_core.heap_arrays`, the same allocation as `heap_extra`); other
    callables (tables, tests) go through the Python heap `heap_extra`."""
    batch = _batch(qs)
    if batch is None:
        return heap_extra(qs, base, free)
    from schedlab.solvers.slaq.alloc_core import heap_arrays  # compiled: imported on use

    b = np.asarray(base, dtype=np.int64)
    extra = heap_arrays(int(free), _NO_TABLE, *batch.evaluator(), b)  # type: ignore[call-arg]
    return [int(e) for e in extra]


def threshold_greedy(qs: Sequence[QFn], base: Sequence[int], free: int) -> list[int] | None:
    """The heap's allocation by the threshold search (`alloc_core.threshold_extra`) when every
    Q_j is a `JobQuality` of a family whose Q is concave (claim 9: exponential, and the simple
    rules) and its a posteriori check proves it is the heap's (rounding can break concavity by
    an ulp); None otherwise. An alternative to the heap, kept tested (not faster here)."""
    batch = _batch(qs)
    if batch is None or not batch.families() <= CONCAVE:
        return None
    from schedlab.solvers.slaq.alloc_core import threshold_extra  # compiled: imported on use

    b = np.asarray(base, dtype=np.int64)
    extra, ok = threshold_extra(int(free), _NO_TABLE, *batch.evaluator(), b)  # type: ignore[call-arg]
    return [int(e) for e in extra] if ok else None


def _batch(qs: Sequence[QFn]) -> QualityBatch | None:
    """The arrays of `qs` when every entry is a fitted quality, else None."""
    if isinstance(qs, QualityBatch):
        return qs
    if qs and all(isinstance(q, JobQuality) for q in qs):
        return QualityBatch.of(qs)  # type: ignore[arg-type]
    return None


def quality_arrays(qs: Sequence[JobQuality], base: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The compiled evaluator's inputs for jobs `qs` (no table: evaluate the fits)."""
    b = np.asarray(base, dtype=np.int64)
    return (_NO_TABLE, *QualityBatch.of(qs).evaluator(), b)


def heap_extra(qs: Sequence[QFn], base: Sequence[int], free: int) -> list[int]:
    """SLAQ's heap: each free core to the largest marginal gain (ties: the lower index)."""
    lazy = [_Lazy(q, b, free + 1) for q, b in zip(qs, base, strict=True)]
    extra = [0] * len(qs)
    if not qs:
        return extra
    heap = [(-(lz.at(1) - lz.at(0)), j) for j, lz in enumerate(lazy)]
    heapq.heapify(heap)
    for _ in range(free):
        _, j = heapq.heappop(heap)
        extra[j] += 1
        e = extra[j]
        heapq.heappush(heap, (-(lazy[j].at(e + 1) - lazy[j].at(e)), j))
    return extra


def maxmin_extra(qs: Sequence[QFn], base: Sequence[int], free: int) -> list[int]:
    """Extra cores per job: each free core to the job of lowest predicted gain Q_j (the snapshot
    objective `maxmin`, the minimum of Q; the simulator's `maxmin-gain`)."""
    lazy = [_Lazy(q, b, free + 1) for q, b in zip(qs, base, strict=True)]
    extra = [0] * len(qs)
    if not qs:
        return extra
    heap = [(lz.at(0), -(lz.at(1) - lz.at(0)), j) for j, lz in enumerate(lazy)]
    heapq.heapify(heap)
    for _ in range(free):
        _, _, j = heapq.heappop(heap)
        extra[j] += 1
        e = extra[j]
        heapq.heappush(heap, (lazy[j].at(e), -(lazy[j].at(e + 1) - lazy[j].at(e)), j))
    return extra


class QualityLevel:
    """A job's quality level after the epoch on c cores, its predicted normalized loss
    reduction since it started: (L_first - L^(now + c T / W_j)) / (L_first - floor), in [0, 1]
    while the prediction stays between its floor and L_first.

    L^ = L_now - M_j Q_j(c) (the definition of Q_j), so the level is an affine map of Q_j with
    a positive slope; the floor is the prediction's limit L^(inf) (inverse-poly: d, exponential:
    c, the simple rules: 0), capped at the lowest loss observed (a prediction never beats what
    was seen). A job whose loss never fell below L_first has no span: level 0 at any cores."""

    def __init__(self, q: QFn, l_first: float, l_now: float, l_min: float, norm: float):
        self.q = q
        inf = float(np.asarray(q(np.array([HORIZON_CORES])), dtype=float)[0])
        limit = l_now - norm * inf if np.isfinite(inf) else l_now
        floor = min(max(limit, 0.0), l_min)
        span = l_first - floor
        self.scale = norm / span if span > 0 else 0.0
        self.offset = (l_first - l_now) / span if span > 0 else 0.0

    def __call__(self, cores: np.ndarray | float) -> np.ndarray:
        """The level at `cores` (vectorized like Q_j)."""
        c = np.asarray(cores, dtype=float)
        return self.offset + self.scale * np.asarray(self.q(c), dtype=float)


#: Cores at which `QualityLevel` reads the prediction's limit (c T / W_j iterations ahead).
HORIZON_CORES = 1e15


def maxmin_quality_extra(levels: Sequence[QFn], base: Sequence[int], free: int) -> list[int]:
    """Extra cores per job by water-filling on the quality level: each free core to the job of
    lowest level (ties: larger rise, then lower index), skipping jobs that no more cores can
    raise while another job can still rise.

    Maximizes the minimum level over all integer allocations when every level is nondecreasing
    in cores (every fit whose predicted loss does not rise; test_maxmin_quality_is_brute_force):
    a job below the greedy's minimum would need a core that went to a job already at or above
    it. Skipping a job whose level is constant from here on costs no job anything."""
    extra = [0] * len(levels)
    if not levels or free <= 0:
        return extra
    lazy = [_Lazy(q, b, free + 1) for q, b in zip(levels, base, strict=True)]
    most = zip(levels, base, strict=True)
    top = [float(np.asarray(q(np.array([b + free], dtype=float)))[0]) for q, b in most]
    heap = [(lz.at(0), -(lz.at(1) - lz.at(0)), j) for j, lz in enumerate(lazy)]
    stuck = [h for h in heap if not top[h[2]] > h[0]]
    heap = [h for h in heap if top[h[2]] > h[0]]
    heapq.heapify(heap)
    for _ in range(free):
        if not heap:  # no job can rise: the rest to the lowest levels, in order
            heap, stuck = stuck, []
            heapq.heapify(heap)
        _, _, j = heapq.heappop(heap)
        extra[j] += 1
        e = extra[j]
        item = (lazy[j].at(e), -(lazy[j].at(e + 1) - lazy[j].at(e)), j)
        (heapq.heappush(heap, item) if top[j] > item[0] else stuck.append(item))
    return extra


def fair_extra(n_old: int, base: Sequence[int], fair: int, free: int) -> list[int]:
    """Extra cores per old job for fair share: up to floor(C/J), the remainder one each."""
    extra = [max(0, fair - b) for b in base]
    left = free - sum(extra)
    for j in range(n_old):
        if left <= 0:
            break
        extra[j] += 1
        left -= 1
    return extra


def allocation_of(snap: Snapshot, qm: QualityModel, extra_old: Sequence[int]) -> Allocation:
    """The full allocation from the extra cores of the old jobs."""
    cores = list(qm.base)
    for i, e in zip(qm.old, extra_old, strict=True):
        cores[i] += int(e)
    return Allocation(tuple(j.id for j in snap.jobs), tuple(cores), tuple(qm.values(cores)))


def _heuristic(snap: Snapshot, name: str) -> SolveResult[Allocation]:
    t0 = time.perf_counter()
    qm = quality_model(snap)
    qs = [qm.qualities[i] for i in qm.old]
    base = [qm.base[i] for i in qm.old]
    if name == "greedy":
        extra = greedy_extra(qs, base, qm.free)  # type: ignore[arg-type]
    elif name == "maxmin":
        extra = maxmin_extra(qs, base, qm.free)  # type: ignore[arg-type]
    else:
        extra = fair_extra(len(qs), base, snap.fair_share, qm.free)
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    runtime = time.perf_counter() - t0
    return solution_result(alloc, value, name, runtime, exact=False, sense="max")


@register_method(
    "slaq", "greedy", exact=False, options=NoOptions, summary="SLAQ: cores by marginal gain (heap)"
)
def solve_greedy(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions = NO_OPTIONS,
) -> SolveResult[Allocation]:
    """SLAQ's allocator: every free core to the largest marginal quality gain."""
    return _heuristic(snap, "greedy")


@register_method(
    "slaq",
    "maxmin",
    exact=False,
    options=NoOptions,
    summary="water-filling: each free core to the job of lowest quality",
)
def solve_maxmin(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions = NO_OPTIONS,
) -> SolveResult[Allocation]:
    """Max-min heuristic: every free core to the job whose quality is lowest."""
    return _heuristic(snap, "maxmin")


@register_method(
    "slaq", "fair", exact=False, options=NoOptions, summary="fair share floor(C/J) per job"
)
def solve_fair(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions = NO_OPTIONS,
) -> SolveResult[Allocation]:
    """The fair-share baseline: floor(C/J) each, the remainder one core each to old jobs."""
    return _heuristic(snap, "fair")
