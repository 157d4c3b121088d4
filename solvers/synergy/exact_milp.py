"""Exact allocation by one MILP (PuLP with HiGHS or CBC): configurations and placement together.

Variables (see exact_common for the run-set rules and the aggregation): w[t,q,s] = number of
single-GPU jobs of type t at configuration q on server s (integer); for a multi-GPU job j,
y[j,q] = 1 if it uses configuration q and z[j,q,s] = its GPUs on server s at q (integer,
z <= min(gpus, gpus_per_server) y, sum_s z[j,q,s] = gpus_j y[j,q]). Per server: GPUs, CPUs
(c_q per GPU) and memory (m_q per GPU) within capacity. Objective: max sum t_q (w + gpus y).
PuLP reports "Optimal" after a time limit too, so the status comes from `sol_status`
(1 proven optimal, 2 feasible); the bound comes from HiGHS's MIP dual bound, or, for CBC or
when missing, from the relaxation over cluster-wide totals (always a valid upper bound).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

import pulp

from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocation import Allocation, total_tput
from schedlab.solvers.synergy.exact_common import (
    EXACT_TOL,
    RUN_SET_HELP,
    ExactStructure,
    RunSet,
    build_structure,
    decode,
    relaxation_bound,
)
from schedlab.solvers.synergy.model import Snapshot
from schedlab.solvers.synergy.solution import certified_result
from schedlab.solvers.validate import check_deadline, time_left

SOLVERS = ("highs", "cbc")


@dataclass(frozen=True)
class MilpOptions:
    """Options of the exact MILP."""

    solver: Literal["highs", "cbc"] = field(
        default="highs", metadata={"help": "MILP back end (PuLP)"}
    )
    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    threads: int = field(default=1, metadata={"help": "solver threads"})
    relaxation_cut: bool = field(
        default=True, metadata={"help": "cap the objective by the cluster-totals relaxation"}
    )


def build_milp(
    snap: Snapshot, run_set: str = "proportional", *, cut: float | None = None
) -> tuple[pulp.LpProblem, Any, Any]:
    """The PuLP model and its variables: (problem, w-variables, (y, z)-variables); `cut`, when
    given, is a proven upper bound added as a constraint on the objective."""
    st = build_structure(snap, run_set)
    cl = snap.cluster
    S, G = cl.servers, cl.gpus_per_server
    prob = pulp.LpProblem("synergy_exact", pulp.LpMaximize)
    w: dict[tuple[int, int, int], pulp.LpVariable] = {}
    for ti, (k, pos) in enumerate(st.types):
        for qi in range(len(st.configs[k])):
            check_deadline()  # building can outlast the time limit on large clusters
            for s in range(S):
                w[ti, qi, s] = pulp.LpVariable(
                    f"w_{ti}_{qi}_{s}", 0, min(len(pos), G), cat=pulp.LpInteger
                )
    y: dict[tuple[int, int], pulp.LpVariable] = {}
    z: dict[tuple[int, int, int], pulp.LpVariable] = {}
    for j in st.multi:
        g = snap.jobs[j].gpus
        for qi in range(len(st.configs[st.models[j]])):
            check_deadline()
            y[j, qi] = pulp.LpVariable(f"y_{j}_{qi}", cat=pulp.LpBinary)
            for s in range(S):
                z[j, qi, s] = pulp.LpVariable(f"z_{j}_{qi}_{s}", 0, min(g, G), cat=pulp.LpInteger)
    obj = []
    for ti, (k, pos) in enumerate(st.types):
        cfgs = st.configs[k]
        n_run = pulp.lpSum(w[ti, qi, s] for qi in range(len(cfgs)) for s in range(S))
        if st.must_run:
            prob += n_run == len(pos), f"run_type_{ti}"
        else:
            prob += n_run <= len(pos), f"run_type_{ti}"
        obj += [cfgs[qi][2] * w[ti, qi, s] for qi in range(len(cfgs)) for s in range(S)]
    for j in st.multi:
        g = snap.jobs[j].gpus
        cfgs = st.configs[st.models[j]]
        pick = pulp.lpSum(y[j, qi] for qi in range(len(cfgs)))
        prob += (pick == 1 if st.must_run else pick <= 1), f"run_job_{j}"
        for qi in range(len(cfgs)):
            prob += pulp.lpSum(z[j, qi, s] for s in range(S)) == g * y[j, qi], f"whole_{j}_{qi}"
            for s in range(S):
                prob += z[j, qi, s] <= min(g, G) * y[j, qi], f"link_{j}_{qi}_{s}"
            obj.append(g * cfgs[qi][2] * y[j, qi])
    prob += pulp.lpSum(obj)
    if cut is not None:
        prob += pulp.lpSum(obj) <= cut + 1e-7 * max(1.0, abs(cut)), "relaxation_cut"
    gpu_use = []
    for s in range(S):
        check_deadline()
        g_terms, c_terms, m_terms = [], [], []
        for ti, (k, _pos) in enumerate(st.types):
            for qi, (c, m, _t) in enumerate(st.configs[k]):
                v = w[ti, qi, s]
                g_terms.append(v)
                c_terms.append(c * v)
                m_terms.append(m * v)
        for j in st.multi:
            for qi, (c, m, _t) in enumerate(st.configs[st.models[j]]):
                v = z[j, qi, s]
                g_terms.append(v)
                c_terms.append(c * v)
                m_terms.append(m * v)
        used = pulp.lpSum(g_terms)
        gpu_use.append(used)
        prob += used <= G, f"gpu_{s}"
        prob += pulp.lpSum(c_terms) <= cl.cpus_per_server, f"cpu_{s}"
        prob += pulp.lpSum(m_terms) <= cl.mem_gb_per_server, f"mem_{s}"
    for s in range(S - 1):
        prob += gpu_use[s] >= gpu_use[s + 1], f"symmetry_{s}"
    return prob, (st, w), (y, z)


#: PuLP's hand-over (model to solver arrays) time per second of model building.
HANDOVER_FACTOR = 1.5


@register_method(
    "synergy",
    "milp",
    exact=True,
    options=MilpOptions,
    summary="exact MILP (PuLP; HiGHS or CBC): configurations + placement",
)
def solve_milp(
    snap: Snapshot,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: MilpOptions,
) -> SolveResult[Allocation | None]:
    """Exact optimum of the round (status, value, and a proven upper bound).

    With `relaxation_cut`, the optimum over cluster-wide totals (`relaxation_bound`, a proven
    upper bound) caps the objective, and a solution reaching it is optimal by that proof."""
    o = options
    t0 = time.perf_counter()
    rel = relaxation_bound(build_structure(snap, o.run_set)) if o.relaxation_cut else None
    prob, (st, w), (y, z) = build_milp(snap, o.run_set, cut=rel)
    stats: dict[str, Any] = {"solver": o.solver, "run_set": o.run_set}
    if not st.scope:  # nothing can run: the empty allocation is optimal
        return certified_result(
            snap, decode(st, {}, {}), "milp", time.perf_counter() - t0, 0.0, stats=stats
        )
    left = time_left(t0, time_limit)
    if left is not None and left < HANDOVER_FACTOR * (time.perf_counter() - t0):
        # PuLP's hand-over to the solver takes about as long as building, uninterruptibly:
        # starting it now would overrun the limit. Stop with the proven bound.
        stats["stopped_before_handover"] = True
        bound = rel if rel is not None else relaxation_bound(st)
        runtime = time.perf_counter() - t0
        return SolveResult(Status.TIMEOUT, None, bound, None, "milp", runtime, stats)
    prob.solve(_backend(o, left))
    sol_status = prob.sol_status
    stats.update(
        pulp_status=pulp.LpStatus[prob.status],
        sol_status=pulp.LpSolution[sol_status],
        variables=len(prob.variables()),
        constraints=len(prob.constraints),
        relaxation_bound=rel,
    )
    if sol_status not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        runtime = time.perf_counter() - t0
        if sol_status == pulp.LpSolutionInfeasible:
            return SolveResult(Status.INFEASIBLE, None, None, None, "milp", runtime, stats)
        bound = rel if rel is not None else relaxation_bound(st)
        return SolveResult(Status.TIMEOUT, None, bound, None, "milp", runtime, stats)
    alloc = _decode_milp(prob, st, w, y, z)
    value = total_tput(snap, alloc)
    bound = _milp_bound(prob, st, o.solver, sol_status, value, rel, stats)
    runtime = time.perf_counter() - t0
    return certified_result(snap, alloc, "milp", runtime, bound, tol=EXACT_TOL, stats=stats)


def _backend(o: MilpOptions, time_limit: float | None) -> Any:
    """The PuLP solver command: zero relative gap, so only a proven optimum stops it early."""
    make = pulp.HiGHS if o.solver == "highs" else pulp.PULP_CBC_CMD
    return make(msg=False, timeLimit=time_limit, gapRel=0.0, gapAbs=1e-9, threads=o.threads)


def _decode_milp(prob: pulp.LpProblem, st: ExactStructure, w: Any, y: Any, z: Any) -> Allocation:
    """The allocation of the solver's incumbent."""
    counts = {key: int(round(v.value() or 0.0)) for key, v in w.items()}
    multi: dict[int, tuple[int, dict[int, int]]] = {}
    for (j, qi), v in y.items():
        if (v.value() or 0.0) > 0.5:
            parts = {
                s: int(round(z[j, qi, s].value() or 0.0))
                for s in range(st.snap.cluster.servers)
                if (z[j, qi, s].value() or 0.0) > 0.5
            }
            multi[j] = (qi, parts)
    return decode(st, counts, multi)


def _milp_bound(
    prob: pulp.LpProblem,
    st: ExactStructure,
    solver: str,
    sol_status: int,
    value: float,
    rel: float | None,
    stats: dict[str, Any],
) -> float | None:
    """A proven upper bound: the value itself when the solver proved it optimal (PuLP's
    `sol_status` 1), else the tighter of HiGHS's MIP dual bound and the cluster-totals
    relaxation (`certify` then decides; a solution reaching the relaxation is optimal)."""
    if sol_status == pulp.LpSolutionOptimal:
        return value
    if rel is not None and value >= rel - EXACT_TOL * max(1.0, abs(rel)):
        stats["bound_source"] = "cluster_totals_relaxation"
        return rel
    bound = None
    model = getattr(prob, "solverModel", None)
    if solver == "highs" and model is not None:
        b = float(model.getInfo().mip_dual_bound)
        bound = -b if abs(b) < 1e30 else None  # PuLP hands HiGHS the negated objective
        stats["bound_source"] = "highs_mip_dual_bound"
    if rel is not None and (bound is None or rel < bound):
        bound = rel
        stats["bound_source"] = "cluster_totals_relaxation"
    if bound is None:
        bound = relaxation_bound(st)
        stats["bound_source"] = "cluster_totals_relaxation"
    return bound
