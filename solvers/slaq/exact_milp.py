"""Exact allocation by a MILP (PuLP with HiGHS or CBC), for both objectives.

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
found none); the bound is HiGHS's MIP dual bound (plus the objective's constant, which PuLP does
not hand over), or for CBC, which reports no bound through PuLP, its proven objective plus the
gap it may stop at, mapped back to real units. Both back ends are asked for an absolute gap of
`GAP` = PROOF_TOL / 10 of max(1, |value|) and no relative gap (HiGHS's defaults, 1e-6 absolute
and 1e-4 relative, let it stop short of a 1e-9 proof), HiGHS with feasibility tolerances 1e-9.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from schedlab.solvers.options import MilpSolver, shared
from schedlab.solvers.result import PROOF_TOL, SolveResult, certify
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


def _backend(options: MilpOptions, deadline: Deadline, gap: float, tight: bool) -> Any:
    """The PuLP back end, asked for absolute gap `gap` (model units) and no relative gap;
    HiGHS with `HIGHS_TOLERANCES` when `tight`."""
    import pulp

    kw: dict[str, Any] = dict(
        msg=False,
        timeLimit=deadline.remaining(floor=0.01),
        gapRel=0.0,
        gapAbs=gap,
        threads=options.threads,
    )
    if options.solver == "highs":
        return pulp.HiGHS(**kw, **(HIGHS_TOLERANCES if tight else {}))
    return pulp.PULP_CBC_CMD(**kw)


def _highs_failed(prob: Any) -> bool:
    """HiGHS declared a solve error (at 1e-10 it can reject its own solution: a primal
    infeasibility of exactly 1e-10 after a restart)."""
    import highspy

    model = getattr(prob, "solverModel", None)
    return model is not None and model.getModelStatus() == highspy.HighsModelStatus.kSolveError


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
    cert = certify(value, bound, "max")
    return SolveResult.certified(cert, alloc, "milp", time.perf_counter() - t0, stats)


def _solve_window(
    win: Window, free: int, objective: str, options: MilpOptions, deadline: Deadline
) -> WindowSolve:
    """The incremental MILP on the window values (see the module docstring)."""
    import pulp

    # model unit: the proof's scale max(1, |V0|) where the window is not much wider, so that
    # HiGHS's absolute tolerances (1e-10) sit below the proof tolerance in real units
    unit = max(win.span / MAX_RANGE, min(win.span, max(1.0, abs(win.incumbent_value))))
    prob = pulp.LpProblem("slaq", pulp.LpMaximize)
    y: dict[tuple[int, int], Any] = {}
    q_of = []
    for j, w in enumerate(win.tables):
        t = w * (win.span / unit)
        deadline.check()
        for k in range(1, free + 1):
            y[j, k] = pulp.LpVariable(f"y_{j}_{k}", cat=pulp.LpBinary)
        q_of.append(
            float(t[0]) + pulp.lpSum(float(t[k] - t[k - 1]) * y[j, k] for k in range(1, free + 1))
        )
    if objective == "sum":
        prob += pulp.lpSum(q_of)
    else:
        t_var = pulp.LpVariable("t", lowBound=-win.span / unit)
        prob += t_var
        for j, q in enumerate(q_of):
            prob += t_var <= q, f"min_{j}"
    for (j, k), v in y.items():
        if k < free:
            prob += v >= y[j, k + 1], f"prefix_{j}_{k}"
    prob += pulp.lpSum(y.values()) == free, "all_free_cores"
    # the gap asked of the back end, in model units: a tenth of the proof tolerance
    gap = GAP * max(1.0, abs(win.incumbent_value)) / unit
    prob.solve(_backend(options, deadline, gap, tight=True))
    stats = {}
    if options.solver == "highs" and _highs_failed(prob):  # once more at HiGHS's defaults
        prob.solve(_backend(options, deadline, gap, tight=False))
        stats["highs_default_tolerances"] = 1
    sol = prob.sol_status
    stats["sol_status"] = pulp.LpSolution[sol]
    extra = None
    found = None  # the model objective of the back end's solution (rounded to integers)
    if sol in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        extra = [
            sum(int(round(y[j, k].value() or 0.0)) for k in range(1, free + 1))
            for j in range(len(win.tables))
        ]
        found = table_value([w * (win.span / unit) for w in win.tables], extra, objective)
    bound = _bound(prob, options, sol == pulp.LpSolutionOptimal, gap, found)
    bound = None if bound is None else bound * (unit / win.span)  # in window units
    return WindowSolve(extra, bound, stats)


def _bound(
    prob: Any, options: MilpOptions, proven: bool, gap: float, found: float | None
) -> float | None:
    """A proven upper bound on the model's optimum (None when the back end gives none):
    HiGHS's MIP dual bound; else, after a proof, the best objective seen plus the gap."""
    import pulp

    const = float(prob.objective.constant)  # PuLP hands the back end no objective constant
    model = getattr(prob, "solverModel", None)
    if options.solver == "highs" and model is not None:
        b = float(model.getInfo().mip_dual_bound)
        if abs(b) < 1e30:
            return const - b  # PuLP hands HiGHS the negated objective
    if not proven or found is None:
        return None
    mine = pulp.value(prob.objective)  # the back end's own (within its integrality tolerance)
    return max(found, found if mine is None else float(mine)) + gap
