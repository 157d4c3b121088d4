"""A plan (one configuration per function), its evaluation, and the result every method returns."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.solvers.esg.problem import LAT_TOL, App
from schedlab.solvers.result import Certificate, SolveResult, Status, certify


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
    return plan.latency_ms <= app.budget + LAT_TOL


def result(
    app: App,
    choice: list[int] | np.ndarray | None,
    method: str,
    t0: float,
    *,
    exact: bool,
    bound: float | None = None,
    proven_infeasible: bool = False,
    stats: dict[str, Any] | None = None,
) -> SolveResult[Plan | None]:
    """A SolveResult from a choice. Exact methods certify; `bound` None with exact = proven."""
    runtime = time.perf_counter() - t0
    stats = dict(stats or {})
    if choice is None:
        status = Status.INFEASIBLE if proven_infeasible else Status.TIMEOUT
        return SolveResult(status, None, bound, None, method, runtime, stats)
    plan = make_plan(app, choice)
    if not feasible(app, plan):  # a bug in a method; never report a violating plan as a plan
        stats["error"] = f"plan latency {plan.latency_ms} exceeds budget {app.budget}"
        return SolveResult(Status.ERROR, plan.cost, None, plan, method, runtime, stats)
    if exact:
        cert = certify(plan.cost, plan.cost if bound is None else bound, "min")
    else:
        cert = Certificate(Status.FEASIBLE, plan.cost, None, {})
    return SolveResult.certified(cert, plan, method, runtime, stats)
