"""Exact plan of one application on a DAG by a MILP (PuLP + HiGHS).

Variables: x[f, k] = 1 when function f runs configuration k (one per function), s[f] >= 0 its
start time. Precedence: s[v] >= s[u] + lat(u) for every edge; SLO: s[f] + lat(f) <= B' for
every f. Objective: total per-request cost, scaled to O(1) so that the solver's tolerances
mean something (costs are ~1e-6). Configurations dominated in (latency, cost) are dropped
first (that keeps an optimum). Status from `prob.sol_status` and `certify`.

HiGHS accepts a row violated by up to its feasibility tolerance (1e-6) and a binary off by up to
1e-6, so the plan it returns can miss the budget by a hair. Two models bracket the real problem
(a plan fits when its latency <= B = budget + LAT_TOL, `problem.fits_budget`):
- the relaxation, B' = B + LOOSE_REL * max(1, B): every plan that fits the real data fits it
  (LOOSE_REL covers the float rounding of a plan's latency), so its dual bound is a lower bound
  on the real optimum and its infeasibility proves that no plan fits. Its plan is re-checked on
  the real data: when it fits, it is the real optimum; when not, a no-good cut removes exactly
  that plan (which does not fit: the model stays a relaxation) and it is solved again
  (`plan.bracket`, at most `plan.MAX_CUTS` cuts);
- the restriction, B' = B - TIGHT_REL * (n + 1) * max(1, B) (n functions): more than what the
  tolerances can add along a path of n functions, so its plan fits the real data (re-checked).
  Solved only when the cuts run out or a time-limited relaxation returned a plan that does not
  fit; its plan is then `feasible` with the relaxation's bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.plan import Relaxed, bracket, choice_fits, result
from schedlab.solvers.esg.problem import APP_KINDS, App, budget_limit
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc


@dataclass(frozen=True)
class MilpOptions:
    pareto: bool = field(default=True, metadata={"help": "drop dominated configurations first"})
    threads: int = shared("threads")


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


#: Loosening of the relaxation's budget, relative to max(1, B).
LOOSE_REL = 1e-9
#: Tightening of the restriction's budget, relative to (n + 1) * max(1, B): 10x what HiGHS's
#: feasibility and integrality tolerances (1e-6) can add to a plan's latency per function.
TIGHT_REL = 1e-5


def highs_bound(prob: Any) -> float:
    """HiGHS's dual bound of the last solve (nan when it has none)."""
    model = getattr(prob, "solverModel", None)
    b = float(model.getInfo().mip_dual_bound) if model is not None else float("nan")
    return b if math.isfinite(b) and abs(b) < 1e30 else float("nan")


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
    limit = budget_limit(app.budget)
    stats: dict[str, Any] = {"variables": sum(len(c) for c in cand) + n}

    def model(budget: float, cuts: list[list[int]]) -> tuple[Any, dict[tuple[int, int], Any]]:
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
            prob += s[f] + lat_expr[f] <= budget, f"slo_{f}"
            for p in preds[f]:
                prob += s[f] >= s[p] + lat_expr[p], f"prec_{p}_{f}"
        for i, cut in enumerate(cuts):  # no-good: not exactly this plan
            pos = [int(np.flatnonzero(cand[f] == cut[f])[0]) for f in range(n)]
            prob += pulp.lpSum(x[f, pos[f]] for f in range(n)) <= n - 1, f"cut_{i}"
        return prob, x

    def run(budget: float, cuts: list[list[int]]) -> tuple[int, Any, list[int] | None]:
        prob, x = model(budget, cuts)
        backend = pulp.HiGHS(
            msg=False,
            timeLimit=deadline.remaining(floor=0.01),
            gapRel=0.0,
            gapAbs=1e-12,
            threads=options.threads,
        )
        prob.solve(backend)
        sol = prob.sol_status
        stats["sol_status"] = pulp.LpSolution[sol]
        if sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
            return sol, prob, None
        choice = [
            int(cand[f][int(np.argmax([x[f, k].value() or 0.0 for k in range(len(cand[f]))]))])
            for f in range(n)
        ]
        return sol, prob, choice

    def relax(cuts: list[list[int]]) -> Relaxed[list[int]]:
        sol, prob, choice = run(limit + LOOSE_REL * max(1.0, limit), cuts)
        if sol == pulp.LpSolutionInfeasible:
            return Relaxed(None, None, infeasible=True)
        b = highs_bound(prob)
        if math.isnan(b) and sol == pulp.LpSolutionOptimal:
            b = float(pulp.value(prob.objective))
        bound = None if math.isnan(b) else b / scale
        return Relaxed(choice, bound, proven=sol == pulp.LpSolutionOptimal)

    def restrict() -> list[int] | None:
        stats["restricted"] = True
        budget = limit - TIGHT_REL * (n + 1) * max(1.0, limit)
        return run(budget, [])[2] if budget >= 0 else None

    out = bracket(relax, restrict, lambda c: choice_fits(app, c), deadline.passed)
    stats["cuts"] = out.cuts
    bound = out.bound if math.isfinite(out.bound) else None
    if out.choice is None:
        return result(
            app, None, "milp", t0, exact=True, bound=bound, proven_infeasible=out.infeasible,
            stats=stats,
        )  # fmt: skip
    return result(app, out.choice, "milp", t0, exact=True, bound=out.bound, stats=stats)
