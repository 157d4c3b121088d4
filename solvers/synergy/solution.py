"""Turning a round's allocation into a SolveResult (its solution the annotated `Allocation`,
whose `to_dict()` is the JSON solution) with honest stats, by the one rule
(`result.solution_result`): the value recomputed from the allocation in true units."""

from __future__ import annotations

from typing import Any

from schedlab.solvers.result import SolveResult, Status, solution_result
from schedlab.solvers.synergy.allocation import (
    Allocation,
    check_allocation,
    proportional_tput,
    total_tput,
)
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.profiles import TPUT_TOL


def allocation_stats(snap: Snapshot, alloc: Allocation) -> dict[str, Any]:
    """How the allocation relates to the proportional set (the exact methods' constraints)."""
    pset = snap.proportional_set()
    by_id = alloc.by_id()
    models = snap.model_indices()
    below = 0
    for i, j in enumerate(snap.jobs):
        a = by_id.get(j.id)
        if a is not None:
            t = snap.profiles.tput(models[i], a.cpus_per_gpu, a.mem_gb_per_gpu)
            below += t < proportional_tput(snap, models[i]) - TPUT_TOL
    missing = sum(1 for i in pset if snap.jobs[i].id not in by_id)
    return {
        "jobs": snap.n,
        "jobs_run": len(alloc.jobs),
        "proportional_set": len(pset),
        "proportional_set_missing": missing,
        "below_proportional": int(below),
        "in_exact_feasible_set": missing == 0 and below == 0,
    }


def make_result(
    snap: Snapshot,
    alloc: Allocation,
    method: str,
    runtime_s: float,
    *,
    status: Status = Status.FEASIBLE,
    bound: float | None = None,
    stats: dict[str, Any] | None = None,
    check: bool = True,
) -> SolveResult[Allocation | None]:
    """SolveResult whose value is the total throughput of `alloc` (checked against capacity);
    its solution is `alloc` annotated for `snap` (see `Allocation.annotated`)."""
    if check:
        problems = check_allocation(snap, alloc)
        if problems:  # an allocator bug, never bad input
            raise RuntimeError(f"{method}: produced an invalid allocation: {problems[:5]}")
    st = allocation_stats(snap, alloc)
    st.update(stats or {})
    value = total_tput(snap, alloc)
    solution: Allocation | None = alloc.annotated(snap)
    if status is Status.FEASIBLE and bound is None:  # a heuristic's allocation
        return solution_result(solution, value, method, runtime_s, exact=False, sense="max",
                               stats=st)  # fmt: skip
    return SolveResult(status, value, bound, solution, method, runtime_s, st)


def certified_result(
    snap: Snapshot,
    alloc: Allocation,
    method: str,
    runtime_s: float,
    bound: float | None,
    *,
    stats: dict[str, Any] | None = None,
) -> SolveResult[Allocation | None]:
    """An exact method's result: status from `certify(value, bound, "max")` (the one proof
    tolerance, `PROOF_TOL`) with the value recomputed from `alloc` in true units (a bound a
    hair below it is clamped)."""
    res = make_result(snap, alloc, method, runtime_s, stats=stats)
    return solution_result(res.solution, res.value, method, runtime_s, exact=True, sense="max",
                           bound=bound, stats=res.stats)  # fmt: skip
