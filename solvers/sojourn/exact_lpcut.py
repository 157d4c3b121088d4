"""`lpcut` on sojourn's objectives A and B: the linear-ordering engine's lpcut (`solvers.lop.lpcut`)
on the pair costs of the instance (`sojourn.lop.solve_lop`), registered as a sojourn method."""

from __future__ import annotations

import time
from dataclasses import replace

from schedlab.solvers.lop.lpcut.model import lpcut_factory
from schedlab.solvers.lop.lpcut.options import LpcutOptions, lpcut_stats
from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.lop import refuse_non_lop, solve_lop
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING
from schedlab.solvers.sojourn.problem import SUBJECT, SojournProblem
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


@register_method(
    SUBJECT,
    "lpcut",
    exact=True,
    kinds=LINEAR_ORDERING,
    options=LpcutOptions,
    summary="HiGHS: per block the cycle packing, triangle LP rounds or the full triangle model "
    "(chosen from the block), A and B",
)
def solve_lpcut(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: LpcutOptions,
) -> SolveResult[list[str]]:
    """Exact A or B: per block the route `pick_route` chooses, a sound bound, then the MIP."""
    inst, objective = problem.instance, problem.objective
    refuse_non_lop(objective, "lpcut")
    t0 = time.perf_counter()
    res = solve_lop(
        inst,
        objective,
        "lpcut",
        lpcut_factory(options, seed),
        deadline=deadline,
        triangles="separate",
        decompose=options.decompose,
        warm_start=options.hint,
        extra_stats=lpcut_stats(options),
    )
    return replace(res, runtime_s=time.perf_counter() - t0)
