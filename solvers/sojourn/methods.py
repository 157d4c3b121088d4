"""`solve(inst, objective, method, ...)`: the one `schedlab.solvers.solve` for sojourn callers.

Methods register themselves in `schedlab.solvers.solve.METHODS` (scope "sojourn") where they
are defined, as `solve_<name>(problem: SojournProblem, *, deadline, seed, options)`; the
solution of every result is the order as a list of job ids.
"""

from __future__ import annotations

from typing import Any

from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve as solve_problem


def solve(
    inst: Instance,
    objective: Objective,
    method: str,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    **options: Any,
) -> SolveResult[list[str]]:
    """Solve `inst` for `objective` with the registered sojourn `method` and its options."""
    problem = SojournProblem(inst, objective)
    return solve_problem(problem, method, time_limit=time_limit, seed=seed, options=options)
