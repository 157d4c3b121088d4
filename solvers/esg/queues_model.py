"""The exact model of many queues under invoker capacities, built once (`queues_model`) and
handed to a MILP (`exact_queues_milp`, HiGHS) or to CP-SAT (`exact_queues_cpsat`).

Variables: w[q, s, k, j] = 1 when stage s of queue q runs configuration k on invoker j (only
pairs where the configuration fits the invoker alone); y[q] = 1 when queue q is served. Each
stage of a served queue has exactly one (k, j): sum_kj w[q, s, k, j] = y[q]; a served queue fits
its budget: sum_skj lat * w <= budget; each invoker's vCPUs and GPU share hold: sum v * w <= V_j,
sum g * w <= G_j; a no-good cut per assignment cut off. The objective (lexicographic: most
queues served, then least cost) is the back end's: the MILP solves twice, CP-SAT once with an
exact integer weight.

Pre-filter (keeps an optimum): configurations that fit no invoker, that miss the budget even
with the fastest other stages (tested with `problem.prune_limit`'s float slack), or that are
dominated in (latency, cost, vCPUs, share) are dropped: replacing a dominated configuration by
its dominator on the same invoker keeps every constraint and never raises the cost.

A plan fits the real data as `problem_queues.evaluate` says (latency <= budget + LAT_TOL, usage
<= capacity + CAP_TOL, float sums in order). The back ends bracket it (`plan.bracket`) with two
versions of the model's numbers (`QueuesData`): a relaxation that every fitting plan satisfies
(MILP: budgets and capacities loosened by LOOSE_REL; CP-SAT: latencies and usages rounded down,
budgets and capacities up by the float rounding of a sum) gives the bound; a restriction (MILP:
tightened by more than HiGHS's tolerances; CP-SAT: rounded the other way) gives a plan that fits
when the cuts run out (then `feasible`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.solvers.esg.exact_model import (
    LOOSE_REL,
    TIGHT_REL,
    ceil_ticks,
    floor_ticks,
    limit_ticks,
)
from schedlab.solvers.esg.plan import Relaxed, bracket
from schedlab.solvers.esg.problem import budget_limit, prune_limit
from schedlab.solvers.esg.problem_queues import (
    Choice,
    QueuesProblem,
    StageTable,
    cap_limit,
    evaluate,
    queues_result,
)
from schedlab.solvers.kit.linear import LinearModel
from schedlab.solvers.result import SolveResult
from schedlab.solvers.validate import Deadline

Key = tuple[int, int, int, int]  # (queue, stage, configuration, invoker)


def dominated(t: StageTable) -> np.ndarray:
    """Mask of configurations dominated in (latency, cost, vCPUs, share) (first of ties kept)."""
    m = np.stack([t.lat, t.cost, t.vcpus, t.share], axis=1)
    n = len(m)
    le = (m[:, None, :] <= m[None, :, :]).all(axis=2)  # le[a, b]: a no worse than b everywhere
    lt = (m[:, None, :] < m[None, :, :]).any(axis=2)
    strictly = le & lt
    tie = le & ~lt & (np.arange(n)[:, None] < np.arange(n)[None, :])
    out = np.asarray((strictly | tie).any(axis=0), dtype=bool)
    return out


def candidates(problem: QueuesProblem, prune: bool) -> list[list[np.ndarray]]:
    """Per queue and stage, the configuration indices kept (see the module doc)."""
    out = []
    for q, rows in zip(problem.queues, problem.tables(), strict=True):
        fast = [float(t.lat.min()) for t in rows]
        per = []
        for s, t in enumerate(rows):
            ok = np.ones(len(t.lat), dtype=bool)
            if prune:
                fit = np.zeros(len(t.lat), dtype=bool)
                for inv in problem.invokers:
                    fit |= (t.vcpus <= cap_limit(inv.vcpus)) & (t.share <= cap_limit(inv.gpu))
                rest = sum(fast) - fast[s]
                ok = fit & (t.lat + rest <= prune_limit(budget_limit(q.budget_ms)))
                ok &= ~dominated(t)
            per.append(np.flatnonzero(ok))
        out.append(per)
    return out


def _fit_pairs(problem: QueuesProblem, t: StageTable, k: int) -> list[int]:
    return [
        j
        for j, inv in enumerate(problem.invokers)
        if t.vcpus[k] <= cap_limit(inv.vcpus) and t.share[k] <= cap_limit(inv.gpu)
    ]


def model_index(problem: QueuesProblem, prune: bool) -> list[Key]:
    """Every (queue, stage, config, invoker) of the model: the w columns, in order."""
    tabs, cand = problem.tables(), candidates(problem, prune)
    return [
        (q, s, int(k), j)
        for q, per in enumerate(cand)
        for s, ks in enumerate(per)
        for k in ks
        for j in _fit_pairs(problem, tabs[q][s], int(k))
    ]


def choices_of(problem: QueuesProblem, on: Sequence[Key]) -> list[Choice]:
    """Choices from the (q, s, k, j) tuples set to 1."""
    per: dict[int, dict[int, tuple[int, int]]] = {}
    for q, s, k, j in on:
        per.setdefault(q, {})[s] = (k, j)
    return [
        tuple(per[q][s] for s in sorted(per[q])) if q in per else None
        for q in range(len(problem.queues))
    ]


def keys_of(choices: Sequence[Choice]) -> set[Key]:
    """The (q, s, k, j) tuples a plan sets to 1."""
    return {
        (q, s, k, j) for q, c in enumerate(choices) if c is not None for s, (k, j) in enumerate(c)
    }


def fits_real(problem: QueuesProblem) -> Callable[[list[Choice]], bool]:
    """The re-check of a plan on the real data (`evaluate` finds no violation)."""
    return lambda choices: not evaluate(problem, list(choices))[1]


@dataclass(frozen=True)
class QueuesData:
    """The numbers one version of the model is written in: per w column its latency, vCPUs and
    share; per queue its budget; per invoker its capacities; `integral`: integer units."""

    lat: list[float]
    vcpus: list[float]
    share: list[float]
    budget: list[float]
    cap_vcpus: list[float]
    cap_share: list[float]
    integral: bool


def _raw(problem: QueuesProblem, idx: Sequence[Key]) -> tuple[list[float], ...]:
    tabs = problem.tables()
    return (
        [float(tabs[q][s].lat[k]) for q, s, k, _ in idx],
        [float(tabs[q][s].vcpus[k]) for q, s, k, _ in idx],
        [float(tabs[q][s].share[k]) for q, s, k, _ in idx],
    )


def milp_data(problem: QueuesProblem, idx: Sequence[Key], relaxed: bool) -> QueuesData:
    """Float data; budgets and capacities loosened by LOOSE_REL (relaxation) or tightened by
    TIGHT_REL per term of their sums (restriction)."""
    tabs = problem.tables()
    items = sum(len(rows) for rows in tabs)
    lims = [budget_limit(q.budget_ms) for q in problem.queues]
    if relaxed:
        budget = [b + LOOSE_REL * max(1.0, b) for b in lims]
        cap = lambda v: v + LOOSE_REL * max(1.0, v)  # noqa: E731
    else:
        budget = [
            b - TIGHT_REL * (len(rows) + 1) * max(1.0, b)
            for b, rows in zip(lims, tabs, strict=True)
        ]
        cap = lambda v: v - TIGHT_REL * (items + 1) * max(1.0, v)  # noqa: E731
    lat, vc, sh = _raw(problem, idx)
    return QueuesData(
        lat, vc, sh, budget,
        [cap(cap_limit(i.vcpus)) for i in problem.invokers],
        [cap(cap_limit(i.gpu)) for i in problem.invokers],
        False,
    )  # fmt: skip


def cpsat_data(
    problem: QueuesProblem, idx: Sequence[Key], time_unit: float, resource_unit: float,
    relaxed: bool,
) -> QueuesData:  # fmt: skip
    """Integer data: latencies and usages rounded down, limits up by a float sum's rounding
    (relaxation), or the other way (restriction)."""
    tabs = problem.tables()
    items = sum(len(rows) for rows in tabs)
    tick = floor_ticks if relaxed else ceil_ticks
    lat, vc, sh = _raw(problem, idx)
    return QueuesData(
        [float(tick(v, time_unit)) for v in lat],
        [float(tick(v, resource_unit)) for v in vc],
        [float(tick(v, resource_unit)) for v in sh],
        [float(limit_ticks(budget_limit(q.budget_ms), len(rows), time_unit, relaxed))
         for q, rows in zip(problem.queues, tabs, strict=True)],
        [float(limit_ticks(cap_limit(i.vcpus), items, resource_unit, relaxed))
         for i in problem.invokers],
        [float(limit_ticks(cap_limit(i.gpu), items, resource_unit, relaxed))
         for i in problem.invokers],
        True,
    )  # fmt: skip


def queues_model(
    problem: QueuesProblem,
    idx: Sequence[Key],
    data: QueuesData,
    cuts: Sequence[Sequence[Choice]],
    deadline: Deadline,
) -> tuple[LinearModel, list[int]]:
    """The model in `data`'s numbers (no objective yet: columns w in `idx` order, then y per
    queue), the plans in `cuts` cut off; returns it and the y columns. DeadlineExceeded once
    `deadline` passes."""
    m = LinearModel()
    for _ in idx:
        m.add_col(0.0, 0.0, 1.0)
    y = [m.add_col(0.0, 0.0, 1.0) for _ in problem.queues]
    by_qs: dict[tuple[int, int], list[int]] = {}
    by_q: dict[int, list[int]] = {}
    by_j: dict[int, list[int]] = {}
    for n, (q, s, _k, j) in enumerate(idx):  # one pass (a scan per row was quadratic)
        by_qs.setdefault((q, s), []).append(n)
        by_q.setdefault(q, []).append(n)
        by_j.setdefault(j, []).append(n)
    for q, rows in enumerate(problem.tables()):
        deadline.check()  # building can outlast the time limit on many queues
        for s in range(len(rows)):
            ns = by_qs.get((q, s), [])
            m.add_row([*ns, y[q]], [1.0] * len(ns) + [-1.0], 0.0, 0.0)
        ns = by_q.get(q, [])
        m.add_row(ns, [data.lat[n] for n in ns], hi=data.budget[q])
    for j in range(len(problem.invokers)):
        ns = by_j.get(j, [])
        m.add_row(ns, [data.vcpus[n] for n in ns], hi=data.cap_vcpus[j])
        m.add_row(ns, [data.share[n] for n in ns], hi=data.cap_share[j])
    position = {key: n for n, key in enumerate(idx)}
    for cut in cuts:  # no-good: not exactly this assignment
        ones = {position[key] for key in keys_of(cut)}
        m.add_row(range(len(idx)), [1.0 if n in ones else -1.0 for n in range(len(idx))],
                  hi=len(ones) - 1)  # fmt: skip
    return m, y


def decode(problem: QueuesProblem, idx: Sequence[Key], x: np.ndarray) -> list[Choice]:
    """The choices of a solution (w columns above 1/2)."""
    return choices_of(problem, [key for n, key in enumerate(idx) if x[n] > 0.5])


def solve_queues(
    problem: QueuesProblem,
    method: str,
    t0: float,
    deadline: Deadline,
    run: Callable[[bool, list[list[Choice]]], Relaxed[list[Choice]]],
    stats: dict[str, Any],
) -> SolveResult:
    """The plan by `plan.bracket` over the relaxation (`run(True, cuts)`) and the restriction
    (`run(False, [])`), re-checked on the real data; its result (`queues_result`)."""

    def restrict() -> list[Choice] | None:
        stats["restricted"] = True
        return run(False, []).choice

    out = bracket(lambda cuts: run(True, cuts), restrict, fits_real(problem), deadline.passed)
    stats["cuts"] = out.cuts
    bound = out.bound if math.isfinite(out.bound) else -math.inf
    return queues_result(problem, out.choice, method, time.perf_counter() - t0, exact=True,
                         bound=bound, stats=stats)  # fmt: skip
