"""The exact model of one application's plan, built once (`plan_model`) and handed to a MILP
(`exact_milp`, HiGHS) or to CP-SAT (`exact_cpsat`); what only its data differ in.

Variables: x[f, k] = 1 when function f runs candidate configuration k (one per function), s[f]
>= 0 its start time. Precedence: s[v] >= s[u] + lat(u) for every edge; budget: s[f] + lat(f) <=
B' for every f; a no-good cut per plan cut off. Objective: total per-request cost. Candidates:
configurations dominated in (latency, cost) are dropped first (that keeps an optimum).

A plan fits the real data when its latency, the float longest path, is at most B = budget +
LAT_TOL (`problem.fits_budget`). Each back end writes two versions of the model that bracket
it (`PlanData`), and `solve_plan` runs `plan.bracket` on them:
- the relaxation, which every plan that fits the real data satisfies: its bound is a lower bound
  on the real optimum and its infeasibility proves that no plan fits; its plan is re-checked on
  the real data and, when it does not fit, cut off and the relaxation solved again;
- the restriction, every plan of which fits the real data (re-checked), solved when the cuts
  run out or a time-limited relaxation gave a plan that does not fit (then `feasible`).
The MILP (`milp_data`) keeps float latencies and loosens B by LOOSE_REL, or tightens it by more
than HiGHS's tolerances (1e-6 per function) can add along a path; costs are scaled to O(1) so
that the solver's tolerances mean something (costs are ~1e-6). CP-SAT (`cpsat_data`) counts
times in ticks of `time_unit_ms`, rounded down (relaxation) or up (restriction), the budget
floor(B (1 +- n 2^-51) / unit) (a float sum along a path of at most n functions is within
n 2^-52 of the exact sum), and costs divided by the largest and scaled to COST_TOP, rounded;
ticks are exact (floor and ceil of the float's exact value divided by the float unit).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.plan import Plan, Relaxed, bracket, choice_fits, result
from schedlab.solvers.esg.problem import App, budget_limit
from schedlab.solvers.kit.linear import INF, LinearModel
from schedlab.solvers.kit.mip import MipOutcome
from schedlab.solvers.result import SolveResult
from schedlab.solvers.validate import Deadline, check_alloc

#: Memory the door reserves per model variable (solver objects and the rows naming it).
MODEL_BYTES_PER_VAR = 1024
#: Loosening of the MILP relaxation's budget (and capacities), relative to max(1, B).
LOOSE_REL = 1e-9
#: Tightening of the MILP restriction's budget, relative to (n + 1) * max(1, B): 10x what
#: HiGHS's feasibility and integrality tolerances (1e-6) can add to a plan's latency per function.
TIGHT_REL = 1e-5
#: CP-SAT's costs: the largest configuration cost is COST_TOP units.
COST_TOP = float(2**46)


def check_model_size(cand: Sequence[Any]) -> None:
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


# ---- integer ticks -------------------------------------------------------------------------
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


# ---- the model -----------------------------------------------------------------------------
@dataclass(frozen=True)
class PlanData:
    """The numbers one version of the model is written in: per function the candidates' stage
    latencies and costs, the budget B'; `integral`: integer units (start times integer too)."""

    lat: list[list[float]]
    cost: list[list[float]]
    budget: float
    integral: bool


def milp_data(app: App, lats: list[np.ndarray], costs: list[np.ndarray], cand: list[Any],
              relaxed: bool) -> PlanData:  # fmt: skip
    """Float latencies, costs scaled to a total of 1, the budget loosened or tightened."""
    scale = 1.0 / max(float(sum(c.max() for c in costs)), 1e-300)
    limit, n = budget_limit(app.budget), len(cand)
    budget = (
        limit + LOOSE_REL * max(1.0, limit)
        if relaxed
        else limit - TIGHT_REL * (n + 1) * max(1.0, limit)
    )
    return PlanData(
        [[float(lats[f][c]) for c in cand[f]] for f in range(n)],
        [[float(costs[f][c]) * scale for c in cand[f]] for f in range(n)],
        budget,
        False,
    )


def cpsat_data(app: App, lats: list[np.ndarray], costs: list[np.ndarray], cand: list[Any],
               unit: float, relaxed: bool) -> PlanData:  # fmt: skip
    """Latencies in ticks (down for the relaxation, up for the restriction), costs in units
    of 1 / COST_TOP of the largest, the budget in ticks loosened or tightened."""
    n = len(cand)
    top = max(float(c.max()) for c in costs)  # 0 when every configuration is free
    tick = floor_ticks if relaxed else ceil_ticks
    return PlanData(
        [[float(tick(float(lats[f][c]), unit)) for c in cand[f]] for f in range(n)],
        [
            [float(round(float(costs[f][c]) / top * COST_TOP)) if top > 0 else 0.0 for c in cand[f]]
            for f in range(n)
        ],  # fmt: skip
        float(limit_ticks(budget_limit(app.budget), n, unit, relaxed)),
        True,
    )


def plan_model(
    app: App, cand: Sequence[Any], data: PlanData, cuts: Sequence[Sequence[int]], deadline: Deadline
) -> tuple[LinearModel, list[list[int]]]:
    """The model in `data`'s numbers with the plans in `cuts` cut off, and the column of each
    x[f, k]. DeadlineExceeded once `deadline` passes (building can outlast it)."""
    n, preds = len(app.functions), app.preds()
    m = LinearModel()
    x = []
    for f in range(n):
        deadline.check()
        x.append([m.add_col(data.cost[f][k], 0.0, 1.0) for k in range(len(cand[f]))])
    s_hi = max(data.budget, 0.0) if data.integral else INF
    s = [m.add_col(0.0, 0.0, s_hi, integer=data.integral) for _ in range(n)]
    for f in range(n):
        deadline.check()
        m.add_row(x[f], [1.0] * len(x[f]), 1.0, 1.0)
        m.add_row([s[f], *x[f]], [1.0, *data.lat[f]], hi=data.budget)
        for p in preds[f]:  # s[f] - s[p] - lat(p) >= 0
            m.add_row([s[f], s[p], *x[p]], [1.0, -1.0, *(-v for v in data.lat[p])], lo=0.0)
    for cut in cuts:  # no-good: not exactly this plan
        cols = [x[f][int(np.flatnonzero(cand[f] == cut[f])[0])] for f in range(n)]
        m.add_row(cols, [1.0] * n, hi=n - 1)
    return m, x


def decode(cand: Sequence[Any], x: list[list[int]], values: np.ndarray) -> list[int]:
    """The configuration per function of a solution (the largest x[f, k] of each f)."""
    return [int(cand[f][int(np.argmax(values[cols]))]) for f, cols in enumerate(x)]


def solve_plan(
    app: App,
    method: str,
    deadline: Deadline,
    cand: list[Any],
    data: Callable[[bool], PlanData],
    run: Callable[[LinearModel], MipOutcome],
    bound_of: Callable[[MipOutcome], float | None],
) -> SolveResult[Plan | None]:
    """The plan by `plan.bracket` over the relaxation (`data(True)`) and the restriction
    (`data(False)`), each built by `plan_model` and solved by `run`; `bound_of` maps a
    relaxation's outcome to a lower bound on the real optimum (None: none)."""
    t0 = time.perf_counter()
    check_model_size(cand)
    stats: dict[str, Any] = {"variables": sum(len(c) for c in cand) + len(cand)}

    def solve(relaxed: bool, cuts: list[list[int]]) -> tuple[MipOutcome, list[int] | None]:
        model, x = plan_model(app, cand, data(relaxed), cuts, deadline)
        out = run(model)
        stats.update({k: v for k, v in out.stats.items() if k.endswith("_status")})
        return out, None if out.x is None else decode(cand, x, out.x)

    def relax(cuts: list[list[int]]) -> Relaxed[list[int]]:
        out, choice = solve(True, cuts)
        if out.infeasible:
            return Relaxed(None, None, infeasible=True)
        return Relaxed(choice, bound_of(out), proven=out.proven)

    def restrict() -> list[int] | None:
        stats["restricted"] = True
        return solve(False, [])[1]

    got = bracket(relax, restrict, lambda c: choice_fits(app, c), deadline.passed)
    stats["cuts"] = got.cuts
    bound = got.bound if math.isfinite(got.bound) else None
    return result(app, got.choice, method, t0, exact=True, bound=bound,
                  proven_infeasible=got.infeasible, stats=stats)  # fmt: skip
