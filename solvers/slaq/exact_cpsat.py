"""Exact allocation by CP-SAT over integer-scaled qualities, for both objectives.

e_j in [0, R] free cores of old job j (sum e_j = R); q_j = round(S Q_j(base_j + e_j)) through
an element constraint; maximize sum q_j or min q_j. Scaling: S = `resolution` / max |Q|,
so each rounded quality is within 0.5 / S of the true one. The value is the true objective of
the decoded allocation; the bound is CP-SAT's bound / S plus the rounding slack (n 0.5 / S
for the sum, 0.5 / S for max-min), a proven bound on the true optimum. `certify` is called
with a tolerance of twice that slack: "optimal" means optimal within the scaling resolution
(stats: `scale`, `rounding_slack`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.result import PROOF_TOL, SolveResult, Status, certify
from schedlab.solvers.slaq.heuristics import allocation_of
from schedlab.solvers.slaq.problem import Allocation, Snapshot
from schedlab.solvers.slaq.quality import quality_model
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed


@dataclass(frozen=True)
class CpsatOptions:
    num_workers: int = field(default=1, metadata={"help": "CP-SAT search workers"})
    resolution: float = field(
        default=1e8,
        metadata={"help": "integer scale of the largest |Q|", "range": (1.0, 1e15)},
    )
    max_deterministic_time: float | None = field(
        default=None, metadata={"help": "deterministic time limit (reproducible runs)"}
    )


@register_method(
    "slaq",
    "cpsat",
    exact=True,
    options=CpsatOptions,
    summary="exact CP-SAT over integer-scaled qualities (element constraints), both objectives",
)
def solve_cpsat(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: CpsatOptions = CpsatOptions(),
) -> SolveResult[Allocation | None]:
    """Optimum of the snapshot's objective within the integer scaling resolution."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    qm = quality_model(snap)
    qm.check_size(256, "cpsat")  # Python ints of the element tables and CP-SAT's copy
    tables, free, n = qm.tables(), qm.free, len(qm.old)
    top = max((float(np.max(np.abs(t))) for t in tables), default=0.0)
    scale = options.resolution / max(top, 1e-300)
    md = cp_model.CpModel()
    e = [md.new_int_var(0, free, f"e_{j}") for j in range(n)]
    q, lo, hi = [], 0, 0
    for j, t in enumerate(tables):
        deadline.check()
        ints = [int(v) for v in np.rint(t * scale)]
        lo, hi = (min(ints), max(ints)) if j == 0 else (min(lo, *ints), max(hi, *ints))
        qj = md.new_int_var(min(ints), max(ints), f"q_{j}")
        md.add_element(e[j], ints, qj)
        q.append(qj)
    if n:
        md.add(sum(e) == free)
    if snap.objective == "sum" or not n:
        md.maximize(sum(q))
        slack = n * 0.5 / scale
    else:
        t_var = md.new_int_var(lo, hi, "t")
        md.add_min_equality(t_var, q)
        md.maximize(t_var)
        slack = 0.5 / scale
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = options.num_workers
    left = deadline.remaining(floor=0.01)
    if left is not None:
        solver.parameters.max_time_in_seconds = left
    if options.max_deterministic_time is not None:
        solver.parameters.max_deterministic_time = float(options.max_deterministic_time)
    if seed is not None:
        solver.parameters.random_seed = solver_seed(seed)
    code = solver.solve(md)
    stats: dict[str, Any] = {
        "cpsat_status": solver.status_name(code),
        "scale": scale,
        "rounding_slack": slack,
        "branches": solver.num_branches,
    }
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        status = Status.INFEASIBLE if code == cp_model.INFEASIBLE else Status.TIMEOUT
        return SolveResult(status, None, None, None, "cpsat", time.perf_counter() - t0, stats)
    extra = [int(solver.value(v)) for v in e]
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    bound = float(solver.best_objective_bound) / scale + slack if n else value
    tol = PROOF_TOL + 2 * slack / max(1.0, abs(value))
    cert = certify(value, bound, "max", tol=tol)
    return SolveResult.certified(cert, alloc, "cpsat", time.perf_counter() - t0, stats)
