"""Sojourn's adapter to the linear-ordering engine (`solvers.lop.core`): objectives A and B.

For A and B, value(order) = sum_i c_i + sum_{a before b} W[a, b]: `solve_lop` builds (c, W)
from the instance and objective (`batch.linear_ordering_weights`), runs the engine's core on W
with the back end's block models (MILP, CP-SAT or lpcut), and turns its order and bound into
sojourn's result (job ids, the value evaluated on the instance, status by `certify`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.core import ModelFactory, check_triangles, solve_lop_matrix
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.sojourn.batch import evaluate_orders, linear_ordering_weights
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING, Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance
from schedlab.solvers.validate import Deadline, DeadlineExceeded, check_alloc

#: Memory the door reserves per job pair for the pairwise tables of solve_lop (W, its
#: transpose and differences, masks), in bytes.
PREP_BYTES_PER_PAIR = 64


def refuse_non_lop(objective: Objective, method: str) -> None:
    """Raise InvalidInput unless `objective` is a linear-ordering objective (A or B)."""
    if objective.kind not in LINEAR_ORDERING:
        raise InvalidInput(
            f"objective {objective.label}: {method} solves only the linear-ordering "
            "objectives A and B; use dp or brute for TK/DK"
        )


def solve_lop(
    inst: Instance,
    objective: Objective,
    method: str,
    factory: ModelFactory,
    *,
    deadline: Deadline,
    triangles: str = "lazy",
    decompose: bool = True,
    warm_start: bool = False,
    extra_stats: dict[str, Any] | None = None,
) -> SolveResult:
    """Exact A/B: blocks and the transitive shortcut (`decompose`), then the block models.

    `decompose=False, triangles="all"` is the plain triangle formulation on all n jobs. The
    time limit is `deadline`, the caller's (work done before counts against it too).
    """
    refuse_non_lop(objective, method)
    check_triangles(triangles, method)
    t0 = time.perf_counter()
    check_alloc(
        PREP_BYTES_PER_PAIR * float(inst.n) ** 2,
        f"the pairwise tables of {inst.n} jobs",
        fix="use a heuristic (e.g. --method batchlocal) or raise the budget",
    )
    try:
        return _solve_lop(
            inst,
            objective,
            method,
            factory,
            t0,
            deadline,
            triangles,
            decompose,
            warm_start,
            extra_stats,
        )
    except DeadlineExceeded:  # data preparation outlasted the limit: a cheap order, no proof
        ratio = inst.mean / np.maximum(inst.pi, 1e-300)
        order = [int(i) for i in np.argsort(ratio, kind="stable")]
        # the pruned node tables (certified to ~1e-14) value it ~8x faster than `evaluate`
        value = float(evaluate_orders(inst, np.array([order]), objective, check=False)[0])
        stats = {"stopped_while_preparing": True, **(extra_stats or {})}
        return finish(inst, method, order, value, 0.0, False, time.perf_counter() - t0, stats)


def _solve_lop(
    inst: Instance,
    objective: Objective,
    method: str,
    factory: ModelFactory,
    t0: float,
    deadline: Deadline,
    triangles: str,
    decompose: bool,
    warm_start: bool,
    extra_stats: dict[str, Any] | None,
) -> SolveResult:
    """The body of `solve_lop`; DeadlineExceeded while the pair costs are prepared."""
    c, W = linear_ordering_weights(inst, objective, deadline=deadline)
    core = solve_lop_matrix(
        W,
        factory,
        deadline=deadline,
        triangles=triangles,
        decompose=decompose,
        warm_start=warm_start,
        extra_stats=extra_stats,
        offset=float(c.sum()),
    )
    value = evaluate(inst, core.order, objective)
    bound = float(c.sum()) + core.bound
    return finish(
        inst, method, core.order, value, bound, core.proven, time.perf_counter() - t0, core.stats
    )


def finish(
    inst: Instance,
    method: str,
    order: list[int],
    value: float,
    bound: float,
    proven: bool,
    runtime_s: float,
    stats: dict[str, Any],
) -> SolveResult[list[str]]:
    """Status by `certify` with the one proof tolerance `PROOF_TOL` (the one status rule).

    `proven` (every block model closed) is recorded; a scaled CP-SAT proof alone is not
    enough, the converted bound has to meet the value too. A bound above the value by solver
    rounding (HiGHS and CBC stop within their own tolerances) is clamped and recorded as
    `bound_clamped`; a larger crossing is an unsound bound and gives status `error`.
    """
    stats = {**stats, "all_blocks_closed": bool(proven)}
    return solution_result(inst.ids_of(order), value, method, runtime_s, exact=True,
                           sense="min", bound=bound, stats=stats)  # fmt: skip
