"""Exact plan of one application on a DAG by CP-SAT, in integer time units and scaled costs.

Same model as the MILP (one configuration per function, start times, precedence, SLO). CP-SAT
needs integers: times are counted in ticks of `time_unit_ms`; costs are divided by the largest
and scaled to COST_TOP, then rounded. A plan fits the real data when its latency, the float
longest path, is at most B = budget + LAT_TOL (`problem.fits_budget`); with S its exact sum
along a path of at most n functions, that float sum is within n * 2^-52 * S of S. Rounding
brackets B:
- the relaxation: latencies rounded DOWN to ticks, budget floor(B * (1 + n * 2^-51) / unit): the
  ticks of a plan that fits sum to at most that, so every such plan is feasible in it, its bound
  is a lower bound on the real optimum and its infeasibility proves that no plan fits. Its plan
  is re-checked on the real data; one that does not fit is cut off by a no-good clause and the
  relaxation solved again (`plan.bracket`, at most `plan.MAX_CUTS` cuts);
- the restriction: latencies rounded UP, budget floor(B * (1 - n * 2^-51) / unit): every plan
  feasible in it fits the real data (re-checked). Solved only when the cuts run out or a
  time-limited relaxation returned a plan that does not fit (then `feasible`).
Ticks are exact: floor and ceil of the float's exact value divided by the float unit. The
bound handed to `certify` allows for the cost rounding: with n functions, the float optimum is
at least (integer bound - n) * largest / COST_TOP.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from schedlab.solvers.backends import cpsat_solver
from schedlab.solvers.esg.exact_milp import candidates, check_model_size
from schedlab.solvers.esg.plan import Relaxed, bracket, choice_fits, result
from schedlab.solvers.esg.problem import APP_KINDS, App, budget_limit
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed

COST_TOP = float(2**46)


@dataclass(frozen=True)
class CpsatOptions:
    pareto: bool = field(default=True, metadata={"help": "drop dominated configurations first"})
    num_workers: int = shared("num_workers")
    time_unit_ms: float = field(default=0.001, metadata={"help": "integer time unit (ms)"})


def floor_ticks(v: float | Fraction, unit: float) -> int:
    """floor(v / unit) of the exact values (a float is an exact binary fraction)."""
    if isinstance(v, float):
        q = v / unit
        f = math.floor(q) if math.isfinite(q) else 0
        # the float quotient is within 2^-53 relative of the exact one: inside (f, f+1) by more
        # than its error, f is the exact floor; otherwise compute in fractions
        if abs(q) < 2**30 and 1e-6 < q - f < 1 - 1e-6:
            return int(f)
    return math.floor(Fraction(v) / Fraction(unit))


def ceil_ticks(v: float, unit: float) -> int:
    """ceil(v / unit) of the exact values."""
    return -floor_ticks(-v, unit)


def limit_ticks(limit: float, terms: int, unit: float, up: bool) -> int:
    """floor(limit * (1 +- terms * 2^-51) / unit), exactly: a limit on a float sum of `terms`
    nonnegative terms, loosened (`up`) or tightened by that sum's rounding, in ticks."""
    slack = Fraction(terms, 2**51)
    return math.floor(Fraction(limit) * (1 + slack if up else 1 - slack) / Fraction(unit))


@register_method(
    "esg",
    "cpsat",
    exact=True,
    kinds=APP_KINDS,
    options=CpsatOptions,
    summary="CP-SAT on the DAG (integer-scaled)",
)
def solve_cpsat(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: CpsatOptions
) -> SolveResult:
    """Proven optimum (or infeasible) of the one-application plan, by CP-SAT."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    lats, costs, cand = candidates(app, options.pareto)
    n, preds, unit = len(app.functions), app.preds(), options.time_unit_ms
    top = max(float(c.max()) for c in costs)  # 0 when every configuration is free
    limit = budget_limit(app.budget)
    check_model_size(cand)
    icost = [
        [int(round(float(costs[f][c]) / top * COST_TOP)) if top > 0 else 0 for c in cand[f]]
        for f in range(n)
    ]
    stats: dict[str, Any] = {}

    def run(up: bool, cuts: list[list[int]]) -> tuple[Any, Any, list[int] | None]:
        """Solve the relaxation (`up`: latencies down, budget up) or the restriction."""
        budget = limit_ticks(limit, n, unit, up)
        m = cp_model.CpModel()
        x, lat_terms, cost_terms = {}, [], []
        for f in range(n):
            deadline.check()  # building can outlast the time limit on large applications
            terms = []
            for k, c in enumerate(cand[f]):
                x[f, k] = m.new_bool_var(f"x_{f}_{k}")
                v = float(lats[f][c])
                terms.append((floor_ticks(v, unit) if up else ceil_ticks(v, unit), x[f, k]))
                cost_terms.append(icost[f][k] * x[f, k])
            m.add_exactly_one(x[f, k] for k in range(len(cand[f])))
            lat_terms.append(sum(t * v for t, v in terms))
        s = [m.new_int_var(0, max(budget, 0), f"s_{f}") for f in range(n)]
        for f in range(n):
            m.add(s[f] + lat_terms[f] <= budget)
            for p in preds[f]:
                m.add(s[f] >= s[p] + lat_terms[p])
        for cut in cuts:  # no-good: not exactly this plan
            pos = [int(list(cand[f]).index(cut[f])) for f in range(n)]
            m.add_bool_or([x[f, pos[f]].Not() for f in range(n)])
        m.minimize(sum(cost_terms))
        solver = cpsat_solver(
            num_workers=options.num_workers, seed=solver_seed(seed), deadline=deadline
        )
        code = solver.solve(m)
        stats["cpsat_status"] = solver.status_name(code)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return code, solver, None
        choice = [
            int(cand[f][next(k for k in range(len(cand[f])) if solver.boolean_value(x[f, k]))])
            for f in range(n)
        ]
        return code, solver, choice

    def relax(cuts: list[list[int]]) -> Relaxed[list[int]]:
        code, solver, choice = run(True, cuts)
        if code == cp_model.INFEASIBLE:
            return Relaxed(None, None, infeasible=True)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return Relaxed(None, None)
        ib = math.floor(solver.best_objective_bound)  # each rounded cost is off by <= 1/2
        return Relaxed(choice, max(ib - n, 0) / COST_TOP * top, proven=code == cp_model.OPTIMAL)

    def restrict() -> list[int] | None:
        stats["restricted"] = True
        return run(False, [])[2]

    out = bracket(relax, restrict, lambda c: choice_fits(app, c), deadline.passed)
    stats["cuts"] = out.cuts
    if out.choice is None:
        bound = out.bound if math.isfinite(out.bound) else None
        return result(
            app, None, "cpsat", t0, exact=True, bound=bound, proven_infeasible=out.infeasible,
            stats=stats,
        )  # fmt: skip
    return result(app, out.choice, "cpsat", t0, exact=True, bound=out.bound, stats=stats)
