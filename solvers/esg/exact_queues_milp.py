"""Exact plans of many queues by a MILP (HiGHS): most queues served, then least cost.

The model is `queues_model.queues_model` in float numbers (`queues_model.milp_data`); the
lexicographic objective takes two solves of it: max sum y, then min cost subject to sum y >=
the first optimum. Re-checked, cut and bracketed as the module doc of `queues_model` says.
The bound, in the plan's value units (misses + cost / cost_ref), is the misses the first solve
cannot avoid plus, when it proved them, the second solve's dual bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from schedlab.solvers.esg.plan import Relaxed
from schedlab.solvers.esg.problem_queues import Choice, QueuesProblem
from schedlab.solvers.esg.queues_model import (
    Key,
    QueuesData,
    decode,
    milp_data,
    model_index,
    queues_model,
    solve_queues,
)
from schedlab.solvers.kit.mip import solve_mip
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

#: The absolute gap asked of HiGHS in both solves (hits are integers; costs scaled below 1/2).
GAP_ABS = 1e-9


@dataclass(frozen=True)
class QMilpOptions:
    prune: bool = field(default=True, metadata={"help": "drop dominated / unusable configs"})
    threads: int = shared("threads")


def _lexicographic(
    problem: QueuesProblem,
    idx: list[Key],
    data: QueuesData,
    cuts: list[list[Choice]],
    deadline: Deadline,
    threads: int,
    stats: dict[str, Any],
) -> Relaxed[list[Choice]]:
    """Both solves on the model in `data`'s numbers with the plans in `cuts` cut off."""
    model, y = queues_model(problem, idx, data, cuts, deadline)
    nq, tabs = len(problem.queues), problem.tables()
    kw: dict[str, Any] = dict(solver="highs", threads=threads, gap_abs=GAP_ABS)
    for q in y:
        model.cost[q] = 1.0
    model.maximize = True
    first = solve_mip(model, deadline=deadline, **kw)  # building counts against the limit
    stats["phase1"] = first.stats.get("highs_status")
    if first.x is None:  # every queue may miss: no plan means the time ran out
        return Relaxed(None, None)
    on = first.x
    hits = round(float(sum(first.x[q] for q in y)))
    hits_ub = hits
    if not first.proven:
        hits_ub = nq if first.bound is None else min(nq, math.floor(first.bound + 1e-6))
    model.add_row(y, [1.0] * nq, lo=hits)  # keep the hits
    scale = 1.0 / problem.cost_ref()
    model.cost = [float(tabs[q][s].cost[k]) * scale for q, s, k, _ in idx] + [0.0] * nq
    model.maximize = False
    second = solve_mip(model, deadline=deadline, **kw)
    stats["phase2"] = second.stats.get("highs_status")
    if second.x is not None:
        on = second.x
    if hits_ub > hits:
        bound = float(nq - hits_ub)
    else:
        b2 = 0.0 if second.bound is None else second.bound
        bound = float(nq - hits) + max(b2, 0.0)
    return Relaxed(decode(problem, idx, on), bound, proven=first.proven and second.proven)


@register_method(
    "esg", "q_milp", exact=True, kinds=("queues",), options=QMilpOptions,
    summary="many queues: MILP, max hits then min cost (HiGHS, two solves)",
)  # fmt: skip
def solve_q_milp(
    problem: QueuesProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: QMilpOptions,
) -> SolveResult:
    """Lexicographic optimum by two MILP solves (hits, then cost with the hits held)."""
    t0 = time.perf_counter()
    idx = model_index(problem, options.prune)
    stats: dict[str, Any] = {"variables": len(idx) + len(problem.queues)}

    def run(relaxed: bool, cuts: list[list[Choice]]) -> Relaxed[list[Choice]]:
        data = milp_data(problem, idx, relaxed)
        return _lexicographic(problem, idx, data, cuts, deadline, options.threads, stats)

    return solve_queues(problem, "q_milp", t0, deadline, run, stats)
