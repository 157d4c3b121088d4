"""Exact plan of one application on a DAG by a MILP (HiGHS in process).

The model is `exact_model.plan_model` in float numbers (`exact_model.milp_data`): the
relaxation loosens the budget by LOOSE_REL, the restriction tightens it by more than HiGHS's
feasibility and integrality tolerances (1e-6) can add along a path, so that the plan HiGHS
returns, which can miss a row by a hair, is re-checked on the real data and either proven or cut
off (`plan.bracket`). The bound is HiGHS's MIP dual bound of the relaxation, in real cost units;
the status comes from `certify` (`plan.result`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedlab.solvers.esg.exact_model import candidates, milp_data, solve_plan
from schedlab.solvers.esg.problem import APP_KINDS, App
from schedlab.solvers.kit.linear import LinearModel
from schedlab.solvers.kit.mip import MipOutcome, solve_mip
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

#: The absolute gap asked of HiGHS, in the model's cost units (costs scaled to a total of 1).
GAP_ABS = 1e-12


@dataclass(frozen=True)
class MilpOptions:
    pareto: bool = field(default=True, metadata={"help": "drop dominated configurations first"})
    threads: int = shared("threads")


@register_method(
    "esg",
    "milp",
    exact=True,
    kinds=APP_KINDS,
    options=MilpOptions,
    summary="MILP on the DAG (HiGHS)",
)
def solve_milp(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: MilpOptions
) -> SolveResult:
    """Proven optimum (or infeasible) of the one-application plan, by HiGHS."""
    lats, costs, cand = candidates(app, options.pareto)
    scale = max(float(sum(c.max() for c in costs)), 1e-300)  # milp_data's costs sum to 1

    def run(model: LinearModel) -> MipOutcome:
        return solve_mip(model, solver="highs", deadline=deadline, threads=options.threads,
                         gap_abs=GAP_ABS)  # fmt: skip

    return solve_plan(
        app, "milp", deadline, cand,
        lambda relaxed: milp_data(app, lats, costs, cand, relaxed), run,
        lambda out: None if out.bound is None else out.bound * scale,
    )  # fmt: skip
