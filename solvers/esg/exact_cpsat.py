"""Exact plan of one application on a DAG by CP-SAT, in integer time units and scaled costs.

Same model as the MILP (one configuration per function, start times, precedence, SLO). CP-SAT
needs integers: times are rounded to `time_unit_ms` (exact when every latency and the budget are
multiples of it, as generated apps are; otherwise the result is at most `feasible`), costs are
scaled so that the largest is 2**46 and rounded (divided by the largest first, so costs near
5e-324 or 1e12, or all zero, scale without overflow). The bound handed to `certify` allows for
that rounding: with n functions, the float optimum is at least (integer bound - n/2) / scale.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from schedlab.solvers.esg.exact_milp import candidates, check_model_size
from schedlab.solvers.esg.plan import result
from schedlab.solvers.esg.problem import APP_KINDS, App
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import check_deadline, solver_seed, time_left

COST_TOP = float(2**46)


@dataclass(frozen=True)
class CpsatOptions:
    pareto: bool = field(default=True, metadata={"help": "drop dominated configurations first"})
    num_workers: int = field(default=1, metadata={"help": "CP-SAT search workers"})
    time_unit_ms: float = field(default=0.001, metadata={"help": "integer time unit (ms)"})


def _ticks(v: float, unit: float) -> tuple[int, bool]:
    q = v / unit
    r = round(q)
    return int(r), abs(q - r) <= 1e-6 * max(1.0, abs(q))


@register_method(
    "esg",
    "cpsat",
    exact=True,
    kinds=APP_KINDS,
    options=CpsatOptions,
    summary="CP-SAT on the DAG (integer-scaled)",
)
def solve_cpsat(
    app: App, *, time_limit: float | None = None, seed: int | None = None, options: CpsatOptions
) -> SolveResult:
    """Proven optimum (or infeasible) of the one-application plan, by CP-SAT."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    lats, costs, cand = candidates(app, options.pareto)
    n, preds, unit = len(app.functions), app.preds(), options.time_unit_ms
    top = max(float(c.max()) for c in costs)  # the largest cost; 0 when every cost is 0

    def scaled(c: float) -> int:
        """c / top * COST_TOP, rounded: c / top first, so a subnormal top cannot overflow."""
        return int(round(c / top * COST_TOP)) if top > 0 else 0

    budget, exact_times = _ticks(app.budget, unit)
    if not exact_times:
        budget = math.floor(app.budget / unit + 1e-9)
    check_model_size(cand)
    m = cp_model.CpModel()
    x, lat_terms, cost_terms = {}, [], []
    for f in range(n):
        check_deadline()  # building can outlast the time limit on large applications
        terms = []
        for k, c in enumerate(cand[f]):
            x[f, k] = m.new_bool_var(f"x_{f}_{k}")
            t, ok = _ticks(float(lats[f][c]), unit)
            exact_times &= ok
            terms.append((t, x[f, k]))
            cost_terms.append(scaled(float(costs[f][c])) * x[f, k])
        m.add_exactly_one(x[f, k] for k in range(len(cand[f])))
        lat_terms.append(sum(t * v for t, v in terms))
    s = [m.new_int_var(0, max(budget, 0), f"s_{f}") for f in range(n)]
    for f in range(n):
        m.add(s[f] + lat_terms[f] <= budget)
        for p in preds[f]:
            m.add(s[f] >= s[p] + lat_terms[p])
    m.minimize(sum(cost_terms))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = options.num_workers
    solver.parameters.random_seed = solver_seed(seed)
    left = time_left(t0, time_limit)
    if left is not None:
        solver.parameters.max_time_in_seconds = float(left)
    code = solver.solve(m)
    stats: dict[str, Any] = {"cpsat_status": solver.status_name(code), "times_exact": exact_times}
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        proven = code == cp_model.INFEASIBLE and exact_times
        return result(app, None, "cpsat", t0, exact=True, proven_infeasible=proven, stats=stats)
    choice = [
        int(cand[f][next(k for k in range(len(cand[f])) if solver.boolean_value(x[f, k]))])
        for f in range(n)
    ]
    bound = (solver.best_objective_bound - n / 2) / COST_TOP * top if exact_times else -math.inf
    return result(app, choice, "cpsat", t0, exact=True, bound=max(bound, 0.0), stats=stats)
