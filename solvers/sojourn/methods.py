"""The registry of sojourn solve methods and the `solve` entry point.

Every method is `solve_<name>(inst, objective, *, time_limit=None, seed=None, **opts)`
returning a SolveResult whose solution is the order as a list of job ids.
"""

from __future__ import annotations

import importlib
from typing import Any

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.registry import MethodRegistry
from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.instance import Instance
from schedlab.solvers.sojourn.objectives import Objective

SOJOURN_METHODS = MethodRegistry("sojourn")

# Modules whose import registers methods (kept here so the registry is always complete).
_METHOD_MODULES = (
    "schedlab.solvers.sojourn.heuristics",
    "schedlab.solvers.sojourn.exact_enum",
    "schedlab.solvers.sojourn.milp",
    "schedlab.solvers.sojourn.cpsat",
    "schedlab.solvers.sojourn.batchlocal",
)


def load_methods() -> MethodRegistry:
    for mod in _METHOD_MODULES:
        importlib.import_module(mod)
    return SOJOURN_METHODS


def solve(
    inst: Instance,
    objective: Objective,
    method: str,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    **opts: Any,
) -> SolveResult:
    """Solve `inst` for `objective` with the registered `method`."""
    if time_limit is not None and not time_limit > 0:
        raise InvalidInput(f"time_limit: must be positive seconds (got {time_limit})")
    objective.check_for(inst)
    info = load_methods().get(method)
    return info.func(inst, objective, time_limit=time_limit, seed=seed, **opts)
