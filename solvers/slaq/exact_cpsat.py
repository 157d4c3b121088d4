"""Exact allocation by CP-SAT over integer-scaled qualities, for both objectives.

e_j in [0, R] free cores of old job j (sum e_j = R); q_j = ceil(S w_j(e_j)) through an element
constraint, where w_j are the window values of `exact_model` (the qualities clipped to where an
optimum can lie, shifted and scaled into [-2, 1]); maximize sum q_j or min q_j. Scaling:
S = `resolution` / 2 (at most 2^61 / n, so that CP-SAT's sums fit 64 bits). Values are rounded
*up* and the window only raises qualities, so the scaled model is a relaxation of the real one:
CP-SAT's bound / S, mapped back to real units, is a proven upper bound on the real optimum. The
value is the real objective of the decoded allocation (qualities from the snapshot, not the
rounded ones), and `certify` decides with the one `PROOF_TOL`: "optimal" only when that value
meets the bound, i.e. when the rounding (at most n / S window units for the sum, 1 / S for
max-min: `stats.rounding_slack` in real units) cannot hide a better allocation. A coarse
`resolution` therefore gives `feasible` with the sound bound, never "optimal" for the rounded
model only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.kit.cpsat import cpsat_solver
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.slaq.exact_model import Window, WindowSolve, solve_by_windows, table_value
from schedlab.solvers.slaq.heuristics import allocation_of
from schedlab.solvers.slaq.problem import Allocation, Snapshot
from schedlab.solvers.slaq.quality import quality_model
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

#: Default integer scale of the window values: 2^40, so the rounding (n / S for the sum) stays
#: far below PROOF_TOL for any snapshot CP-SAT can solve (1e8 could not prove 1e-9).
RESOLUTION = float(2**40)
#: CP-SAT's linear sums must fit 64 bits: n scaled qualities of at most 2^61 / n each.
MAX_SUM = float(2**61)


def rounded_up(table: np.ndarray, scale: float) -> list[int]:
    """ceil(scale * Q) for each Q of the table; one more where the float product rounded down
    onto an integer below it (k / scale < Q)."""
    k = np.ceil(table * scale)
    k += k / scale < table
    return [int(v) for v in k]


@dataclass(frozen=True)
class CpsatOptions:
    num_workers: int = shared("num_workers")
    resolution: float = field(
        default=RESOLUTION,
        metadata={"help": "integer scale of the qualities' window", "range": (1.0, 1e15)},
    )
    max_deterministic_time: float | None = shared("max_deterministic_time")


@register_method(
    "slaq",
    "cpsat",
    exact=True,
    options=CpsatOptions,
    summary="exact CP-SAT over integer-scaled qualities (element constraints), both objectives",
)
def solve_cpsat(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: CpsatOptions = CpsatOptions(),
) -> SolveResult[Allocation | None]:
    """Optimum of the snapshot's objective: a relaxation with qualities rounded up to integers,
    the real value of its allocation, and `certify` on that value and the relaxation's bound."""
    t0 = time.perf_counter()
    qm = quality_model(snap)
    qm.check_size(256, "cpsat")  # Python ints of the element tables and CP-SAT's copy
    tables, free, n = qm.tables(), qm.free, len(qm.old)
    # window values lie in [-2, 1]; CP-SAT's sums of n of them must fit 64 bits
    scale = min(options.resolution, MAX_SUM / max(n, 1)) / 2.0
    stats: dict[str, Any] = {"scale": scale, "branches": 0}
    if not tables or not free:  # one allocation: proven by exhaustion
        extra: list[int] = [0] * len(tables)
        bound: float | None = table_value(tables, extra, snap.objective)
    else:
        extra, bound, more = solve_by_windows(
            tables,
            free,
            snap.objective,
            lambda win: _solve_window(
                win, free, snap.objective, scale, options, seed, stats, deadline
            ),
            deadline.passed,
        )
        stats.update(more)
        slack = (n if snap.objective == "sum" else 1) / scale
        stats["rounding_slack"] = slack * stats["window_span"]  # in real units
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    return solution_result(alloc, value, "cpsat", time.perf_counter() - t0, exact=True,
                           sense="max", bound=bound, stats=stats)  # fmt: skip


def _solve_window(
    win: Window,
    free: int,
    objective: str,
    scale: float,
    options: CpsatOptions,
    seed: int | None,
    stats: dict[str, Any],
    deadline: Deadline,
) -> WindowSolve:
    """CP-SAT on the window values rounded up to integers (a relaxation of the window model)."""
    from ortools.sat.python import cp_model

    md = cp_model.CpModel()
    n = len(win.tables)
    e = [md.new_int_var(0, free, f"e_{j}") for j in range(n)]
    q, lo, hi = [], 0, 0
    for j, t in enumerate(win.tables):
        deadline.check()
        ints = rounded_up(t, scale)
        lo, hi = (min(ints), max(ints)) if j == 0 else (min(lo, *ints), max(hi, *ints))
        qj = md.new_int_var(min(ints), max(ints), f"q_{j}")
        md.add_element(e[j], ints, qj)
        q.append(qj)
    md.add(sum(e) == free)
    if objective == "sum":
        md.maximize(sum(q))
    else:
        t_var = md.new_int_var(lo, hi, "t")
        md.add_min_equality(t_var, q)
        md.maximize(t_var)
    solver = cpsat_solver(
        num_workers=options.num_workers,
        seed=seed,
        deadline=deadline,
        max_deterministic_time=options.max_deterministic_time,
    )
    code = solver.solve(md)
    stats["cpsat_status"] = solver.status_name(code)
    stats["branches"] += solver.num_branches
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return WindowSolve(None, None)
    # rounded up: the bound / S bounds the window model, hence (see exact_model) the real
    # optimum, up to the float rounding of this division (far inside what `certify` clamps)
    return WindowSolve(
        [int(solver.value(v)) for v in e], float(solver.best_objective_bound) / scale
    )
