"""The gap study's one cell function: build an instance, solve it with one method, keep the result.

Module-level and pure (it runs in worker processes and its rows are cached), and kept small:
its module is part of every cached cell's version (`versions.CELLS_MODULE`), so editing the
study's tables or plots recomputes nothing.

A cell names its instances by the generator's dotted path, its parameters (canonical JSON) and
their seeds (a JSON list), and its method by name, options (canonical JSON) and time limit; the
versions of the generator and of the method complete its key (`cache.KEY_FIELDS`).
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


def build_problem(cell: dict[str, Any], seed: int) -> Any:
    """Instance `seed` of the cell: `generator(**params, seed=seed)`."""
    generator = load_object(cell["generator"])
    return generator(**json.loads(cell["params"]), seed=seed)


def solve_one(cell: dict[str, Any], seed: int) -> dict[str, Any]:
    """The cell's method on instance `seed` -> status, value, bound, runtime and scalar stats.

    A method that refuses the instance (`InvalidInput`, e.g. an enumeration over its cap) gives
    status "error" with the reason: a recorded outcome, not a failed cell."""
    problem = build_problem(cell, seed)
    try:
        res = solve(
            problem,
            cell["method"],
            time_limit=cell["time_limit"],
            seed=0,
            options=json.loads(cell["options"]),
        )
    except InvalidInput as exc:
        return {"status": "error", "value": None, "bound": None, "runtime_s": None,
                "problem_kind": problem.kind, "stats": {"error": str(exc)}}  # fmt: skip
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


def solve_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """One cell: its method on each instance of `cell["seeds"]` (a JSON list: one instance for
    an exact method, a chunk of a rung's instances for a heuristic, whose solves take
    microseconds to milliseconds and would otherwise cost more in cell overhead)."""
    return {"results": [solve_one(cell, s) for s in json.loads(cell["seeds"])]}
