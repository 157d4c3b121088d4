"""Turning a round's allocation into a SolveResult with a JSON solution and honest stats."""

from __future__ import annotations

from typing import Any

from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.synergy.allocation import (
    Allocation,
    check_allocation,
    proportional_tput,
    total_tput,
)
from schedlab.solvers.synergy.model import Snapshot
from schedlab.solvers.synergy.profiles import TPUT_TOL


def solution_dict(snap: Snapshot, alloc: Allocation) -> dict[str, Any]:
    """JSON solution: running jobs with parts, per-GPU configuration and throughput, and the
    ids of the jobs that do not run (loadable again with `Allocation.from_dict`)."""
    pos = {j.id: i for i, j in enumerate(snap.jobs)}
    models = snap.model_indices()
    jobs = []
    for a in sorted(alloc.jobs, key=lambda a: pos.get(a.job_id, -1)):
        d = a.to_dict()
        k = models[pos[a.job_id]]
        d["cpus_per_gpu"] = a.cpus_per_gpu
        d["mem_gb_per_gpu"] = a.mem_gb_per_gpu
        d["tput_per_gpu"] = snap.profiles.tput(k, a.cpus_per_gpu, a.mem_gb_per_gpu)
        jobs.append(d)
    running = {a.job_id for a in alloc.jobs}
    return {"jobs": jobs, "not_run": [j.id for j in snap.jobs if j.id not in running]}


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
) -> SolveResult:
    """SolveResult whose value is the total throughput of `alloc` (checked against capacity)."""
    if check:
        problems = check_allocation(snap, alloc)
        if problems:  # an allocator bug, never bad input
            raise RuntimeError(f"{method}: produced an invalid allocation: {problems[:5]}")
    st = allocation_stats(snap, alloc)
    st.update(stats or {})
    return SolveResult(
        status, total_tput(snap, alloc), bound, solution_dict(snap, alloc), method, runtime_s, st
    )
