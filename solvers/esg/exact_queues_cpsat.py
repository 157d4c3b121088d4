"""Exact plans of many queues by CP-SAT: most queues served, then least cost, in one objective.

The model is `queues_model.queues_model` in integer numbers (`queues_model.cpsat_data`); the
objective misses * W + scaled cost with W = 1 + the largest total scaled cost, so a miss
outweighs any cost difference (exact in integers). Re-checked, cut and bracketed as the module
doc of `queues_model` says.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from schedlab.solvers.esg.plan import Relaxed
from schedlab.solvers.esg.problem_queues import Choice, QueuesProblem
from schedlab.solvers.esg.queues_model import (
    cpsat_data,
    decode,
    model_index,
    queues_model,
    solve_queues,
)
from schedlab.solvers.kit.cpsat import solve_cp
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed

#: Integer cost units: cost / cost_ref < 1/2, so a whole plan costs at most 2**39 of them.
COST_UNIT = float(2**40)


@dataclass(frozen=True)
class QCpsatOptions:
    prune: bool = field(default=True, metadata={"help": "drop dominated / unusable configs"})
    num_workers: int = shared("num_workers")
    time_unit_ms: float = field(default=0.001, metadata={"help": "integer time unit (ms)"})
    resource_unit: float = field(
        default=1e-6, metadata={"help": "integer vCPU / share unit", "range": (1e-6, 1.0)}
    )


@register_method(
    "esg", "q_cpsat", exact=True, kinds=("queues",), options=QCpsatOptions,
    summary="many queues: CP-SAT, one objective misses * W + scaled cost",
)  # fmt: skip
def solve_q_cpsat(
    problem: QueuesProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: QCpsatOptions,
) -> SolveResult:
    """Lexicographic optimum by CP-SAT with an exact integer weight (see the module doc)."""
    t0 = time.perf_counter()
    tabs, idx = problem.tables(), model_index(problem, options.prune)
    nq, ref = len(problem.queues), problem.cost_ref()
    items = sum(len(rows) for rows in tabs)
    cost = [float(round(float(tabs[q][s].cost[k]) / ref * COST_UNIT)) for q, s, k, _ in idx]
    # any plan's integer cost is below W: each stage's rounded cost is at most its rounded max
    weight = 1 + sum(
        int(round(float(t.cost.max()) / ref * COST_UNIT)) for rows in tabs for t in rows
    )
    stats: dict[str, Any] = {}

    def run(relaxed: bool, cuts: list[list[Choice]]) -> Relaxed[list[Choice]]:
        data = cpsat_data(problem, idx, options.time_unit_ms, options.resource_unit, relaxed)
        model, y = queues_model(problem, idx, data, cuts, deadline)
        model.cost = cost + [-float(weight)] * nq  # misses * W + cost, as W nq - W sum y + cost
        model.offset = float(weight * nq)
        out = solve_cp(model, num_workers=options.num_workers, seed=solver_seed(seed),
                       deadline=deadline)  # fmt: skip
        stats["cpsat_status"] = out.stats["cpsat_status"]
        if out.x is None or out.bound is None:  # every queue may miss: the time ran out
            return Relaxed(None, None)
        # a plan with m' misses, integer cost c' < W has m' W + c' >= ib, so m' >= ib // W
        # and, when equal, c' >= ib % W; rounding moved each chosen cost by at most 1/2 unit
        ib = int(math.ceil(out.bound - 1e-6))
        lb_miss, lb_cost = divmod(max(ib, 0), weight)
        bound = lb_miss + max(lb_cost - items / 2, 0.0) / COST_UNIT
        return Relaxed(decode(problem, idx, out.x), bound, proven=out.proven)

    return solve_queues(problem, "q_cpsat", t0, deadline, run, stats)
