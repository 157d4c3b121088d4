"""The gap study's one cell function: build an instance, solve it with one method, keep the result.

Module-level and pure (it runs in worker processes and its rows are cached), and kept small:
its module is part of every cached cell's version (`versions.CELLS_MODULE`), so editing the
study's tables or plots recomputes nothing.

A cell names its instance by the generator's dotted path, its parameters (canonical JSON) and
its seed, and its method by name, options (canonical JSON) and time limit; the versions of the
generator and of the method complete its key (`cache.KEY_FIELDS`).
"""

from __future__ import annotations

import importlib
import json
import math
from typing import Any

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.solve import solve


def load_object(path: str) -> Any:
    """`package.module:qualname` -> the object."""
    module, _, qual = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def _scalar(x: Any) -> bool:
    if isinstance(x, bool | int | str) or x is None:
        return True
    return isinstance(x, float) and math.isfinite(x)


def scalar_stats(stats: dict[str, Any]) -> dict[str, Any]:
    """The solver counters that are JSON scalars (numpy scalars converted; others dropped)."""
    out = {}
    for k, v in stats.items():
        if hasattr(v, "item") and callable(v.item) and getattr(v, "shape", None) == ():
            v = v.item()
        if _scalar(v):
            out[str(k)] = v
    return out


def build_problem(cell: dict[str, Any]) -> Any:
    """The cell's instance: `generator(**params, seed=seed)`."""
    generator = load_object(cell["generator"])
    return generator(**json.loads(cell["params"]), seed=cell["seed"])


def solve_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """One (instance, method) cell -> status, value, bound, runtime and scalar stats.

    A method that refuses the instance (`InvalidInput`, e.g. an enumeration over its cap) gives
    status "error" with the reason: a recorded outcome, not a failed cell."""
    problem = build_problem(cell)
    try:
        res = solve(
            problem,
            cell["method"],
            time_limit=cell["time_limit"],
            seed=0,
            options=json.loads(cell["options"]),
        )
    except InvalidInput as exc:
        return {
            "status": "error",
            "value": None,
            "bound": None,
            "runtime_s": None,
            "problem_kind": problem.kind,
            "stats": {"error": str(exc)},
        }
    value = res.value if res.value is not None and math.isfinite(res.value) else None
    bound = res.bound if res.bound is not None and math.isfinite(res.bound) else None
    return {
        "status": res.status.value,
        "value": value,
        "bound": bound,
        "runtime_s": res.runtime_s,
        "problem_kind": problem.kind,
        "stats": scalar_stats(res.stats),
    }
