"""The registry of Synergy allocation methods and the `solve` entry point.

Every method is `solve_<name>(snap, *, time_limit=None, seed=None, **opts) -> SolveResult`;
its solution is the allocation as JSON (`solution_dict`), its value the total throughput.
"""

from __future__ import annotations

import importlib
from typing import Any

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.registry import MethodRegistry
from schedlab.solvers.result import SolveResult
from schedlab.solvers.synergy.model import Snapshot

SYNERGY_METHODS = MethodRegistry("synergy")

# Modules whose import registers methods (kept here so the registry is always complete).
_METHOD_MODULES = (
    "schedlab.solvers.synergy.heuristics",
    "schedlab.solvers.synergy.opt",
    "schedlab.solvers.synergy.exact_milp",
    "schedlab.solvers.synergy.exact_cpsat",
    "schedlab.solvers.synergy.exact_enum",
)


def load_methods() -> MethodRegistry:
    for mod in _METHOD_MODULES:
        importlib.import_module(mod)
    return SYNERGY_METHODS


def solve(
    snap: Snapshot,
    method: str,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    **opts: Any,
) -> SolveResult:
    """Allocate one round of `snap` with the registered `method`."""
    if time_limit is not None and not time_limit > 0:
        raise InvalidInput(f"time_limit: must be positive seconds (got {time_limit})")
    info = load_methods().get(method)
    result: SolveResult = info.func(snap, time_limit=time_limit, seed=seed, **opts)
    return result
