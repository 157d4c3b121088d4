"""Index heuristics and a local search for non-preemptive orders (status `feasible`)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.instance import Instance
from schedlab.solvers.sojourn.methods import SOJOURN_METHODS
from schedlab.solvers.sojourn.objectives import Objective, evaluate


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with +inf where den == 0 (a job that never succeeds goes last)."""
    out = np.full(num.shape, np.inf)
    np.divide(num, den, out=out, where=den > 0)
    return out


def smith_index(inst: Instance) -> np.ndarray:
    """E[X_i] / pi_i: Smith's rule with weight pi (optimal for A, TK, DK)."""
    return _safe_div(inst.mean, inst.pi)


def u_star(inst: Instance) -> float:
    """u* = 1 - 1/E[N], clamped to [0, 1] (E[N] = sum pi; u* = 0 when E[N] <= 1)."""
    en = float(inst.pi.sum())
    return min(1.0, max(0.0, 1.0 - 1.0 / en)) if en > 0 else 0.0


def u_index(inst: Instance, u: float | None = None) -> np.ndarray:
    """(e_i + m_i pi_i u) / pi_i: the per-node Smith index of B at u (u* by default)."""
    u = u_star(inst) if u is None else u
    return _safe_div(inst.e + inst.m * inst.pi * u, inst.pi)


INDICES: dict[str, tuple[str, Callable[[Instance], np.ndarray]]] = {
    "fcfs": ("file order (first come, first served)", lambda inst: np.arange(inst.n, dtype=float)),
    "sept": ("shortest expected processing time E[X]", lambda inst: inst.mean),
    "ssf": ("shortest success size m", lambda inst: inst.m),
    "maxpi": ("highest success probability pi", lambda inst: -inst.pi),
    "smith": ("Smith's rule E[X]/pi", smith_index),
    "uindex": ("u*-index (e + m pi u*)/pi, u* = 1 - 1/E[N]", u_index),
}


def order_by_index(index: np.ndarray) -> list[int]:
    """Ascending index; ties keep file order (stable sort)."""
    return [int(i) for i in np.argsort(index, kind="stable")]


def _index_result(name: str, inst: Instance, objective: Objective) -> SolveResult:
    t0 = time.perf_counter()
    order = order_by_index(INDICES[name][1](inst))
    value = evaluate(inst, order, objective)
    return SolveResult(
        Status.FEASIBLE, value, None, inst.ids_of(order), name, time.perf_counter() - t0
    )


def _make_index_method(name: str) -> None:
    def solve_index(inst: Instance, objective: Objective, *, time_limit=None, seed=None, **_):
        return _index_result(name, inst, objective)

    solve_index.__name__ = f"solve_{name}"
    solve_index.__doc__ = f"Order by {INDICES[name][0]}."
    SOJOURN_METHODS.register(name, exact=False, summary=INDICES[name][0])(solve_index)


for _name in INDICES:
    _make_index_method(_name)


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
    time_limit: float | None = None,
    max_rounds: int = 10_000,
) -> tuple[list[int], float, dict[str, int | bool]]:
    """Best-improvement descent over insertion moves from `start` until a local optimum."""
    t0 = time.perf_counter()
    order = np.array(start, dtype=np.int64)
    value = float(evaluate_orders(inst, order[None, :], objective)[0])
    rounds = evaluated = 0
    stopped = False
    while rounds < max_rounds:
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
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


@SOJOURN_METHODS.register("local", exact=False, summary="insertion/swap local search from Smith")
def solve_local(
    inst: Instance, objective: Objective, *, time_limit=None, seed=None, **_
) -> SolveResult:
    """Local search (adjacent swaps and insertions) seeded by Smith's rule."""
    t0 = time.perf_counter()
    start = order_by_index(smith_index(inst))
    order, _v, stats = local_search(inst, objective, start, time_limit=time_limit)
    value = evaluate(inst, order, objective)
    return SolveResult(
        Status.FEASIBLE, value, None, inst.ids_of(order), "local", time.perf_counter() - t0, stats
    )
