"""Exact allocation by CP-SAT: the model of the MILP (`exact_model.build_model`) in integers.

CP-SAT needs integer coefficients. CPUs and memory are scaled by a power of two S (the
products are exact in binary) that puts the server's capacity near 2^40, throughput by a power
of two that keeps CP-SAT's sums below 2^60, and rounded so that the data bracket the truth
(`exact_model.Scales`):

- the *relaxed* model (solved first) rounds demands down, the capacity limit (the validator's,
  `allocation.capacity_limit`) up and throughput up: every allocation the validator accepts is
  feasible in it and scores no less, so CP-SAT's bound / scale is a proven upper bound on the
  real optimum;
- when its allocation does not pass the validator (possible only within 2^-40 of a capacity),
  the *restricted* model (demands up, capacity down: every allocation it finds is valid) is
  solved for a valid allocation, and the relaxed model's bound stays.

The reported value is always recomputed from the decoded allocation in true units, and
`certify` decides: optimal only when that value meets the bound. (Data need not be decimals:
an earlier version scaled by powers of ten and refused CPUs such as 24/7 per GPU.) A hint from
rounded Synergy-OPT (TUNE under a time limit: it is seconds faster on large clusters) speeds up
the search and is the incumbent returned when CP-SAT finds nothing better in time or the limit
passes while building.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from schedlab.solvers.kit.cpsat import solve_cp
from schedlab.solvers.kit.mip import MipOutcome
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocation import Allocation, total_tput
from schedlab.solvers.synergy.exact_model import (
    RUN_SET_HELP,
    Counts,
    ExactStructure,
    ModelColumns,
    MultiChoice,
    RunSet,
    Scales,
    bound_and_start,
    build_model,
    build_structure,
    decode,
    decode_columns,
    nothing_runs,
    relaxation_bound,
    scales_of,
    start_vector,
    valid,
)
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import certified_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline, DeadlineExceeded


@dataclass(frozen=True)
class CpsatOptions:
    """Options of the exact CP-SAT model."""

    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    num_workers: int = shared("num_workers")
    max_deterministic_time: float | None = shared("max_deterministic_time")
    hint: bool = shared("hint")  # OPT, or TUNE under a time limit (`start_point`)
    relaxation_cut: bool = field(
        default=True, metadata={"help": "cap the objective by the cluster-totals relaxation"}
    )


def build_cpsat(
    st: ExactStructure, sc: Scales, rel: float | None, deadline: Deadline = NO_DEADLINE
) -> ModelColumns:
    """The model in CP-SAT's integers `sc`; `rel` (a proven upper bound) caps it.
    DeadlineExceeded once `deadline` passes."""
    return build_model(st, sc, cut=rel, deadline=deadline)


#: Above this many variables, a time-limited solve skips CP-SAT's symmetry detection: its graph
#: refinement does not watch the wall clock (0.9 s at 19,800 variables, 7.6 s at 66,000, where a
#: 3 s limit ran 8 s); the model breaks the server symmetry itself.
SYMMETRY_MAX_VARS = 20_000


def cpsat_params(deadline: Deadline, n_vars: int) -> dict[str, Any]:
    """CP-SAT parameters beyond the shared options: no symmetry detection on large
    time-limited models (SYMMETRY_MAX_VARS)."""
    return {"symmetry_level": 0} if deadline.at is not None and n_vars > SYMMETRY_MAX_VARS else {}


def _solve(
    mc: ModelColumns,
    o: CpsatOptions,
    deadline: Deadline,
    seed: int | None,
    start: tuple[Counts, MultiChoice] | None,
) -> MipOutcome:
    """CP-SAT on the model, hinted with the start."""
    return solve_cp(
        mc.model,
        num_workers=o.num_workers,
        seed=seed,
        deadline=deadline,
        max_deterministic_time=o.max_deterministic_time,
        hint=None if start is None else start_vector(mc, *start),
        params=cpsat_params(deadline, mc.model.n_cols),
    )


def cpsat_bound(
    proven: bool, value: float, best_bound: float, sc: Scales, rel: float | None
) -> float:
    """A proven upper bound in true units: the value itself when CP-SAT proved the relaxed
    model optimal on exactly scaled throughputs (call it so only for a valid allocation), else
    CP-SAT's bound / scale, capped by the relaxation `rel`."""
    if proven and sc.tput_exact:
        return value
    bound = float(best_bound) / sc.tput
    return rel if rel is not None and rel < bound else bound


@register_method(
    "synergy",
    "cpsat",
    exact=True,
    options=CpsatOptions,
    summary="exact CP-SAT (integer-scaled): configurations + placement",
)
def solve_cpsat(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: CpsatOptions,
) -> SolveResult[Allocation | None]:
    """Exact optimum of the round by CP-SAT (status, true value, sound bound).

    With `relaxation_cut`, the proven optimum over cluster-wide totals caps the objective."""
    o = options
    t0 = time.perf_counter()
    st = build_structure(snap, o.run_set)
    sc = scales_of(st)
    stats: dict[str, Any] = {
        "run_set": o.run_set,
        "scale_cpu": sc.cpu,
        "scale_mem": sc.mem,
        "scale_tput": sc.tput,
        "tput_scaling_exact": sc.tput_exact,
    }
    if nothing_runs(st):  # the empty allocation is the only one: optimal
        return certified_result(
            snap, decode(st, {}, {}), "cpsat", time.perf_counter() - t0, 0.0, stats=stats
        )
    rel, start = bound_and_start(st, o.relaxation_cut, o.hint, deadline, stats)
    hint = None if start is None else decode(st, *start)
    try:
        mc = build_cpsat(st, sc, rel, deadline)
    except DeadlineExceeded:  # the limit passed while building: the hint, unproven
        stats["stopped_while_building"] = True
        return _incumbent_result(st, hint, rel, t0, stats)
    out = _solve(mc, o, deadline, seed, start)
    stats.update(out.stats)
    if out.infeasible:
        runtime = time.perf_counter() - t0
        return solution_result(None, None, "cpsat", runtime, exact=True, sense="max",
                               infeasible=True, stats=stats)  # fmt: skip
    if out.x is None or out.bound is None:
        return _incumbent_result(st, hint, rel, t0, stats)
    found: Allocation | None = decode_columns(st, mc, out.x)
    assert found is not None
    if valid(st, found):
        bound = cpsat_bound(out.proven, total_tput(snap, found), out.bound, sc, rel)
    else:  # the relaxed rounding let it past a capacity by less than 2^-40 of it
        stats["relaxed_solution_invalid"] = True
        bound = cpsat_bound(False, 0.0, out.bound, sc, rel)
        found = _restricted(st, sc, rel, start, o, deadline, seed, stats)
    cands = [a for a in (found, hint) if a is not None]  # CP-SAT may drop a hint
    if not cands:
        return _incumbent_result(st, None, bound, t0, stats)
    alloc = max(cands, key=lambda a: total_tput(snap, a))
    runtime = time.perf_counter() - t0
    return certified_result(snap, alloc, "cpsat", runtime, bound, stats=stats)


def _restricted(
    st: ExactStructure,
    sc: Scales,
    rel: float | None,
    start: tuple[Counts, MultiChoice] | None,
    o: CpsatOptions,
    deadline: Deadline,
    seed: int | None,
    stats: dict[str, Any],
) -> Allocation | None:
    """A valid allocation from the restricted model (demands rounded up, capacities down), or
    None when it finds none in time."""
    if deadline.passed():
        return None
    try:
        mc = build_cpsat(st, replace(sc, relaxed=False), rel, deadline)
    except DeadlineExceeded:
        return None
    out = _solve(mc, o, deadline, seed, start)
    stats["restricted_status"] = out.stats["cpsat_status"]
    if out.x is None:
        return None
    alloc = decode_columns(st, mc, out.x)
    return alloc if valid(st, alloc) else None


def _incumbent_result(
    st: ExactStructure,
    hint: Allocation | None,
    rel: float | None,
    t0: float,
    stats: dict[str, Any],
) -> SolveResult[Allocation | None]:
    """No CP-SAT solution in time: the hint (in the model's set) with the relaxation bound, or
    status timeout with the bound alone."""
    bound = rel if rel is not None else relaxation_bound(st)
    runtime = time.perf_counter() - t0
    if hint is None:
        return solution_result(None, None, "cpsat", runtime, exact=True, sense="max",
                               bound=bound, stats=stats)  # fmt: skip
    return certified_result(st.snap, hint, "cpsat", runtime, bound, stats=stats)
