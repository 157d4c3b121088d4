"""Exact plan of one application on a DAG by a MILP (PuLP + HiGHS).

Variables: x[f, k] = 1 when function f runs configuration k (one per function), s[f] >= 0 its
start time. Precedence: s[v] >= s[u] + lat(u) for every edge; SLO: s[f] + lat(f) <= budget for
every f. Objective: total per-request cost, scaled to O(1) so that the solver's tolerances
mean something (costs are ~1e-6). Configurations dominated in (latency, cost) are dropped
first (that keeps an optimum). Status from `prob.sol_status` and `certify`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.plan import result
from schedlab.solvers.esg.problem import APP_KINDS, App
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc


@dataclass(frozen=True)
class MilpOptions:
    pareto: bool = field(default=True, metadata={"help": "drop dominated configurations first"})
    threads: int = field(default=1, metadata={"help": "HiGHS threads"})


#: Memory the door reserves per model variable (PuLP/CP-SAT objects and the rows naming it).
MODEL_BYTES_PER_VAR = 1024


def check_model_size(cand: list[Any]) -> None:
    """Refuse, before building, a model whose variables exceed the memory budget."""
    nvars = sum(len(c) for c in cand)
    check_alloc(MODEL_BYTES_PER_VAR * nvars, f"an exact model of {nvars} configurations")


def candidates(app: App, pareto: bool) -> tuple[list[np.ndarray], list[np.ndarray], list[Any]]:
    """(stage latencies, costs, candidate config indices) per function."""
    lats, costs = app.stage_latency(), app.stage_cost()
    cand = [
        pareto_indices(a, c) if pareto else np.arange(len(a))
        for a, c in zip(lats, costs, strict=True)
    ]
    return lats, costs, cand


@register_method(
    "esg",
    "milp",
    exact=True,
    kinds=APP_KINDS,
    options=MilpOptions,
    summary="MILP on the DAG (PuLP + HiGHS)",
)
def solve_milp(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: MilpOptions
) -> SolveResult:
    """Proven optimum (or infeasible) of the one-application plan, by PuLP + HiGHS."""
    import pulp

    t0 = time.perf_counter()
    lats, costs, cand = candidates(app, options.pareto)
    scale = 1.0 / max(float(sum(c.max() for c in costs)), 1e-300)
    n, preds = len(app.functions), app.preds()
    check_model_size(cand)
    prob = pulp.LpProblem("esg_plan", pulp.LpMinimize)
    x = {}
    for f in range(n):
        deadline.check()  # building can outlast the time limit on large applications
        for k in range(len(cand[f])):
            x[f, k] = pulp.LpVariable(f"x_{f}_{k}", cat=pulp.LpBinary)
    s = [pulp.LpVariable(f"s_{f}", lowBound=0.0) for f in range(n)]
    lat_expr = [
        pulp.lpSum(float(lats[f][c]) * x[f, k] for k, c in enumerate(cand[f])) for f in range(n)
    ]
    prob += pulp.lpSum(
        float(costs[f][c]) * scale * x[f, k] for f in range(n) for k, c in enumerate(cand[f])
    )
    for f in range(n):
        deadline.check()
        prob += pulp.lpSum(x[f, k] for k in range(len(cand[f]))) == 1, f"one_{f}"
        prob += s[f] + lat_expr[f] <= app.budget, f"slo_{f}"
        for p in preds[f]:
            prob += s[f] >= s[p] + lat_expr[p], f"prec_{p}_{f}"
    backend = pulp.HiGHS(
        msg=False,
        timeLimit=deadline.remaining(floor=0.01),
        gapRel=0.0,
        gapAbs=1e-12,
        threads=options.threads,
    )
    prob.solve(backend)
    sol = prob.sol_status
    stats: dict[str, Any] = {"sol_status": pulp.LpSolution[sol], "variables": len(x) + n}
    if sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        infeasible = sol == pulp.LpSolutionInfeasible
        return result(app, None, "milp", t0, exact=True, proven_infeasible=infeasible, stats=stats)
    choice = [
        int(cand[f][int(np.argmax([x[f, k].value() or 0.0 for k in range(len(cand[f]))]))])
        for f in range(n)
    ]
    bound = None
    if sol != pulp.LpSolutionOptimal:
        model = getattr(prob, "solverModel", None)
        b = float(model.getInfo().mip_dual_bound) if model is not None else float("nan")
        bound = b / scale if abs(b) < 1e30 else -np.inf
    return result(app, choice, "milp", t0, exact=True, bound=bound, stats=stats)
