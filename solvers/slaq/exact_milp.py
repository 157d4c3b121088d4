"""Exact allocation by a MILP (PuLP with HiGHS or CBC), for both objectives.

y[j, k] = 1 when old job j gets its k-th free core (k = 1..R), y[j, k] >= y[j, k + 1], and
sum_jk y[j, k] = R (every free core given); job j's quality is Q_j(base_j) + sum_k g_jk y[j, k]
with gains g_jk = Q_j(base_j + k) - Q_j(base_j + k - 1). Sum: max sum_j of it; max-min: max t
with t <= it for every j. Q_j need not be concave (the chain constraints keep each job's cores
a prefix); when every Q_j is concave the LP relaxation is already integral, which is why this
incremental model beats a one-hot choice of counts here.
The status comes from `certify`: the value is recomputed from the decoded allocation, the
bound is the model's objective when PuLP reports a proven optimum (`sol_status` 1) and
HiGHS's MIP dual bound otherwise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from schedlab.solvers.result import SolveResult, Status, certify
from schedlab.solvers.slaq.heuristics import allocation_of
from schedlab.solvers.slaq.problem import Allocation, Snapshot
from schedlab.solvers.slaq.quality import quality_model
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


@dataclass(frozen=True)
class MilpOptions:
    solver: Literal["highs", "cbc"] = field(default="highs", metadata={"help": "MILP backend"})
    threads: int = field(default=1, metadata={"help": "solver threads"})


def _backend(options: MilpOptions, deadline: Deadline) -> Any:
    import pulp

    left = deadline.remaining(floor=0.01)
    kw: dict[str, Any] = dict(msg=False, timeLimit=left, gapRel=0.0, threads=options.threads)
    if options.solver == "highs":
        return pulp.HiGHS(**kw)
    return pulp.PULP_CBC_CMD(**kw)


@register_method(
    "slaq",
    "milp",
    exact=True,
    options=MilpOptions,
    summary="exact MILP (PuLP; HiGHS or CBC), incremental core variables, both objectives",
)
def solve_milp(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: MilpOptions = MilpOptions(),
) -> SolveResult[Allocation | None]:
    """Exact optimum of the snapshot's objective over integer core counts."""
    import pulp

    t0 = time.perf_counter()
    qm = quality_model(snap)
    qm.check_size(1024, "milp")  # PuLP: about 1 KiB per variable and its constraint
    tables, free = qm.tables(), qm.free
    prob = pulp.LpProblem("slaq", pulp.LpMaximize)
    y: dict[tuple[int, int], Any] = {}
    q_of = []
    for j, t in enumerate(tables):
        deadline.check()
        for k in range(1, free + 1):
            y[j, k] = pulp.LpVariable(f"y_{j}_{k}", cat=pulp.LpBinary)
        q_of.append(
            float(t[0]) + pulp.lpSum(float(t[k] - t[k - 1]) * y[j, k] for k in range(1, free + 1))
        )
    if snap.objective == "sum":
        prob += pulp.lpSum(q_of)
    else:
        lo = min((float(t.min()) for t in tables), default=0.0)
        t_var = pulp.LpVariable("t", lowBound=lo)
        prob += t_var
        for j, q in enumerate(q_of):
            prob += t_var <= q, f"min_{j}"
    for (j, k), v in y.items():
        if k < free:
            prob += v >= y[j, k + 1], f"prefix_{j}_{k}"
    if tables:
        prob += pulp.lpSum(y.values()) == free, "all_free_cores"
        prob.solve(_backend(options, deadline))
    sol = prob.sol_status if tables else pulp.LpSolutionOptimal
    stats: dict[str, Any] = {
        "solver": options.solver,
        "sol_status": pulp.LpSolution[sol],
        "variables": len(y),
    }
    if sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        status = Status.INFEASIBLE if sol == pulp.LpSolutionInfeasible else Status.TIMEOUT
        return SolveResult(status, None, None, None, "milp", time.perf_counter() - t0, stats)
    extra = [
        sum(int(round(y[j, k].value() or 0.0)) for k in range(1, free + 1))
        for j in range(len(tables))
    ]
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    bound: float | None = None
    if not tables:
        bound = value
    elif sol == pulp.LpSolutionOptimal:
        bound = float(pulp.value(prob.objective))
    else:
        model = getattr(prob, "solverModel", None)
        if options.solver == "highs" and model is not None:
            b = float(model.getInfo().mip_dual_bound)
            bound = -b if abs(b) < 1e30 else None  # PuLP hands HiGHS the negated objective
    cert = certify(value, bound, "max", tol=1e-7)
    return SolveResult.certified(cert, alloc, "milp", time.perf_counter() - t0, stats)
