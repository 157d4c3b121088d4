"""A plan (one configuration per function), its evaluation, and the result every method returns.

`bracket` is the loop of the exact back ends that round or tolerate (MILP, CP-SAT, and their
many-queue versions): a relaxation (every plan that fits the real data is feasible in it) gives
the bound and proves infeasibility; its plan is re-checked on the real data and, when it does
not fit, cut off (a no-good cut keeps the model a relaxation) and the relaxation solved again; a
restriction (every plan feasible in it fits the real data) gives a plan when the cuts run out.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from schedlab.solvers.esg.problem import App, fits_budget
from schedlab.solvers.result import SolveResult, solution_result


@dataclass(frozen=True)
class Plan:
    """Chosen configuration index per function (by id), with its cost and end-to-end latency."""

    configs: dict[str, int]
    cost: float
    latency_ms: float

    def to_dict(self) -> dict[str, Any]:
        return {"configs": dict(self.configs), "cost": self.cost, "latency_ms": self.latency_ms}


def longest_path(app: App, stage_lat: list[float]) -> float:
    """End-to-end latency: the longest path of stage latencies through the DAG."""
    preds = app.preds()
    finish = [0.0] * len(app.functions)
    for i in app.topo_order():
        start = max((finish[p] for p in preds[i]), default=0.0)
        finish[i] = start + stage_lat[i]
    return max(finish) if finish else 0.0


def make_plan(app: App, choice: list[int] | np.ndarray) -> Plan:
    """Evaluate the choice (config index per function, in function order)."""
    lat, cost = app.stage_latency(), app.stage_cost()
    idx = [int(k) for k in choice]
    total = float(sum(cost[i][k] for i, k in enumerate(idx)))
    e2e = longest_path(app, [float(lat[i][k]) for i, k in enumerate(idx)])
    return Plan({f.id: k for f, k in zip(app.functions, idx, strict=True)}, total, e2e)


def feasible(app: App, plan: Plan) -> bool:
    """Whether the plan fits the budget (`problem.fits_budget`, the one definition)."""
    return fits_budget(plan.latency_ms, app.budget)


def choice_fits(app: App, choice: list[int]) -> bool:
    """Whether a choice (config index per function) fits the budget on the real data."""
    return feasible(app, make_plan(app, choice))


#: No-good cuts `bracket` adds (plans of the relaxation that do not fit) before it gives up
#: proving and takes the restriction's plan.
MAX_CUTS = 100

C = TypeVar("C")


@dataclass(frozen=True)
class Relaxed(Generic[C]):
    """One solve of a relaxation: its plan (None: none found), a sound lower bound on the real
    optimum (None: unknown), whether it proved it has no plan, whether it solved to optimality."""

    choice: C | None
    bound: float | None
    infeasible: bool = False
    proven: bool = False


@dataclass(frozen=True)
class Bracketed(Generic[C]):
    """What `bracket` concluded: a plan that fits (None: none), the best sound bound (-inf:
    none), whether no plan fits (proven), the cuts added, whether the plan is the restriction's."""

    choice: C | None
    bound: float
    infeasible: bool
    cuts: int
    restricted: bool = False


def bracket(
    relax: Callable[[list[C]], Relaxed[C]],
    restrict: Callable[[], C | None],
    fits: Callable[[C], bool],
    stop: Callable[[], bool],
    max_cuts: int | None = None,
) -> Bracketed[C]:
    """Solve the relaxation with the plans in the list cut off; re-check, cut, repeat (see the
    module doc). A relaxed plan that fits is optimal when the relaxation was solved to
    optimality; no relaxed plan proves that none fits. `stop()`: the time limit has passed;
    `max_cuts` None: MAX_CUTS."""
    max_cuts = MAX_CUTS if max_cuts is None else max_cuts
    cuts: list[C] = []
    bound = -math.inf
    while True:
        r = relax(cuts)
        if r.bound is not None and math.isfinite(r.bound):
            bound = max(bound, r.bound)  # every cut model is a relaxation: any bound is sound
        if r.infeasible:  # no plan fits: the optimum is +inf, no bound is reported
            return Bracketed(None, -math.inf, True, len(cuts))
        if r.choice is None:
            return Bracketed(None, bound, False, len(cuts))
        if fits(r.choice):
            return Bracketed(r.choice, bound, False, len(cuts))
        cuts.append(r.choice)
        if not r.proven or len(cuts) >= max_cuts or stop():
            break
    got = restrict()
    return Bracketed(got if got is not None and fits(got) else None, bound, False, len(cuts), True)


def result(
    app: App,
    choice: list[int] | np.ndarray | None,
    method: str,
    t0: float,
    *,
    exact: bool,
    bound: float | None = None,
    proven: bool = False,
    proven_infeasible: bool = False,
    stats: dict[str, Any] | None = None,
) -> SolveResult[Plan | None]:
    """A SolveResult from a choice by the one rule (`result.solution_result`): the plan
    re-evaluated and re-checked on the real data; exact methods certify against `bound`, or
    `proven` (an exhaustive search: the cost is its own bound); no choice is `infeasible` only
    when `proven_infeasible`."""
    runtime = time.perf_counter() - t0
    if choice is None:
        return solution_result(None, None, method, runtime, exact=exact, sense="min",
                               bound=bound, infeasible=proven_infeasible, stats=stats)  # fmt: skip
    plan = make_plan(app, choice)
    bad = [] if feasible(app, plan) else [
        f"plan latency {plan.latency_ms} exceeds budget {app.budget}"
    ]  # fmt: skip
    return solution_result(plan, plan.cost, method, runtime, exact=exact, sense="min",
                           bound=bound, proven=proven, violations=bad, stats=stats)  # fmt: skip
