"""Exact plans of many queues under invoker capacities by enumeration: q_brute, the oracle.

Every (configuration path that fits the budget, or a miss) per queue, combined across queues
in order of (misses, cost); the first combination whose containers pack on the invokers (a
depth-first placement, each invoker's usage summed in item order as `evaluate` sums it) is the
lexicographic optimum: most queues served, then least cost. The MILP and CP-SAT versions are
`exact_queues_milp` and `exact_queues_cpsat`, on the model of `queues_model`.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Any

from schedlab.solvers.esg.problem import fits_budget
from schedlab.solvers.esg.problem_queues import Choice, QueuesProblem, cap_limit, queues_result
from schedlab.solvers.kit.enum import WorkMeter, refuse_above
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc

KINDS = ("queues",)


def _fits(tab: list[tuple[float, float]], caps: list[list[float]], use: list[list[float]],
          i: int, meter: WorkMeter) -> bool:  # fmt: skip
    """Depth-first: can items tab[i:] be placed, each invoker's usage summed in item order
    (as `evaluate` sums it) staying within its limits `caps` (capacity + CAP_TOL)? False once
    the work cap stops the search (`meter.stopped`)."""
    if i == len(tab):
        return True
    v, g = tab[i]
    for cap, u in zip(caps, use, strict=True):
        if meter.spend():
            return False
        if u[0] + v <= cap[0] and u[1] + g <= cap[1]:
            old = (u[0], u[1])
            u[0] += v
            u[1] += g
            ok = _fits(tab, caps, use, i + 1, meter)
            u[0], u[1] = old  # restored exactly (subtracting would round)
            if ok:
                return True
    return False


def _pack(
    tab: list[tuple[float, float]], caps: list[list[float]], meter: WorkMeter
) -> list[int] | None:
    """An invoker per item (first found by the same depth-first order), or None."""
    out: list[int] = []
    use = [[0.0, 0.0] for _ in caps]
    for i, (v, g) in enumerate(tab):
        for j, (cap, u) in enumerate(zip(caps, use, strict=True)):
            if u[0] + v <= cap[0] and u[1] + g <= cap[1]:
                old = (u[0], u[1])
                u[0] += v
                u[1] += g
                if _fits(tab, caps, use, i + 1, meter):
                    out.append(j)
                    break
                u[0], u[1] = old
        else:
            return None
    return out


@dataclass(frozen=True)
class QBruteOptions:
    max_work: int = shared("max_work")


#: Bytes per listed combination of q_brute (a tuple of the pick, misses and cost).
COMBO_BYTES = 200
Pick = tuple[tuple[float, tuple[int, ...] | None], ...]


def _paths(problem: QueuesProblem, options: QBruteOptions, deadline: Deadline) -> list[list[Any]]:
    """Per queue, (cost, configuration path) of every path that fits its budget, and (0, None):
    the miss. Refused up front above the work cap (paths x stages listed in Python)."""
    tabs = problem.tables()
    raw = sum(math.prod(len(t.lat) for t in rows) * len(rows) for rows in tabs)
    refuse_above(raw, options.max_work, "method esg/q_brute: listing the configuration paths",
                 "q_milp or q_cpsat")  # fmt: skip
    check_alloc(COMBO_BYTES * raw, f"q_brute: listing {raw} configuration paths", fix="use q_milp")
    opts: list[list[Any]] = []
    for q, rows in zip(problem.queues, tabs, strict=True):
        deadline.check()
        paths: list[Any] = [(0.0, None)]
        for ks in itertools.product(*(range(len(t.lat)) for t in rows)):
            lat = sum(float(t.lat[k]) for k, t in zip(ks, rows, strict=True))
            if fits_budget(lat, q.budget_ms):
                paths.append((sum(float(t.cost[k]) for k, t in zip(ks, rows, strict=True)), ks))
        opts.append(paths)
    return opts


def _placed(problem: QueuesProblem, pick: Pick, meter: WorkMeter) -> list[Choice] | None:
    """The choices of `pick` with its containers packed on the invokers, or None."""
    tabs = problem.tables()
    items = [
        (q, s, k) for q, (_, ks) in enumerate(pick) if ks is not None for s, k in enumerate(ks)
    ]
    tab = [(float(tabs[q][s].vcpus[k]), float(tabs[q][s].share[k])) for q, s, k in items]
    caps = [[cap_limit(inv.vcpus), cap_limit(inv.gpu)] for inv in problem.invokers]
    where = _pack(tab, caps, meter)
    if where is None:
        return None
    choices: list[Choice] = [None] * len(problem.queues)
    for qi, (_, picked) in enumerate(pick):
        if picked is not None:
            choices[qi] = tuple((k, where[n]) for n, (qq, _, k) in enumerate(items) if qq == qi)
    return choices


@register_method(
    "esg", "q_brute", exact=True, kinds=KINDS, options=QBruteOptions,
    summary="many queues: enumerate paths per queue (or miss) x placements",
)  # fmt: skip
def solve_q_brute(
    problem: QueuesProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: QBruteOptions,
) -> SolveResult:
    """Proven optimum: every (path or miss) per queue by (misses, cost), first that packs.
    Stopped by the work cap while packing: every queue missed (always packs), feasible, with
    the value of the first combination not ruled out as the bound (they come in value order)."""
    t0 = time.perf_counter()
    opts = _paths(problem, options, deadline)
    space = math.prod(len(o) for o in opts)
    refuse_above(float(space) * len(opts), options.max_work,
                 f"method esg/q_brute: {space} combinations", "q_milp or q_cpsat")  # fmt: skip
    check_alloc(COMBO_BYTES * space, f"q_brute: listing {space} combinations", fix="use q_milp")
    combos = sorted(
        ((sum(ks is None for _, ks in pick), sum(c for c, _ in pick), pick)
         for pick in itertools.product(*opts)),
        key=lambda x: (x[0], x[1]),
    )  # fmt: skip
    meter = WorkMeter(options.max_work)
    stats: dict[str, Any] = {"combinations": space}
    for n_tried, (misses, cost, pick) in enumerate(combos):
        if n_tried % 1024 == 0:
            deadline.check()
        choices = _placed(problem, pick, meter)
        if meter.stopped:
            stats.update(stopped=True, steps=meter.done)
            bound = misses + cost / problem.cost_ref()
            return queues_result(problem, [None] * len(problem.queues), "q_brute",
                                 time.perf_counter() - t0, exact=True, bound=bound,
                                 stats=stats)  # fmt: skip
        if choices is not None:
            stats["steps"] = meter.done
            return queues_result(problem, choices, "q_brute", time.perf_counter() - t0,
                                 exact=True, stats=stats)  # fmt: skip
    raise AssertionError("unreachable: missing every queue always packs")
