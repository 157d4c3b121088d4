"""`batchlocal`: batched insertion local search driven by the kernels, for instances too large
for the exact methods (status `feasible`).

For A and B (linear ordering objectives) every kernel call handles the whole insertion
neighbourhood (n(n-1) moves) of each of K orders at once, from the factor tables (B: low-rank
compression of the Gauss-Legendre form, so memory is O(n r), not the n^2 of W):
- compiled backends (cpu, cuda): one first-improvement sweep per order and call (each job in
  turn moves to its best position), O(n^2 r) per order;
- numpy: the best move of each order from its full delta matrix, applied, repeated.
K starts: orders by the per-node Smith index (e + m pi u) / pi at u = 1 (Smith's rule), u*,
0.75, 0.5, 0.25, 0, and Smith's index with multiplicative log-normal noise. After the descent,
`rounds` of iterated local search: K random kicks (a few random insertions) of the best order,
then descent again. TK and DK are not linear ordering problems: there the search evaluates all
n(n-1) insertion neighbours of the current order (streamed in chunks) per step.
The reported value is the closed form (n <= EXACT_VALUE_MAX) or, above that, the kernel's
Gauss-Legendre node tables (certified error bound in stats); Smith's value is reported alongside.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.backends import BackendName, get_backend
from schedlab.solvers.kernels.insertion import apply_moves
from schedlab.solvers.kernels.numpy_ref import NumpyBackend
from schedlab.solvers.kernels.tables import LopTables, compress
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.heuristics import order_by_index, smith_key, u_index, u_star
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING, Objective, evaluate
from schedlab.solvers.sojourn.problem import SUBJECT, Instance, SojournProblem
from schedlab.solvers.sojourn.tables import a_tables, b_node_tables
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

EXACT_VALUE_MAX = 2000  # above this n the closed form's O(n^2)-memory quadrature is avoided
REL_THR = 1e-12  # a move must lower the value by more than this (relative) to count
NEIGHBOUR_CHUNK = 1 << 14
SMALL_NEIGHBOURHOOD = 1 << 14  # n^2 (n-1) below this: TK/DK neighbourhoods use numpy


def default_restarts(n: int) -> int:
    return min(32, 4 + 2 * n) if n <= 200 else 8 if n <= 2000 else 2


def default_rounds(n: int) -> int:
    return min(20, 2 + n) if n <= 200 else 3 if n <= 2000 else 0


def start_orders(inst: Instance, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` starting orders: index orders at u = 1, u*, .75, .5, .25, 0, then noisy Smith."""
    idx = [smith_key(inst), u_index(inst, u_star(inst))]
    idx += [u_index(inst, u) for u in (0.75, 0.5, 0.25, 0.0)]
    rows = [order_by_index(i) for i in idx[:count]]
    base = smith_key(inst)
    finite = np.where(np.isfinite(base), base, np.nanmax(np.where(np.isfinite(base), base, 0)) * 2)
    for r in range(len(rows), count):
        sigma = 0.02 * (1.5 ** (r % 10))
        rows.append(order_by_index(finite * np.exp(sigma * rng.standard_normal(inst.n))))
    return np.array(rows, dtype=np.int64).reshape(count, inst.n)


def kick(best: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` copies of `best`, each with 1..max(2, n/20) random insertion moves."""
    n = len(best)
    out = np.repeat(best[None, :], count, axis=0)
    if n < 2:
        return out
    strength = rng.integers(1, max(2, n // 20) + 1, size=count)
    for step in range(int(strength.max())):
        active = strength > step
        frm = rng.integers(0, n, size=count)
        to = rng.integers(0, n, size=count)
        to = np.where(active, to, frm)
        out = apply_moves(out, frm, to)
    return out


class _Clock:
    """The run's deadline and its elapsed time (for the stats)."""

    def __init__(self, deadline: Deadline) -> None:
        self.t0 = time.perf_counter()
        self.deadline = deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def out(self) -> bool:
        return self.deadline.passed()


def _descend(
    be: Any, t: LopTables, orders: np.ndarray, values: np.ndarray, clock: _Clock, st: dict
) -> bool:
    """Insertion descent of every row to a local optimum (in place). False if stopped by time."""
    while True:
        if clock.out():
            return False
        thr = REL_THR * np.maximum(np.abs(values), 1e-300)
        if be.name == "numpy":
            best = be.best_insertion(t, orders)
            better = best[:, 0] < -thr
            st["kernel_calls"] += 1
            if not better.any():
                return True
            frm = np.where(better, best[:, 1], 0).astype(np.int64)
            to = np.where(better, best[:, 2], 0).astype(np.int64)
            orders[:] = apply_moves(orders, frm, to)
            values += np.where(better, best[:, 0], 0.0)
            st["moves"] += int(better.sum())
        else:
            res = be.sweep(t, orders, thr)
            st["kernel_calls"] += 1
            values += res[:, 0]
            st["moves"] += int(res[:, 1].sum())
            if not (res[:, 1] > 0).any():
                return True


def _lop_search(
    inst: Instance,
    objective: Objective,
    be: Any,
    restarts: int,
    rounds: int,
    rng: np.random.Generator,
    clock: _Clock,
) -> tuple[np.ndarray, dict[str, Any], LopTables]:
    """Best order found for A or B; also returns the tables used for exact-enough values."""
    st: dict[str, Any] = {"kernel_calls": 0, "moves": 0, "rounds_done": 0}
    if objective.kind == "A":
        exact_tables = search_tables = a_tables(inst)
    else:
        exact_tables = b_node_tables(inst)
        smith = np.array(order_by_index(smith_key(inst)), dtype=np.int64)
        search_tables = compress(exact_tables, smith)
    st.update(
        tables=search_tables.kind,
        rank=search_tables.rank,
        nodes_kept=exact_tables.rank,
        nodes_total=exact_tables.nodes_total,
        table_error_bound=search_tables.error_bound,
        tables_s=round(clock.elapsed(), 3),
    )
    orders = start_orders(inst, restarts, rng)
    values = NumpyBackend().lop(search_tables, orders)
    finished = _descend(be, search_tables, orders, values, clock, st)
    i = int(np.argmin(values))
    best, best_v = orders[i].copy(), float(values[i])
    st["descent_value"] = best_v
    st["descent_s"] = round(clock.elapsed(), 3)
    for _ in range(rounds):
        if not finished or clock.out():
            break
        orders = kick(best, restarts, rng)
        values = NumpyBackend().lop(search_tables, orders)
        finished = _descend(be, search_tables, orders, values, clock, st)
        i = int(np.argmin(values))
        if values[i] < best_v * (1 - REL_THR):
            best, best_v = orders[i].copy(), float(values[i])
        st["rounds_done"] += 1
    st["stopped_by_time"] = not finished or clock.out()
    return best, st, exact_tables


def _insertion_neighbours(base: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Insertion neighbours number lo..hi-1 of `base` (move m: from m // (n-1) to the m-th
    other position)."""
    n = len(base)
    m = np.arange(lo, hi)
    frm = m // (n - 1)
    to = m % (n - 1)
    to = to + (to >= frm)
    return apply_moves(np.repeat(base[None, :], len(m), axis=0), frm, to)


def _neighbourhood_search(
    inst: Instance, objective: Objective, backend: str, clock: _Clock
) -> tuple[np.ndarray, dict[str, Any]]:
    """Best-improvement over all insertion neighbours, evaluated in streamed chunks (TK, DK)."""
    st: dict[str, Any] = {"kernel_calls": 0, "moves": 0, "orders_evaluated": 0}
    cur = np.array(order_by_index(smith_key(inst)), dtype=np.int64)
    n = inst.n
    if n * n * (n - 1) < SMALL_NEIGHBOURHOOD:
        backend = "numpy"  # a thread pool's start-up costs more than such a tiny batch
    cur_v = float(evaluate_orders(inst, cur[None, :], objective, backend=backend)[0])
    finished = True
    while n > 1:
        total = n * (n - 1)
        best_v, best_i = np.inf, -1
        for lo in range(0, total, NEIGHBOUR_CHUNK):
            if clock.out():
                finished = False
                break
            nb = _insertion_neighbours(cur, lo, min(total, lo + NEIGHBOUR_CHUNK))
            vals = evaluate_orders(inst, nb, objective, backend=backend, check=False)
            st["kernel_calls"] += 1
            st["orders_evaluated"] += len(nb)
            j = int(np.argmin(vals))
            if vals[j] < best_v:
                best_v, best_i = float(vals[j]), lo + j
        if not finished or not best_v < cur_v * (1 - REL_THR):
            break
        cur = _insertion_neighbours(cur, best_i, best_i + 1)[0]
        cur_v = best_v
        st["moves"] += 1
    st["stopped_by_time"] = not finished
    return cur, st


def _values(inst: Instance, objective: Objective, orders: list[np.ndarray], t: LopTables | None):
    """Reported values: closed form up to EXACT_VALUE_MAX jobs, else the node tables."""
    if inst.n <= EXACT_VALUE_MAX or t is None:
        return [evaluate(inst, [int(i) for i in o], objective) for o in orders]
    return [float(v) for v in NumpyBackend().lop(t, np.array(orders))]


@dataclass(frozen=True)
class BatchlocalOptions:
    """Options of `batchlocal`."""

    backend: BackendName = field(
        default="auto", metadata={"help": "kernel back end ('auto': CUDA if a GPU is present)"}
    )
    restarts: int | None = field(
        default=None, metadata={"help": "starting orders per round (default: by n)"}
    )
    rounds: int | None = field(
        default=None, metadata={"help": "rounds of iterated local search (default: by n)"}
    )


@register_method(
    SUBJECT,
    "batchlocal",
    exact=False,
    options=BatchlocalOptions,
    summary="batched insertion local search on kernels (large n)",
)
def solve_batchlocal(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: BatchlocalOptions,
) -> SolveResult[list[str]]:
    """Batched insertion local search from index orders and noisy Smith starts (any objective)."""
    inst, objective = problem.instance, problem.objective
    backend, restarts, rounds = options.backend, options.restarts, options.rounds
    clock = _Clock(deadline)
    objective.check_for(inst)
    n = inst.n
    restarts = default_restarts(n) if restarts is None else restarts
    rounds = default_rounds(n) if rounds is None else rounds
    if isinstance(restarts, bool) or not isinstance(restarts, int) or restarts < 1:
        raise InvalidInput(f"restarts: must be a positive integer (got {restarts!r})")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
        raise InvalidInput(f"rounds: must be a non-negative integer (got {rounds!r})")
    be = get_backend(backend)
    rng = np.random.default_rng(0 if seed is None else seed)
    tables: LopTables | None = None
    if objective.kind in LINEAR_ORDERING:
        best, st, tables = _lop_search(inst, objective, be, restarts, rounds, rng, clock)
    else:
        best, st = _neighbourhood_search(inst, objective, be.name, clock)
    smith = np.array(order_by_index(smith_key(inst)), dtype=np.int64)
    value, smith_value = _values(inst, objective, [best, smith], tables)
    if smith_value < value:  # never report worse than the start it came from
        best, value = smith, smith_value
    st.update(
        backend=be.name,
        restarts=restarts,
        rounds=rounds,
        smith_value=smith_value,
        improvement_over_smith=(smith_value - value) / smith_value if smith_value else 0.0,
        value_source="closed form" if n <= EXACT_VALUE_MAX or tables is None else "node tables",
    )
    if tables is not None and n > EXACT_VALUE_MAX:
        st["value_error_bound"] = tables.error_bound
    order = [int(i) for i in best]
    return solution_result(inst.ids_of(order), value, "batchlocal", clock.elapsed(),
                           exact=False, sense="min", stats=st)  # fmt: skip
