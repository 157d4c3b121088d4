"""Exact allocation by CP-SAT: the same model as the MILP on integer-scaled data.

CP-SAT needs integer coefficients. CPUs and memory are scaled by a power of two S (the
products are exact in binary) that puts the server's capacity near 2^40, throughput by a power
of two that keeps CP-SAT's sums below 2^60, and rounded so that the data bracket the truth:

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

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ortools.sat.python import cp_model

from schedlab.solvers.backends import cpsat_solver
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocation import Allocation, capacity_limit, total_tput
from schedlab.solvers.synergy.exact_model import (
    RUN_SET_HELP,
    Counts,
    ExactStructure,
    MultiChoice,
    RunSet,
    build_structure,
    decode,
    model_variables,
    nothing_runs,
    relaxation_bound,
    start_point,
    valid,
)
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import certified_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline, DeadlineExceeded

#: Capacities are scaled to about 2^CAP_BITS: a demand's rounding is below 2^-40 of a capacity,
#: far inside the validator's 1e-9, and a server's row sums stay far below 2^62.
CAP_BITS = 40
#: The scaled objective stays below 2^OBJ_BITS (exact in CP-SAT's doubles, below 2^53; at 2^56
#: CP-SAT reported half the optimum as its bound), and every variable at its upper bound below
#: 2^62 (CP-SAT's overflow check).
OBJ_BITS = 50


def pow2_scale(top: float, bits: int) -> float:
    """The power of two S with top S in [2^(bits - 1), 2^bits) (1 when top is not positive)."""
    if not top > 0:
        return 1.0
    return math.ldexp(1.0, min(bits - math.frexp(top)[1], 1000))  # a subnormal top: 2^1000


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


@dataclass(frozen=True)
class Scales:
    """Scales (powers of two) of CPUs, memory and throughput; `tput_exact`: every throughput
    scales to an integer; `relaxed`: round so that the model relaxes the true one (demands
    down, capacities up), else restricts it (demands up, capacities down)."""

    cpu: float
    mem: float
    tput: float
    tput_exact: bool
    relaxed: bool = True

    def _demand(self, v: float, scale: float) -> int:
        return int(math.floor(v * scale) if self.relaxed else math.ceil(v * scale))

    def _capacity(self, v: float, scale: float) -> int:
        limit = capacity_limit(v) * scale
        return int(math.ceil(limit) if self.relaxed else math.floor(limit))

    def c(self, v: float) -> int:
        """Scaled CPUs of a demand."""
        return self._demand(v, self.cpu)

    def m(self, v: float) -> int:
        """Scaled GB of a demand."""
        return self._demand(v, self.mem)

    def cap_c(self, v: float) -> int:
        """Scaled CPU capacity limit of a server of `v` CPUs."""
        return self._capacity(v, self.cpu)

    def cap_m(self, v: float) -> int:
        """Scaled memory capacity limit of a server of `v` GB."""
        return self._capacity(v, self.mem)

    def t(self, v: float) -> int:
        """Scaled throughput, rounded up (exact when `tput_exact`): the bound stays an upper
        bound; the value is recomputed in true units anyway."""
        return int(math.ceil(v * self.tput))


def scales_of(st: ExactStructure, relaxed: bool = True) -> Scales:
    """The scales of the structure's data (any finite data: no decimals required)."""
    cl = st.snap.cluster
    all_cfgs = [q for k in st.configs for q in st.configs[k]]
    top_t = max((q[2] for q in all_cfgs), default=0.0)
    ub = max((j.gpus for j in st.snap.jobs), default=1) * cl.gpus_per_server
    gpus = sum(st.snap.jobs[j].gpus for j in st.scope)
    ts = min(
        pow2_scale(top_t * gpus, OBJ_BITS),
        pow2_scale(top_t * ub * max(1, model_variables(st)), 62),
    )
    exact = all(float(q[2] * ts).is_integer() for q in all_cfgs)
    cs = pow2_scale(capacity_limit(cl.cpus_per_server), CAP_BITS)
    ms = pow2_scale(capacity_limit(cl.mem_gb_per_server), CAP_BITS)
    return Scales(cs, ms, ts, exact, relaxed)


@dataclass
class CpsatModel:
    """The CP-SAT model and its variables: w[type, config, server] counts of single-GPU jobs,
    y[job, config] choices and z[job, config, server] GPUs of multi-GPU jobs."""

    md: cp_model.CpModel
    w: dict[tuple[int, int, int], Any]
    y: dict[tuple[int, int], Any]
    z: dict[tuple[int, int, int], Any]
    obj: list[Any]


def _variables(st: ExactStructure, deadline: Deadline) -> CpsatModel:
    md = cp_model.CpModel()
    S, G = st.snap.cluster.servers, st.snap.cluster.gpus_per_server
    w: dict[tuple[int, int, int], Any] = {}
    for ti, (k, pos) in enumerate(st.types):
        for qi in range(len(st.configs[k])):
            deadline.check()  # building can outlast the time limit on large clusters
            for s in range(S):
                w[ti, qi, s] = md.new_int_var(0, min(len(pos), G), f"w_{ti}_{qi}_{s}")
    y: dict[tuple[int, int], Any] = {}
    z: dict[tuple[int, int, int], Any] = {}
    for j in st.multi:
        g = st.snap.jobs[j].gpus
        for qi in range(len(st.configs[st.models[j]])):
            deadline.check()
            y[j, qi] = md.new_bool_var(f"y_{j}_{qi}")
            for s in range(S):
                z[j, qi, s] = md.new_int_var(0, min(g, G), f"z_{j}_{qi}_{s}")
    return CpsatModel(md, w, y, z, [])


def _run_constraints(st: ExactStructure, cm: CpsatModel, sc: Scales, deadline: Deadline) -> None:
    """Which jobs run (all of the run set, or at most all), each whole; the objective terms."""
    md, w, y, z = cm.md, cm.w, cm.y, cm.z
    S, G = st.snap.cluster.servers, st.snap.cluster.gpus_per_server
    for ti, (k, pos) in enumerate(st.types):
        cfgs = st.configs[k]
        deadline.check()
        n_run = sum(w[ti, qi, s] for qi in range(len(cfgs)) for s in range(S))
        md.add(n_run == len(pos)) if st.must_run else md.add(n_run <= len(pos))
        cm.obj += [sc.t(cfgs[qi][2]) * w[ti, qi, s] for qi in range(len(cfgs)) for s in range(S)]
    for j in st.multi:
        g = st.snap.jobs[j].gpus
        cfgs = st.configs[st.models[j]]
        pick = sum(y[j, qi] for qi in range(len(cfgs)))
        md.add(pick == 1) if st.must_run else md.add(pick <= 1)
        for qi in range(len(cfgs)):
            md.add(sum(z[j, qi, s] for s in range(S)) == g * y[j, qi])
            for s in range(S):
                md.add(z[j, qi, s] <= min(g, G) * y[j, qi])
            cm.obj.append(g * sc.t(cfgs[qi][2]) * y[j, qi])


def _capacity_constraints(
    st: ExactStructure, cm: CpsatModel, sc: Scales, deadline: Deadline
) -> None:
    """Per-server GPU, CPU and memory capacity; GPU use non-increasing in the server index."""
    cl = st.snap.cluster
    S, G = cl.servers, cl.gpus_per_server
    gpu_use = []
    for s in range(S):
        deadline.check()
        g_terms, c_terms, m_terms = [], [], []
        for ti, (k, _pos) in enumerate(st.types):
            for qi, (c, m, _t) in enumerate(st.configs[k]):
                g_terms.append(cm.w[ti, qi, s])
                c_terms.append(sc.c(c) * cm.w[ti, qi, s])
                m_terms.append(sc.m(m) * cm.w[ti, qi, s])
        for j in st.multi:
            for qi, (c, m, _t) in enumerate(st.configs[st.models[j]]):
                g_terms.append(cm.z[j, qi, s])
                c_terms.append(sc.c(c) * cm.z[j, qi, s])
                m_terms.append(sc.m(m) * cm.z[j, qi, s])
        used = sum(g_terms)
        gpu_use.append(used)
        cm.md.add(used <= G)
        cm.md.add(sum(c_terms) <= sc.cap_c(cl.cpus_per_server))
        cm.md.add(sum(m_terms) <= sc.cap_m(cl.mem_gb_per_server))
    for s in range(S - 1):
        cm.md.add(gpu_use[s] >= gpu_use[s + 1])


def build_cpsat(
    st: ExactStructure, sc: Scales, rel: float | None, deadline: Deadline = NO_DEADLINE
) -> CpsatModel:
    """The whole model, maximizing scaled throughput; `rel` (a proven upper bound) caps it.
    DeadlineExceeded once `deadline` passes."""
    cm = _variables(st, deadline)
    _run_constraints(st, cm, sc, deadline)
    _capacity_constraints(st, cm, sc, deadline)
    # every valid allocation scores at most rel, so at most rel S + its GPUs (rounding up each
    # throughput adds less than 1 per GPU-weighted term): the cut keeps the true optimum
    if rel is not None:
        gpus = sum(st.snap.jobs[j].gpus for j in st.scope)
        cm.md.add(sum(cm.obj) <= int(math.ceil(rel * sc.tput)) + gpus)
    cm.md.maximize(sum(cm.obj))
    return cm


def _add_hint(cm: CpsatModel, counts: Counts, multi: MultiChoice) -> None:
    """Hint CP-SAT with a model point (see `start_point`)."""
    for (ti, qi, s), v in cm.w.items():
        cm.md.add_hint(v, counts.get((ti, qi, s), 0))
    for (j, qi), v in cm.y.items():
        cm.md.add_hint(v, int(j in multi and multi[j][0] == qi))
    for (j, qi, s), v in cm.z.items():
        cm.md.add_hint(v, multi[j][1].get(s, 0) if j in multi and multi[j][0] == qi else 0)


#: Above this many variables, a time-limited solve skips CP-SAT's symmetry detection: its graph
#: refinement does not watch the wall clock (0.9 s at 19,800 variables, 7.6 s at 66,000, where a
#: 3 s limit ran 8 s); the model breaks the server symmetry itself.
SYMMETRY_MAX_VARS = 20_000


def _solver(
    o: CpsatOptions, deadline: Deadline, seed: int | None, n_vars: int = 0
) -> cp_model.CpSolver:
    """CP-SAT with the options, the time left before `deadline` and the seed."""
    solver = cpsat_solver(
        num_workers=o.num_workers,
        seed=seed,
        deadline=deadline,
        max_deterministic_time=o.max_deterministic_time,
    )
    if deadline.at is not None and n_vars > SYMMETRY_MAX_VARS:
        solver.parameters.symmetry_level = 0
    return solver


def _decode_cpsat(st: ExactStructure, cm: CpsatModel, solver: cp_model.CpSolver) -> Allocation:
    counts = {key: int(solver.value(v)) for key, v in cm.w.items()}
    multi: dict[int, tuple[int, dict[int, int]]] = {}
    for (j, qi), v in cm.y.items():
        if solver.value(v):
            parts = {s: int(solver.value(cm.z[j, qi, s])) for s in range(st.snap.cluster.servers)}
            multi[j] = (qi, {s: n for s, n in parts.items() if n > 0})
    return decode(st, counts, multi)


def cpsat_bound(code: Any, value: float, best_bound: float, sc: Scales, rel: float | None) -> float:
    """A proven upper bound in true units: the value itself when CP-SAT proved the relaxed
    model optimal on exactly scaled throughputs (call it so only for a valid allocation), else
    CP-SAT's bound / scale, capped by the relaxation `rel`."""
    if code == cp_model.OPTIMAL and sc.tput_exact:
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
    rel = relaxation_bound(st) if o.relaxation_cut else None
    stats["relaxation_bound"] = rel
    start = start_point(st, deadline) if o.hint else None
    hint = None if start is None else decode(st, *start)
    if hint is not None:
        stats["hint_value"] = total_tput(snap, hint)
    try:
        cm = build_cpsat(st, sc, rel, deadline)
    except DeadlineExceeded:  # the limit passed while building: the hint, unproven
        stats["stopped_while_building"] = True
        return _incumbent_result(st, hint, rel, t0, stats)
    if start is not None:
        _add_hint(cm, *start)
    solver = _solver(o, deadline, seed, len(cm.w) + len(cm.y) + len(cm.z))
    code = solver.solve(cm.md)
    stats.update(
        cpsat_status=solver.status_name(code),
        branches=solver.num_branches,
        conflicts=solver.num_conflicts,
        wall_time_s=solver.wall_time,
    )
    if code == cp_model.INFEASIBLE:
        runtime = time.perf_counter() - t0
        return SolveResult(Status.INFEASIBLE, None, None, None, "cpsat", runtime, stats)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return _incumbent_result(st, hint, rel, t0, stats)
    found: Allocation | None = _decode_cpsat(st, cm, solver)
    assert found is not None
    if valid(st, found):
        bound = cpsat_bound(code, total_tput(snap, found), solver.best_objective_bound, sc, rel)
    else:  # the relaxed rounding let it past a capacity by less than 2^-40 of it
        stats["relaxed_solution_invalid"] = True
        bound = cpsat_bound(cp_model.FEASIBLE, 0.0, solver.best_objective_bound, sc, rel)
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
        cm = build_cpsat(st, replace(sc, relaxed=False), rel, deadline)
    except DeadlineExceeded:
        return None
    if start is not None:
        _add_hint(cm, *start)
    solver = _solver(o, deadline, seed, len(cm.w) + len(cm.y) + len(cm.z))
    code = solver.solve(cm.md)
    stats["restricted_status"] = solver.status_name(code)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    alloc = _decode_cpsat(st, cm, solver)
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
        return SolveResult(Status.TIMEOUT, None, bound, None, "cpsat", runtime, stats)
    return certified_result(st.snap, hint, "cpsat", runtime, bound, stats=stats)
