"""Exact allocation by one MILP (HiGHS in process, or the CBC binary): configurations and placement.

Variables (see exact_common for the run-set rules and the aggregation): w[t,q,s] = number of
single-GPU jobs of type t at configuration q on server s (integer); for a multi-GPU job j,
y[j,q] = 1 if it uses configuration q and z[j,q,s] = its GPUs on server s at q (integer,
z <= min(gpus, gpus_per_server) y, sum_s z[j,q,s] = gpus_j y[j,q]). Per server: GPUs, CPUs
(c_q per GPU) and memory (m_q per GPU) within capacity. Objective: max sum t_q (w + gpus y).
The model is built as sparse columns and handed to HiGHS in process (highspy), so the time
limit covers building, hand-over and solving (PuLP's own row-by-row hand-over took seconds at
2,000 servers and could not be interrupted). CBC reads the same columns from an MPS file that
HiGHS writes, and is killed shortly after the limit (it overruns `-sec` in its root LP); only
its "Optimal" status line is a proof. The bound is HiGHS's MIP dual bound or the relaxation
over cluster-wide totals (always a valid upper bound), the tighter of the two. A heuristic
allocation (`hint`, see `start_point`) is the MIP start and the incumbent kept when the solver
finds nothing better within the limit.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.solvers.backends import run_cbc
from schedlab.solvers.highs import ColumnModel, empty_model, run_highs, write_mps
from schedlab.solvers.options import MilpSolver, shared
from schedlab.solvers.result import PROOF_TOL, SolveResult, Status
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
    nothing_runs,
    relaxation_bound,
    start_point,
    valid,
)
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import certified_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline, DeadlineExceeded

INF = float("inf")

SOLVERS = ("highs", "cbc")
#: CPU and memory rows count in this share of the server's capacity (see `build_milp`).
ROW_UNIT = 1e-3
#: Absolute gap CBC may stop at (its "Optimal" proves no better allocation beyond it): a tenth
#: of the proof tolerance, so that the value plus it still proves optimality.
CBC_GAP = PROOF_TOL / 10


@dataclass(frozen=True)
class MilpOptions:
    """Options of the exact MILP."""

    solver: MilpSolver = shared("solver")
    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    threads: int = shared("threads")
    relaxation_cut: bool = field(
        default=True, metadata={"help": "cap the objective by the cluster-totals relaxation"}
    )
    hint: bool = shared("hint")  # OPT, or TUNE under a time limit (`start_point`)


@dataclass
class MilpColumns:
    """The MILP as sparse columns (`ColumnModel`, maximized) and the column of each variable."""

    model: ColumnModel
    w: dict[tuple[int, int, int], int]
    y: dict[tuple[int, int], int]
    z: dict[tuple[int, int, int], int]


def build_milp(
    st: ExactStructure, *, cut: float | None = None, deadline: Deadline = NO_DEADLINE
) -> MilpColumns:
    """The model column by column (fast: no per-term Python objects, so building 10^6 columns
    takes seconds, not minutes); `cut`, when given, is a proven upper bound on the objective.
    DeadlineExceeded once `deadline` passes."""
    cl = st.snap.cluster
    S, G = cl.servers, cl.gpus_per_server
    model = empty_model([], [])

    def row(a: float, b: float) -> int:
        model.row_lower.append(a)
        model.row_upper.append(b)
        return len(model.row_lower) - 1

    # CPU and memory rows in units of ROW_UNIT of the capacity, up to the validator's limit:
    # the solvers' absolute tolerances (HiGHS's MIP feasibility 1e-6) then let a solution break
    # a capacity by 1e-9 of it at most, as the validator does, whatever the capacity's size
    cs, ms = 1.0 / (ROW_UNIT * cl.cpus_per_server), 1.0 / (ROW_UNIT * cl.mem_gb_per_server)
    gpu = [row(-INF, G) for _ in range(S)]
    cpu = [row(-INF, capacity_limit(cl.cpus_per_server) * cs) for _ in range(S)]
    mem = [row(-INF, capacity_limit(cl.mem_gb_per_server) * ms) for _ in range(S)]
    sym = [row(0.0, INF) for _ in range(S - 1)]  # gpu_use[s] - gpu_use[s + 1] >= 0
    cut_row = None if cut is None else row(-INF, cut + 1e-7 * max(1.0, abs(cut)))

    def col(
        cost: float, ub: float, s: int, c: float, m: float, rows: list[int], vals: list[float]
    ) -> int:
        rows = [*rows, gpu[s], cpu[s], mem[s]]
        vals = [*vals, 1.0, c * cs, m * ms]
        if s > 0:
            rows.append(sym[s - 1])
            vals.append(-1.0)
        if s < S - 1:
            rows.append(sym[s])
            vals.append(1.0)
        if cut_row is not None and cost:
            rows.append(cut_row)
            vals.append(cost)
        return model.add_col(cost, 0.0, ub, rows, vals)

    out = MilpColumns(model, {}, {}, {})
    for ti, (k, pos) in enumerate(st.types):
        r = row(len(pos), len(pos)) if st.must_run else row(-INF, len(pos))
        for qi, (c, m, t) in enumerate(st.configs[k]):
            deadline.check()  # building can outlast the time limit on large clusters
            for s in range(S):
                out.w[ti, qi, s] = col(t, min(len(pos), G), s, c, m, [r], [1.0])
    for j in st.multi:
        g = st.snap.jobs[j].gpus
        pick = row(1.0, 1.0) if st.must_run else row(-INF, 1.0)
        for qi, (c, m, t) in enumerate(st.configs[st.models[j]]):
            deadline.check()
            whole = row(0.0, 0.0)  # sum_s z[j, q, s] - g y[j, q] = 0
            links = [row(-INF, 0.0) for _ in range(S)]  # z[j, q, s] - min(g, G) y[j, q] <= 0
            rows, vals = [pick, whole, *links], [1.0, -g, *[-min(g, G)] * S]
            if cut_row is not None:
                rows.append(cut_row)
                vals.append(g * t)
            out.y[j, qi] = model.add_col(g * t, 0.0, 1.0, rows, vals)
            for s in range(S):
                out.z[j, qi, s] = col(0.0, min(g, G), s, c, m, [whole, links[s]], [1.0, 1.0])
    return out


@register_method(
    "synergy",
    "milp",
    exact=True,
    options=MilpOptions,
    summary="exact MILP (HiGHS or CBC): configurations + placement",
)
def solve_milp(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: MilpOptions,
) -> SolveResult[Allocation | None]:
    """Exact optimum of the round (status, value, and a proven upper bound).

    With `relaxation_cut`, the optimum over cluster-wide totals (`relaxation_bound`, a proven
    upper bound) caps the objective, and a solution reaching it is optimal by that proof. With
    `hint`, a heuristic allocation (`start_point`) is the MIP start and the incumbent returned
    if the solver finds nothing better in time."""
    o = options
    t0 = time.perf_counter()
    st = build_structure(snap, o.run_set)
    stats: dict[str, Any] = {"solver": o.solver, "run_set": o.run_set}
    if nothing_runs(st):  # the empty allocation is the only one: optimal
        return certified_result(
            snap, decode(st, {}, {}), "milp", time.perf_counter() - t0, 0.0, stats=stats
        )
    rel = relaxation_bound(st) if o.relaxation_cut else None
    stats["relaxation_bound"] = rel
    start = start_point(st, deadline) if o.hint else None
    if start is not None:
        stats["hint_value"] = total_tput(snap, decode(st, *start))
    try:
        mc = build_milp(st, cut=rel, deadline=deadline)
        if o.solver == "highs":
            found, bound = _run_highs(st, mc, o, deadline, start, stats)
        else:
            found, bound = _run_cbc(st, mc, o, deadline, stats)
    except DeadlineExceeded:  # the limit passed while building: the incumbent, unproven
        stats["stopped_while_building"] = True
        found, bound = None, None
    if found is not None and not valid(st, found):  # within the solver's tolerances only
        stats["solver_solution_invalid"] = True
        found = None
    bound = _tightest(bound, rel, st, stats)
    alloc = _best(st, found, start)
    runtime = time.perf_counter() - t0
    if alloc is None:
        status = Status.INFEASIBLE if stats.get("infeasible") else Status.TIMEOUT
        bound = None if status is Status.INFEASIBLE else bound
        return SolveResult(status, None, bound, None, "milp", runtime, stats)
    return certified_result(snap, alloc, "milp", runtime, bound, stats=stats)


def _best(
    st: ExactStructure, found: Allocation | None, start: tuple[Counts, MultiChoice] | None
) -> Allocation | None:
    """The better of the solver's allocation and the start incumbent (None if neither)."""
    cands = [a for a in (found, None if start is None else decode(st, *start)) if a is not None]
    return max(cands, key=lambda a: total_tput(st.snap, a), default=None)


def _run_highs(
    st: ExactStructure,
    mc: MilpColumns,
    o: MilpOptions,
    deadline: Deadline,
    start: tuple[Counts, MultiChoice] | None,
    stats: dict[str, Any],
) -> tuple[Allocation | None, float | None]:
    """Solve in process with HiGHS: (its allocation or None, a proven bound or None)."""
    x0 = None if start is None else _start_vector(mc, *start)
    out = run_highs(
        mc.model,
        maximize=True,
        integer=True,
        deadline=deadline,
        start=x0,
        threads=o.threads,
    )
    stats.update(out.stats)
    stats.update(variables=len(mc.model.cost), constraints=len(mc.model.row_lower))
    if out.status is Status.INFEASIBLE:
        stats["infeasible"] = True
    if out.x is None:
        return None, out.bound
    alloc = _decode_columns(st, mc, out.x)
    if out.bound is not None:
        stats["bound_source"] = "highs_mip_dual_bound"
    return alloc, out.bound


def _start_vector(mc: MilpColumns, counts: Counts, multi: MultiChoice) -> np.ndarray:
    x = np.zeros(len(mc.model.cost))
    for key, n in counts.items():
        x[mc.w[key]] = n
    for j, (qi, parts) in multi.items():
        x[mc.y[j, qi]] = 1.0
        for s, g in parts.items():
            x[mc.z[j, qi, s]] = g
    return x


def _decode_columns(st: ExactStructure, mc: MilpColumns, x: np.ndarray) -> Allocation:
    """The allocation of a solution vector."""
    counts = {key: int(round(x[i])) for key, i in mc.w.items() if x[i] > 0.5}
    multi: dict[int, tuple[int, dict[int, int]]] = {}
    for (j, qi), i in mc.y.items():
        if x[i] > 0.5:
            S = st.snap.cluster.servers
            parts = {s: int(round(x[mc.z[j, qi, s]])) for s in range(S)}
            multi[j] = (qi, {s: g for s, g in parts.items() if g > 0})
    return decode(st, counts, multi)


def _run_cbc(
    st: ExactStructure,
    mc: MilpColumns,
    o: MilpOptions,
    deadline: Deadline,
    stats: dict[str, Any],
) -> tuple[Allocation | None, float | None]:
    """Solve with the CBC binary on an MPS file written by HiGHS (fast, no PuLP rows); CBC is
    killed shortly after the limit (`backends.run_cbc`: its root LP does not watch the clock)."""
    with tempfile.TemporaryDirectory(prefix="schedlab-cbc-") as tmp:
        mps, sol = Path(tmp) / "milp.mps", Path(tmp) / "milp.sol"
        write_mps(mc.model, str(mps), integer=True, maximize=True)
        opts = ["-ratio", "0", "-allow", repr(CBC_GAP), "-threads", str(o.threads)]
        opts += ["-timeMode", "elapsed", "-solve", "-solution", str(sol)]
        if run_cbc(mps, opts, deadline)[1]:
            stats["cbc_killed"] = True
            return None, None
        head, x = _read_cbc_solution(sol, len(mc.model.cost))
    stats.update(cbc_status=head, variables=len(mc.model.cost), constraints=len(mc.model.row_lower))
    if head.startswith("Infeasible"):
        stats["infeasible"] = True
    if x is None:
        return None, None
    alloc = _decode_columns(st, mc, x)
    # "Optimal": no allocation beats this one by more than the allowed gap (-allow)
    proven = head.startswith("Optimal")
    return alloc, (total_tput(st.snap, alloc) + CBC_GAP if proven else None)


def _read_cbc_solution(path: Path, n: int) -> tuple[str, np.ndarray | None]:
    """CBC's status line and column values (None when it holds no integer solution)."""
    if not path.exists():
        return "no solution file", None
    lines = path.read_text().splitlines()
    head = lines[0].strip() if lines else ""
    if not (head.startswith("Optimal") or (head.startswith("Stopped") and "objective" in head)):
        return head, None
    x = np.zeros(n)
    for line in lines[1:]:
        tok = line.split()
        if tok and tok[0] == "**":  # CBC marks values outside tolerances; still its solution
            tok = tok[1:]
        if len(tok) >= 3:
            x[int(tok[0])] = float(tok[2])
    return head, x


def _tightest(
    bound: float | None, rel: float | None, st: ExactStructure, stats: dict[str, Any]
) -> float | None:
    """The tighter of the solver's proven bound and the cluster-totals relaxation (computed
    when neither is at hand): always a valid upper bound; `certify` then decides."""
    if rel is None and bound is None:
        rel = relaxation_bound(st)
    if rel is not None and (bound is None or rel < bound):
        stats["bound_source"] = "cluster_totals_relaxation"
        return rel
    return bound
