"""The CP-SAT glue of every exact back end: one solver set up from the options every subject
names alike, and a `LinearModel` in integer units handed to it.

`cpsat_solver` sets the workers, the seed rule (`solver_seed`; None: CP-SAT's own), the time
left before the deadline (CP-SAT's one conversion) and the deterministic limit. `solve_cp`
writes a `LinearModel` whose bounds and coefficients are all integers as a CP-SAT model (one
variable per column, in column order) and reads what CP-SAT found as a `MipOutcome`: the
solution, CP-SAT's objective and its best bound, trusted only when it found a solution (CP-SAT
leaves the bound at 0 when it stops before presolve ends).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from schedlab.solvers.kit.linear import LinearModel
from schedlab.solvers.kit.mip import MipOutcome, outcome
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed


def cpsat_solver(
    *,
    num_workers: int,
    seed: int | None,
    deadline: Deadline,
    max_deterministic_time: float | None = None,
    floor: float = 0.01,
) -> Any:
    """A CP-SAT solver with `num_workers`, the seed rule (`solver_seed`; None: CP-SAT's own),
    the time left before `deadline` (CP-SAT's one conversion, at least `floor` seconds) and the
    deterministic limit when given."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    prm = solver.parameters
    prm.num_workers = num_workers
    if seed is not None:
        prm.random_seed = solver_seed(seed)
    left = deadline.remaining(floor=floor)
    if left is not None:
        prm.max_time_in_seconds = float(left)
    if max_deterministic_time is not None:
        prm.max_deterministic_time = float(max_deterministic_time)
    return solver


def _integer(v: float, what: str) -> int:
    if not (math.isfinite(v) and float(v).is_integer()):
        raise ValueError(f"CP-SAT takes integers only: {what} is {v!r}")
    return int(v)


def to_cpsat(model: LinearModel) -> tuple[Any, list[Any]]:
    """The CP-SAT model of `model` and its variables (column order); ValueError when a bound or
    coefficient is not an integer (infinite row sides are left out)."""
    from ortools.sat.python import cp_model

    md = cp_model.CpModel()
    xs = [
        md.new_int_var(_integer(lo, f"lower[{i}]"), _integer(hi, f"upper[{i}]"), "")
        for i, (lo, hi) in enumerate(zip(model.lower, model.upper, strict=True))
    ]
    for r, (cols, vals) in enumerate(model.rows()):
        expr = cp_model.LinearExpr.weighted_sum(
            [xs[c] for c in cols], [_integer(v, f"row {r}") for v in vals]
        )
        lo, hi = model.row_lower[r], model.row_upper[r]
        if lo == hi:
            md.add(expr == _integer(lo, f"row {r} side"))
        elif math.isinf(lo):
            md.add(expr <= _integer(hi, f"row {r} upper"))
        elif math.isinf(hi):
            md.add(expr >= _integer(lo, f"row {r} lower"))
        else:
            md.add_linear_constraint(expr, _integer(lo, f"row {r}"), _integer(hi, f"row {r}"))
    nz = [(xs[i], _integer(c, f"cost[{i}]")) for i, c in enumerate(model.cost) if c]
    obj = cp_model.LinearExpr.weighted_sum([v for v, _ in nz], [c for _, c in nz])
    if model.maximize:
        md.maximize(obj + _integer(model.offset, "offset"))
    else:
        md.minimize(obj + _integer(model.offset, "offset"))
    return md, xs


def solve_cp(
    model: LinearModel,
    *,
    num_workers: int,
    seed: int | None,
    deadline: Deadline = NO_DEADLINE,
    max_deterministic_time: float | None = None,
    hint: np.ndarray | None = None,
    params: Mapping[str, Any] | None = None,
    floor: float = 0.01,
) -> MipOutcome:
    """Solve the integer `model` with CP-SAT (`cpsat_solver`; `hint`: column values to start
    from; `params`: more CP-SAT parameters); x holds the exact integer values."""
    from ortools.sat.python import cp_model

    md, xs = to_cpsat(model)
    if hint is not None:
        for v, h in zip(xs, hint, strict=True):
            md.add_hint(v, int(h))
    solver = cpsat_solver(
        num_workers=num_workers,
        seed=seed,
        deadline=deadline,
        max_deterministic_time=max_deterministic_time,
        floor=floor,
    )
    for key, val in (params or {}).items():
        setattr(solver.parameters, key, val)
    code = solver.solve(md)
    stats = {
        "cpsat_status": solver.status_name(code),
        "branches": int(solver.num_branches),
        "conflicts": int(solver.num_conflicts),
        "wall_time_s": float(solver.wall_time),
        "deterministic_time": float(solver.deterministic_time),
    }
    has = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    x = np.asarray(solver.response_proto.solution, dtype=np.int64)[: len(xs)] if has else None
    value = float(solver.objective_value) if has else None
    bound = float(solver.best_objective_bound) if has else None
    return outcome(
        x, value, bound, model.maximize, proven=code == cp_model.OPTIMAL,
        infeasible=code == cp_model.INFEASIBLE, failed=code == cp_model.MODEL_INVALID,
        stats=stats,
    )  # fmt: skip
