"""Exact plan of one application on a DAG by CP-SAT, in integer time units and scaled costs.

The model is `exact_model.plan_model` in integer numbers (`exact_model.cpsat_data`): times in
ticks of `time_unit_ms`, rounded down with the budget loosened by a float sum's rounding (the
relaxation: every plan that fits the real data is feasible in it) or up with it tightened (the
restriction: every plan feasible in it fits), costs in units of 1 / COST_TOP of the largest.
The bound handed to `certify` allows for the cost rounding: with n functions, the float optimum
is at least (integer bound - n) * largest / COST_TOP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from schedlab.solvers.esg.exact_model import COST_TOP, candidates, cpsat_data, solve_plan
from schedlab.solvers.esg.problem import APP_KINDS, App
from schedlab.solvers.kit.cpsat import solve_cp
from schedlab.solvers.kit.linear import LinearModel
from schedlab.solvers.kit.mip import MipOutcome
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed


@dataclass(frozen=True)
class CpsatOptions:
    pareto: bool = field(default=True, metadata={"help": "drop dominated configurations first"})
    num_workers: int = shared("num_workers")
    time_unit_ms: float = field(default=0.001, metadata={"help": "integer time unit (ms)"})


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
    lats, costs, cand = candidates(app, options.pareto)
    top = max(float(c.max()) for c in costs)  # 0 when every configuration is free
    n = len(cand)

    def run(model: LinearModel) -> MipOutcome:
        return solve_cp(model, num_workers=options.num_workers, seed=solver_seed(seed),
                        deadline=deadline)  # fmt: skip

    def bound_of(out: MipOutcome) -> float | None:
        if out.bound is None:
            return None
        ib = math.floor(out.bound)  # each rounded cost is off by <= 1/2
        return max(ib - n, 0) / COST_TOP * top

    return solve_plan(
        app, "cpsat", deadline, cand,
        lambda relaxed: cpsat_data(app, lats, costs, cand, options.time_unit_ms, relaxed),
        run, bound_of,
    )  # fmt: skip
