"""Index heuristics and a local search for non-preemptive orders (status `feasible`).

Each index heuristic is its key function, registered with `register_method` and the tag
"index" (the method form whose runner, `solve_index`, orders the jobs by ascending key; ties
keep file order). They carry the tag "baseline" (the heuristics of the sojourn-heuristics
figure), as does `local`; a new baseline registers the same way in its own module.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from schedlab.solvers.options import NoOptions
from schedlab.solvers.registry import Entry
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.keys import order_by_index, safe_div, smith_ratio
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import SUBJECT, Instance, SojournProblem
from schedlab.solvers.solve import method_form, register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

KeyFn = Callable[[Instance], np.ndarray]
INDEX = "index"  # the method form of a key function: jobs in ascending key order


def index_result(name: str, key: KeyFn, problem: SojournProblem) -> SolveResult[list[str]]:
    """The `feasible` result of ordering `problem`'s jobs by ascending `key`."""
    t0 = time.perf_counter()
    inst = problem.instance
    order = order_by_index(key(inst))
    value = evaluate(inst, order, problem.objective)
    runtime = time.perf_counter() - t0
    return solution_result(inst.ids_of(order), value, name, runtime, exact=False, sense="min")


@method_form(SUBJECT, INDEX)
def solve_index(
    entry: Entry[KeyFn],
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions,
) -> SolveResult[list[str]]:
    """Run an index method: order the jobs by its key function, ascending."""
    return index_result(entry.name, entry.obj, problem)


@register_method(
    SUBJECT,
    "fcfs",
    exact=False,
    tags=(INDEX, "baseline"),
    summary="file order (first come, first served)",
)
def fcfs_key(inst: Instance) -> np.ndarray:
    """Position in the file, ascending."""
    return np.arange(inst.n, dtype=float)


@register_method(
    SUBJECT,
    "sept",
    exact=False,
    tags=(INDEX, "baseline"),
    summary="shortest expected processing time E[X]",
)
def sept_key(inst: Instance) -> np.ndarray:
    """E[X_i], ascending."""
    return inst.mean


@register_method(
    SUBJECT, "ssf", exact=False, tags=(INDEX, "baseline"), summary="shortest success size m"
)
def ssf_key(inst: Instance) -> np.ndarray:
    """m_i, ascending."""
    return inst.m


@register_method(
    SUBJECT,
    "maxpi",
    exact=False,
    tags=(INDEX, "baseline"),
    summary="highest success probability pi",
)
def maxpi_key(inst: Instance) -> np.ndarray:
    """-pi_i, ascending (highest success probability first)."""
    return -inst.pi


@register_method(
    SUBJECT, "smith", exact=False, tags=(INDEX, "baseline"), summary="Smith's rule E[X]/pi"
)
def smith_key(inst: Instance) -> np.ndarray:
    """E[X_i] / pi_i, ascending: Smith's rule with weight pi (optimal for A, TK, DK).

    Its reciprocal pi / E[X] (higher first) is `indices.smith_priority`, the online form.
    """
    return smith_ratio(inst)


def u_star(inst: Instance) -> float:
    """u* = 1 - 1/E[N], clamped to [0, 1] (E[N] = sum pi; u* = 0 when E[N] <= 1)."""
    en = float(inst.pi.sum())
    return min(1.0, max(0.0, 1.0 - 1.0 / en)) if en > 0 else 0.0


@register_method(
    SUBJECT,
    "uindex",
    exact=False,
    tags=(INDEX, "baseline"),
    summary="u*-index (e + m pi u*)/pi, u* = 1 - 1/E[N]",
)
def u_index(inst: Instance, u: float | None = None) -> np.ndarray:
    """(e_i + m_i pi_i u) / pi_i, ascending: the per-node Smith key of B at u (u* by default)."""
    u = u_star(inst) if u is None else u
    return safe_div(inst.e + inst.m * inst.pi * u, inst.pi)


def neighbourhood(order: np.ndarray) -> np.ndarray:
    """All orders one insertion move away (moving one job to another position), deduplicated.

    Adjacent swaps are the insertion moves by one position, so they are included.
    """
    n = len(order)
    moves = []
    for a in range(n):
        rest = np.delete(order, a)
        for b in range(n):
            if b != a:
                moves.append(np.insert(rest, b, order[a]))
    if not moves:
        return np.empty((0, n), dtype=order.dtype)
    return np.unique(np.array(moves), axis=0)


def local_search(
    inst: Instance,
    objective: Objective,
    start: list[int],
    *,
    deadline: Deadline = NO_DEADLINE,
    max_rounds: int = 10_000,
) -> tuple[list[int], float, dict[str, int | bool]]:
    """Best-improvement descent over insertion moves from `start` until a local optimum."""
    order = np.array(start, dtype=np.int64)
    value = float(evaluate_orders(inst, order[None, :], objective)[0])
    rounds = evaluated = 0
    stopped = False
    while rounds < max_rounds:
        if deadline.passed():
            stopped = True
            break
        nb = neighbourhood(order)
        if len(nb) == 0:
            break
        vals = evaluate_orders(inst, nb, objective)
        evaluated += len(nb)
        best = int(np.argmin(vals))
        if vals[best] < value * (1 - 1e-12) - 1e-15:
            order, value = nb[best], float(vals[best])
            rounds += 1
        else:
            break
    stats = {"improving_moves": rounds, "orders_evaluated": evaluated, "stopped_by_time": stopped}
    return [int(i) for i in order], value, stats


@register_method(
    SUBJECT,
    "local",
    exact=False,
    tags=("baseline",),
    summary="insertion/swap local search from Smith",
)
def solve_local(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions,
) -> SolveResult[list[str]]:
    """Local search (adjacent swaps and insertions) seeded by Smith's rule."""
    inst, objective = problem.instance, problem.objective
    t0 = time.perf_counter()
    start = order_by_index(smith_key(inst))
    order, _v, stats = local_search(inst, objective, start, deadline=deadline)
    value = evaluate(inst, order, objective)
    runtime = time.perf_counter() - t0
    return solution_result(inst.ids_of(order), value, "local", runtime, exact=False,
                           sense="min", stats=stats)  # fmt: skip
