"""Exact allocation by enumeration (every way to share the free cores) and by dynamic programming.

Enumeration is the independent oracle of the tests (small cases only: C(R + n - 1, n - 1)
allocations for R free cores and n old jobs, n steps each within the enumeration oracles' one
work cap, `kit.enum`); its proof is exhaustion: value = bound. The DP
over jobs (best value with r free cores among the first i jobs, O(n R^2)) is exact for both
objectives and any Q (no concavity needed): the claim checks use it on larger cases.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.enum import refuse_above
from schedlab.solvers.options import NoOptions, shared
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.slaq.heuristics import allocation_of
from schedlab.solvers.slaq.problem import Allocation, Snapshot
from schedlab.solvers.slaq.quality import quality_model
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


@dataclass(frozen=True)
class EnumOptions:
    max_work: int = shared("max_work")


def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of `parts` non-negative integers summing to `total` (stars and bars)."""
    if parts == 0:
        if total == 0:
            yield ()
        return
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        prev, out = -1, []
        for b in bars:
            out.append(b - prev - 1)
            prev = b
        out.append(total + parts - 1 - prev - 1)
        yield tuple(out)


def best_by_enumeration(
    tables: Sequence[np.ndarray], free: int, objective: str, deadline: Deadline = NO_DEADLINE
) -> tuple[float, tuple[int, ...]]:
    """(optimum, extra cores per job) over every composition of `free` (ties: first found)."""
    best, arg = -math.inf, tuple(0 for _ in tables)
    for i, comp in enumerate(compositions(free, len(tables))):
        if i % 65536 == 0:
            deadline.check()
        vals = [float(t[k]) for t, k in zip(tables, comp, strict=True)]
        v = (sum(vals) if objective == "sum" else min(vals)) if vals else 0.0
        if v > best:
            best, arg = v, comp
    return best, arg


def allocation_count(free: int, n: int, cap: int) -> int:
    """C(free + n - 1, n - 1), the allocations of `free` cores to `n` jobs; any value above
    `cap` when the log-count says so (math.comb of 10^7-sized arguments would take minutes)."""
    if n <= 1:
        return 1
    log = math.lgamma(free + n) - math.lgamma(n) - math.lgamma(free + 1)
    if log > math.log(cap) + 1.0:
        return 10**30 if log > 69 else int(math.exp(log))
    return math.comb(free + n - 1, n - 1)


@register_method(
    "slaq",
    "enum",
    exact=True,
    options=EnumOptions,
    tags=("oracle",),
    summary="exact by enumerating every allocation (small cases)",
)
def solve_enum(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: EnumOptions = EnumOptions(),
) -> SolveResult[Allocation | None]:
    """Exact optimum of either objective by exhaustion."""
    t0 = time.perf_counter()
    qm = quality_model(snap)
    n = len(qm.old)
    count = allocation_count(qm.free, n, options.max_work)
    refuse_above(float(count) * max(n, 1), options.max_work,
                 f"method slaq/enum: {count:,} allocations of {n} jobs ({qm.free} free cores)"
                 if count < 10**30 else f"method slaq/enum: {n} jobs, {qm.free} free cores",
                 "milp, cpsat or dp")  # fmt: skip
    qm.check_size(0, "enum")
    best, extra = best_by_enumeration(qm.tables(), qm.free, snap.objective, deadline)
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    return solution_result(alloc, value, "enum", time.perf_counter() - t0, exact=True,
                           sense="max", bound=best, stats={"allocations": count})  # fmt: skip


def best_by_dp(
    tables: Sequence[np.ndarray], free: int, objective: str, deadline: Deadline = NO_DEADLINE
) -> tuple[float, tuple[int, ...]]:
    """(optimum, extra cores per job) by DP over jobs; every free core must be given."""
    n = len(tables)
    if n == 0:
        return 0.0, ()
    comb = np.add if objective == "sum" else np.minimum
    best = np.asarray(tables[0][: free + 1], dtype=float).copy()
    choice = [np.arange(free + 1)]
    for t in tables[1:]:
        deadline.check()
        new = np.full(free + 1, -np.inf)
        arg = np.zeros(free + 1, dtype=int)
        for k in range(free + 1):  # job i takes k of r
            if k % 1024 == 1023:
                deadline.check()
            cand = np.full(free + 1, -np.inf)
            cand[k:] = comb(best[: free + 1 - k], float(t[k]))
            better = cand > new
            new[better], arg[better] = cand[better], k
        best = new
        choice.append(arg)
    extra, r = [0] * n, free
    for i in range(n - 1, -1, -1):
        k = int(choice[i][r])
        extra[i], r = k, r - k
    return float(best[free]), tuple(extra)


@register_method(
    "slaq",
    "dp",
    exact=True,
    tags=("oracle",),
    summary="exact dynamic program over jobs, O(n R^2), both objectives",
)
def solve_dp(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions = NoOptions(),  # noqa: B008 - frozen, stateless
) -> SolveResult[Allocation]:
    """Exact optimum of either objective by dynamic programming over jobs."""
    t0 = time.perf_counter()
    qm = quality_model(snap)
    qm.check_size(24, "dp")  # the choice table (8 B) and the working rows
    work = float(len(qm.old)) * (qm.free + 1) ** 2
    if work > 1e12:
        raise InvalidInput(
            f"method slaq/dp: {len(qm.old):,} jobs x {qm.free + 1:,}^2 core counts is "
            f"{work:.3g} steps, above 10^12; use greedy, milp or cpsat"
        )
    best, extra = best_by_dp(qm.tables(), qm.free, snap.objective, deadline)
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    return solution_result(alloc, value, "dp", time.perf_counter() - t0, exact=True,
                           sense="max", bound=best)  # fmt: skip
