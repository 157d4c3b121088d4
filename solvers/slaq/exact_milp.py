"""Exact allocation by a MILP (HiGHS in process, or the CBC binary), for both objectives.

y[j, k] = 1 when old job j gets its k-th free core (k = 1..R), y[j, k] >= y[j, k + 1], and
sum_jk y[j, k] = R (every free core given); job j's quality is Q_j(base_j) + sum_k g_jk y[j, k]
with gains g_jk = Q_j(base_j + k) - Q_j(base_j + k - 1). Sum: max sum_j of it; max-min: max t
with t <= it for every j. Q_j need not be concave (the chain constraints keep each job's cores
a prefix); when every Q_j is concave the LP relaxation is already integral, which is why this
incremental model beats a one-hot choice of counts here.
The model is built on the window values of `exact_model` (qualities clipped to where an optimum
can lie, shifted and scaled to order 1), so HiGHS's absolute tolerances act on numbers of order
1 whatever the fitted qualities' magnitudes (qualities of 1e87 next to 1.2 once made HiGHS
prove a wrong optimum, and PuLP crash reading it back).
The status comes from `certify` with the one `PROOF_TOL`: the value is recomputed from the
decoded allocation (or the heuristic one that set the window, when it is better or the back end
found none); the bound is HiGHS's MIP dual bound, or for CBC its proven objective plus the gap
it may stop at (a stopped CBC: the bound its log prints), mapped back to real units. Both back
ends are asked for an absolute gap of `GAP` = PROOF_TOL / 10 of max(1, |value|) and no
relative gap (HiGHS's defaults, 1e-6 absolute and 1e-4 relative, let it stop short of a 1e-9
proof), HiGHS with feasibility tolerances 1e-10.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

from schedlab.solvers.kit.linear import INF, LinearModel
from schedlab.solvers.kit.mip import solve_mip
from schedlab.solvers.options import MilpSolver, shared
from schedlab.solvers.result import PROOF_TOL, SolveResult, solution_result
from schedlab.solvers.slaq.exact_model import Window, WindowSolve, solve_by_windows, table_value
from schedlab.solvers.slaq.heuristics import allocation_of
from schedlab.solvers.slaq.problem import Allocation, Snapshot
from schedlab.solvers.slaq.quality import quality_model
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


@dataclass(frozen=True)
class MilpOptions:
    solver: MilpSolver = shared("solver")
    threads: int = shared("threads")


#: The MIP gap asked of the back end, relative to max(1, |value|): a tenth of the proof tolerance.
GAP = PROOF_TOL / 10
#: HiGHS's feasibility tolerances (defaults 1e-7 and 1e-6; 1e-10 is the least it takes). A
#: solution of the window model that HiGHS accepts with integrality violation d can gain d times
#: the window's span in real units, so d must be far below the proof tolerance.
HIGHS_TOLERANCES = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
    "mip_feasibility_tolerance": 1e-10,
}
#: The model's numbers span at most this many units (a wider window is coarser in units).
MAX_RANGE = 1e6


@register_method(
    "slaq",
    "milp",
    exact=True,
    options=MilpOptions,
    summary="exact MILP (PuLP; HiGHS or CBC), incremental core variables, both objectives",
)
def solve_milp(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: MilpOptions = MilpOptions(),
) -> SolveResult[Allocation | None]:
    """Exact optimum of the snapshot's objective over integer core counts."""

    t0 = time.perf_counter()
    qm = quality_model(snap)
    qm.check_size(1024, "milp")  # PuLP: about 1 KiB per variable and its constraint
    tables, free = qm.tables(), qm.free
    stats: dict[str, Any] = {"solver": options.solver, "variables": len(tables) * free}
    if not tables or not free:  # one allocation: proven by exhaustion
        extra: list[int] = [0] * len(tables)
        bound: float | None = table_value(tables, extra, snap.objective)
    else:
        extra, bound, more = solve_by_windows(
            tables,
            free,
            snap.objective,
            lambda win: _solve_window(win, free, snap.objective, options, deadline),
            deadline.passed,
        )
        stats.update(more)
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    return solution_result(alloc, value, "milp", time.perf_counter() - t0, exact=True,
                           sense="max", bound=bound, stats=stats)  # fmt: skip


def _window_model(
    win: Window, free: int, objective: str, unit: float, deadline: Deadline
) -> LinearModel:
    """The incremental MILP on the window values in model units (see the module docstring)."""
    m = LinearModel(maximize=True)
    y: list[list[int]] = []
    floors = []
    for w in win.tables:
        deadline.check()
        t = w * (win.span / unit)
        gains = [float(t[k] - t[k - 1]) for k in range(1, free + 1)]
        y.append([m.add_col(g if objective == "sum" else 0.0, 0.0, 1.0) for g in gains])
        floors.append((float(t[0]), gains))
    if objective == "sum":
        m.offset = sum(f for f, _ in floors)
    else:  # max t with t <= q_j = floor_j + sum gains y for every j
        t_col = m.add_col(1.0, -win.span / unit, INF, integer=False)
        for (f, gains), cols in zip(floors, y, strict=True):
            m.add_row([t_col, *cols], [1.0, *(-g for g in gains)], hi=f)
    for cols in y:  # each job's cores a prefix
        for a, b in itertools.pairwise(cols):
            m.add_row([a, b], [1.0, -1.0], lo=0.0)
    every = [c for cols in y for c in cols]
    m.add_row(every, [1.0] * len(every), float(free), float(free))
    return m


def _solve_window(
    win: Window, free: int, objective: str, options: MilpOptions, deadline: Deadline
) -> WindowSolve:
    """The incremental MILP on the window values, solved by the kit (`kit.mip.solve_mip`)."""
    # model unit: the proof's scale max(1, |V0|) where the window is not much wider, so that
    # HiGHS's absolute tolerances (1e-10) sit below the proof tolerance in real units
    unit = max(win.span / MAX_RANGE, min(win.span, max(1.0, abs(win.incumbent_value))))
    model = _window_model(win, free, objective, unit, deadline)
    # the gap asked of the back end, in model units: a tenth of the proof tolerance
    gap = GAP * max(1.0, abs(win.incumbent_value)) / unit
    kw: dict[str, Any] = dict(solver=options.solver, deadline=deadline, threads=options.threads,
                              gap_abs=gap, gap_rel=0.0)  # fmt: skip
    out = solve_mip(model, options=HIGHS_TOLERANCES, **kw)
    stats: dict[str, Any] = {}
    if out.stats.get("solve_error"):  # once more at HiGHS's defaults
        out = solve_mip(model, **kw)
        stats["highs_default_tolerances"] = 1
    stats["solver_status"] = out.stats.get("highs_status") or out.stats.get("cbc_status")
    extra = found = None  # found: the model objective of the solution (rounded to integers)
    if out.x is not None:
        n = len(win.tables)
        extra = [int(round(float(out.x[j * free : (j + 1) * free].sum()))) for j in range(n)]
        found = table_value([w * (win.span / unit) for w in win.tables], extra, objective)
    bound = out.bound
    if bound is not None and found is not None and out.proven and options.solver == "cbc":
        bound = max(bound, found + gap)  # CBC's proof is about its own (unrounded) objective
    bound = None if bound is None else bound * (unit / win.span)  # in window units
    return WindowSolve(extra, bound, stats)
