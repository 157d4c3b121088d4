"""Exact allocation by CP-SAT: the same model as the MILP on integer-scaled data.

CP-SAT needs integer coefficients: CPUs, memory and throughput are multiplied by the smallest
power of ten (up to 10^6) that makes every value an integer (20.83 GB -> x100). Resources must
scale exactly (else the model would not be the true one, and InvalidInput says so); a
throughput that does not scale exactly is rounded up, which keeps the reported bound an upper
bound but then only a solution reaching that bound is called optimal. The reported value is
always recomputed from the decoded allocation in true units; the bound is CP-SAT's
`best_objective_bound` divided by the scale. A hint from rounded Synergy-OPT (TUNE under a
time limit: it is seconds faster on large clusters) speeds up the search and is the incumbent
returned when CP-SAT finds nothing better in time or the limit passes while building.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocation import Allocation, total_tput
from schedlab.solvers.synergy.exact_model import (
    RUN_SET_HELP,
    Counts,
    ExactStructure,
    MultiChoice,
    RunSet,
    build_structure,
    decode,
    relaxation_bound,
    start_point,
)
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import certified_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline, DeadlineExceeded, solver_seed

SCALES = (1, 10, 100, 1000, 10_000, 100_000, 1_000_000)


def integer_scale(values: Iterable[float]) -> tuple[int, bool]:
    """Smallest power of ten making every value integral (within 1e-9); (scale, exact)."""
    vals = list(values)
    for sc in SCALES:
        if all(abs(v * sc - round(v * sc)) <= 1e-9 * max(1.0, abs(v * sc)) for v in vals):
            return sc, True
    return SCALES[-1], False


@dataclass(frozen=True)
class CpsatOptions:
    """Options of the exact CP-SAT model."""

    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    num_workers: int = field(default=1, metadata={"help": "CP-SAT workers"})
    max_deterministic_time: float | None = field(
        default=None, metadata={"help": "CP-SAT deterministic time limit (reproducible)"}
    )
    hint: bool = field(
        default=True,
        metadata={"help": "start from OPT, or TUNE under a time limit (kept if nothing better)"},
    )
    relaxation_cut: bool = field(
        default=True, metadata={"help": "cap the objective by the cluster-totals relaxation"}
    )


@dataclass(frozen=True)
class Scales:
    """Integer scales of CPUs, memory and throughput; `tput_exact`: no rounding was needed."""

    cpu: int
    mem: int
    tput: int
    tput_exact: bool

    def c(self, v: float) -> int:
        return int(round(v * self.cpu))

    def m(self, v: float) -> int:
        return int(round(v * self.mem))

    def t(self, v: float) -> int:
        """Scaled throughput, rounded up when inexact (the bound stays an upper bound)."""
        return (
            int(round(v * self.tput)) if self.tput_exact else int(math.ceil(v * self.tput - 1e-9))
        )


def scales_of(st: ExactStructure) -> Scales:
    """The scales of the structure's data; InvalidInput when resources do not scale exactly."""
    cl = st.snap.cluster
    all_cfgs = [q for k in st.configs for q in st.configs[k]]
    cs, c_exact = integer_scale([cl.cpus_per_server] + [q[0] for q in all_cfgs])
    ms, m_exact = integer_scale([cl.mem_gb_per_server] + [q[1] for q in all_cfgs])
    ts, t_exact = integer_scale([q[2] for q in all_cfgs])
    if not (c_exact and m_exact):
        raise InvalidInput(
            "cpsat: CPU or memory values are not exact decimals with at most 6 places; "
            "use method milp"
        )
    return Scales(cs, ms, ts, t_exact)


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
        cm.md.add(sum(c_terms) <= sc.c(cl.cpus_per_server))
        cm.md.add(sum(m_terms) <= sc.m(cl.mem_gb_per_server))
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
    # rel is a sum of scaled integers / scale: rounding recovers it exactly (exact scaling);
    # with rounded-up throughputs the scaled optimum can only be larger, so no cut.
    if rel is not None and sc.tput_exact:
        cm.md.add(sum(cm.obj) <= int(round(rel * sc.tput)))
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
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = o.num_workers
    left = deadline.remaining(floor=0.01)  # CP-SAT's one conversion
    if left is not None:
        solver.parameters.max_time_in_seconds = left
        if n_vars > SYMMETRY_MAX_VARS:
            solver.parameters.symmetry_level = 0
    if o.max_deterministic_time is not None:
        solver.parameters.max_deterministic_time = float(o.max_deterministic_time)
    if seed is not None:
        solver.parameters.random_seed = solver_seed(seed)
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
    """A proven upper bound in true units: the value itself when CP-SAT proved optimality on
    exactly scaled data, else CP-SAT's bound / scale, capped by the relaxation `rel`."""
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
    if not st.scope:
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
    alloc = _decode_cpsat(st, cm, solver)
    bound = cpsat_bound(code, total_tput(snap, alloc), solver.best_objective_bound, sc, rel)
    if code == cp_model.FEASIBLE and hint is not None:
        if total_tput(snap, hint) > total_tput(snap, alloc):  # CP-SAT may drop a hint
            alloc = hint
    runtime = time.perf_counter() - t0
    return certified_result(snap, alloc, "cpsat", runtime, bound, stats=stats)


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
