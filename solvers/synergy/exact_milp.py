"""Exact allocation by one MILP (HiGHS in process, or the CBC binary): configurations and placement.

The model is `exact_model.build_model` (variables, rows and the run-set rules there) in float
numbers (`exact_model.float_scales`), built as sparse columns and handed to HiGHS in process
(`kit.mip`), so the time limit covers building, hand-over and solving (PuLP's own row-by-row
hand-over took seconds at 2,000 servers and could not be interrupted). CBC reads the same
columns from an MPS file that HiGHS writes, and is killed shortly after the limit (it overruns
`-sec` in its root LP); only its "Optimal" status line is a proof. The bound is HiGHS's MIP
dual bound (CBC's: the value plus its allowed gap after a proof, else its log's bound) or the
relaxation over cluster-wide totals (always a valid upper bound), the tighter of the two. A
heuristic allocation (`hint`, see `start_point`) is the MIP start and the incumbent kept when
the solver finds nothing better within the limit. `max_nodes` is a work limit (HiGHS's
`mip_max_nodes`) that stops the solve at the same point on any machine: a solve it stops is
`feasible` (or `timeout` with no allocation) with the bound above, `optimal` only if that bound
proves it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.mip import MIP_ABS_GAP, solve_mip
from schedlab.solvers.options import MilpSolver, shared
from schedlab.solvers.result import PROOF_TOL, SolveResult, solution_result
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocation import Allocation, total_tput
from schedlab.solvers.synergy.exact_model import (
    RUN_SET_HELP,
    Counts,
    ExactStructure,
    ModelColumns,
    MultiChoice,
    RunSet,
    bound_and_start,
    build_model,
    build_structure,
    decode,
    decode_columns,
    float_scales,
    nothing_runs,
    relaxation_bound,
    start_vector,
    valid,
)
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import certified_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline, DeadlineExceeded

#: Absolute gap CBC may stop at (its "Optimal" proves no better allocation beyond it): a tenth
#: of the proof tolerance, so that the value plus it still proves optimality.
CBC_GAP = PROOF_TOL / 10


@dataclass(frozen=True)
class MilpOptions:
    """Options of the exact MILP."""

    solver: MilpSolver = shared("solver")
    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    threads: int = shared("threads")
    relaxation_cut: bool = field(
        default=True, metadata={"help": "cap the objective by the cluster-totals relaxation"}
    )
    hint: bool = shared("hint")  # OPT, or TUNE under a time limit (`start_point`)
    max_nodes: int | None = field(
        default=None,
        metadata={
            "help": "HiGHS work limit: stop after this many branch-and-bound nodes (0: before "
            "the root node's search), the same stop on any machine; unset: no limit",
            "range": (0, 2**31 - 1),
        },
    )


def build_milp(
    st: ExactStructure, *, cut: float | None = None, deadline: Deadline = NO_DEADLINE
) -> ModelColumns:
    """The model in the MILP's numbers; `cut` a proven upper bound on the objective."""
    return build_model(st, float_scales(st), cut=cut, deadline=deadline)


@register_method(
    "synergy",
    "milp",
    exact=True,
    options=MilpOptions,
    summary="exact MILP (HiGHS or CBC): configurations + placement",
)
def solve_milp(
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: MilpOptions,
) -> SolveResult[Allocation | None]:
    """Exact optimum of the round (status, value, and a proven upper bound).

    With `relaxation_cut`, the optimum over cluster-wide totals (`relaxation_bound`, a proven
    upper bound) caps the objective, and a solution reaching it is optimal by that proof. With
    `hint`, a heuristic allocation (`start_point`) is the MIP start and the incumbent returned
    if the solver finds nothing better in time."""
    o = options
    if o.max_nodes is not None and o.solver != "highs":
        raise InvalidInput("max_nodes: a HiGHS work limit; use solver highs or leave it unset")
    t0 = time.perf_counter()
    st = build_structure(snap, o.run_set)
    stats: dict[str, Any] = {"solver": o.solver, "run_set": o.run_set}
    if nothing_runs(st):  # the empty allocation is the only one: optimal
        return certified_result(
            snap, decode(st, {}, {}), "milp", time.perf_counter() - t0, 0.0, stats=stats
        )
    rel, start = bound_and_start(st, o.relaxation_cut, o.hint, deadline, stats)
    try:
        mc = build_milp(st, cut=rel, deadline=deadline)
        found, bound = _run(st, mc, o, deadline, start, stats)
    except DeadlineExceeded:  # the limit passed while building: the incumbent, unproven
        stats["stopped_while_building"] = True
        found, bound = None, None
    if found is not None and not valid(st, found):  # within the solver's tolerances only
        stats["solver_solution_invalid"] = True
        found = None
    bound = _tightest(bound, rel, st, stats)
    alloc = _best(st, found, start)
    runtime = time.perf_counter() - t0
    if alloc is None:
        return solution_result(None, None, "milp", runtime, exact=True, sense="max", bound=bound,
                               infeasible=bool(stats.get("infeasible")), stats=stats)  # fmt: skip
    return certified_result(snap, alloc, "milp", runtime, bound, stats=stats)


def _best(
    st: ExactStructure, found: Allocation | None, start: tuple[Counts, MultiChoice] | None
) -> Allocation | None:
    """The better of the solver's allocation and the start incumbent (None if neither)."""
    cands = [a for a in (found, None if start is None else decode(st, *start)) if a is not None]
    return max(cands, key=lambda a: total_tput(st.snap, a), default=None)


def _run(
    st: ExactStructure,
    mc: ModelColumns,
    o: MilpOptions,
    deadline: Deadline,
    start: tuple[Counts, MultiChoice] | None,
    stats: dict[str, Any],
) -> tuple[Allocation | None, float | None]:
    """Solve with HiGHS in process (with the start as MIP start) or the CBC binary: (its
    allocation or None, a proven bound or None)."""
    x0 = None if start is None or o.solver == "cbc" else start_vector(mc, *start)
    gap = CBC_GAP if o.solver == "cbc" else MIP_ABS_GAP
    work = None if o.max_nodes is None else {"mip_max_nodes": int(o.max_nodes)}
    out = solve_mip(mc.model, solver=o.solver, deadline=deadline, start=x0, threads=o.threads,
                    gap_abs=gap, options=work)  # fmt: skip
    stats.update(out.stats)
    stats.update(variables=mc.model.n_cols, constraints=mc.model.n_rows)
    if out.infeasible:
        stats["infeasible"] = True
    if out.x is None:
        return None, out.bound
    if out.bound is not None:
        stats["bound_source"] = "highs_mip_dual_bound" if o.solver == "highs" else "cbc"
    return decode_columns(st, mc, out.x), out.bound


def _tightest(
    bound: float | None, rel: float | None, st: ExactStructure, stats: dict[str, Any]
) -> float | None:
    """The tighter of the solver's proven bound and the cluster-totals relaxation (computed
    when neither is at hand): always a valid upper bound; `certify` then decides."""
    if rel is None and bound is None:
        rel = relaxation_bound(st)
    if rel is not None and (bound is None or rel < bound):
        stats["bound_source"] = "cluster_totals_relaxation"
        return rel
    return bound
