"""Iterated insertion search for a linear ordering over a dense pair-cost matrix, compiled by numba.

Arrays in, arrays out, no subject. The cost of an order o is sum_{x<y} W[o_x, o_y]; the kernels
read only D = W - W.T. A descent moves each job in turn to its best position while that lowers
the cost by more than `thr` (first improvement, O(n^2) a sweep). The iterated search kicks the
current order by moving a random segment to a random place, descends, and keeps the result when
it is no worse (a plateau walk); the kicks are drawn beforehand from a seeded numpy Generator, so
both backends follow the same path. `multistart` runs it from `starts` rotations of one order:
on orders with one large preference cycle the good orders cut the cycle in different places,
which single-job and segment moves do not reach from a poor cut.
`job_descent` is the other descent rule, the one of `lop.insertion_descent` (sweeps over the
jobs, not the positions), compiled with the same moves.
Backend 'cpu' (numba) or 'numpy' (the same loops in plain Python: the reference for tests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from schedlab.solvers.kernels.jit import pick


def _move(o, x, to, job):
    """Take `job` from position x of o and put it at position `to` (the jobs between shift by
    one); True when it moved."""
    if to > x:
        for k in range(x, to):
            o[k] = o[k + 1]
    else:
        for k in range(x, to, -1):
            o[k] = o[k - 1]
    o[to] = job
    return to != x


def _descend(D, o, thr):
    n = len(o)
    total = 0.0
    moved = True
    while moved:
        moved = False
        for x in range(n):
            job = o[x]
            best = -thr
            to = x
            s = 0.0
            for k in range(x + 1, n):
                s += D[o[k], job]
                if s < best:
                    best = s
                    to = k
            s = 0.0
            for k in range(x - 1, -1, -1):
                s -= D[o[k], job]
                if s < best:
                    best = s
                    to = k
            if _move(o, x, to, job):
                total += best
                moved = True
    return total


def _descend_jobs(D, o, thr, max_sweeps):
    """`lop.insertion_descent`'s rule: each sweep takes the jobs in the order they had at its
    start; a job moves to its best place behind (the first minimum of the running sums, if
    below -thr), unless its best place in front (the nearest minimum) is lower by more than
    thr; at most `max_sweeps` sweeps, fewer when one moves no job."""
    n = len(o)
    snap = o.copy()
    for _ in range(max_sweeps):
        moved = False
        snap[:] = o
        for i in range(n):
            job = snap[i]
            x = 0
            while o[x] != job:
                x += 1
            best, to = 0.0, x
            s, low, at = 0.0, np.inf, -1
            for k in range(x + 1, n):
                s += D[o[k], job]
                if s < low:
                    low, at = s, k
            if at >= 0 and low < best - thr:
                best, to = low, at
            s, low, at = 0.0, np.inf, -1
            for k in range(x - 1, -1, -1):
                s -= D[o[k], job]
                if s < low:
                    low, at = s, k
            if at >= 0 and low < best - thr:
                best, to = low, at
            if _move(o, x, to, job):
                moved = True
        if not moved:
            break


def _segment_move(D, o, out, a, length, b):
    """out = o with o[a:a+length] moved to position b of the rest; returns the cost change."""
    n = len(o)
    delta = 0.0
    if b >= a:  # the segment passes behind o[a+length : b+length]
        for r in range(a + length, b + length):
            for s in range(a, a + length):
                delta += D[o[r], o[s]]
    else:  # the segment passes in front of o[b:a]
        for r in range(b, a):
            for s in range(a, a + length):
                delta -= D[o[r], o[s]]
    at = 0
    for k in range(n):
        if at == b:
            for s in range(a, a + length):
                out[at] = o[s]
                at += 1
        if k < a or k >= a + length:
            out[at] = o[k]
            at += 1
    if at == b:
        for s in range(a, a + length):
            out[at] = o[s]
            at += 1
    return delta


def _iterate(D, cur, best, kicks, thr, patience):
    """Descend `cur`, then one kick-and-descend per row of kicks (start, length, place), until
    `patience` kicks in a row have not improved the best order (patience < 0: every row); best
    receives the best order met. Returns the best order's cost change from the start. The
    helpers are called by name (`jit.pick` binds the compiled ones into the compiled loop)."""
    n = len(cur)
    change = _descend(D, cur, thr)
    best_change = change
    best[:] = cur
    trial = cur.copy()
    last = -1  # the last kick that improved the best order
    for t in range(kicks.shape[0]):
        if patience >= 0 and t - last > patience:
            break
        length = min(kicks[t, 1], n - 1)
        a = kicks[t, 0] % (n - length + 1)
        b = kicks[t, 2] % (n - length + 1)
        if a == b:
            continue
        g = _segment_move(D, cur, trial, a, length, b)
        g += _descend(D, trial, thr)
        if g <= thr:
            cur[:] = trial
            change += g
            if change < best_change - thr:
                best_change = change
                best[:] = cur
                last = t
    return best_change


_PLAIN: dict[str, Callable[..., Any]] = {
    "move": _move,
    "descend": _descend,
    "descend_jobs": _descend_jobs,
    "segment_move": _segment_move,
    "iterate": _iterate,
}


def _kernel(name: str, backend: str) -> Callable[..., Any]:
    return pick(_PLAIN, name, backend)


def _prepare(
    W: np.ndarray, order: np.ndarray | Sequence[int]
) -> tuple[np.ndarray, np.ndarray, float]:
    W = np.asarray(W, dtype=np.float64)
    D = np.ascontiguousarray(W - W.T)
    o = np.array(order, dtype=np.int64)
    thr = 1e-13 * float(np.max(np.abs(W))) if W.size else 0.0
    return D, o, thr


def descend(
    W: np.ndarray, order: np.ndarray | Sequence[int], *, backend: str = "cpu"
) -> np.ndarray:
    """A local optimum under single-job insertion moves, from `order` (improvements above 1e-13
    max|W|, the threshold of `lop.insertion_descent`)."""
    D, o, thr = _prepare(W, order)
    _kernel("descend", backend)(D, o, thr)
    return o


def job_descent(
    W: np.ndarray, order: np.ndarray | Sequence[int], max_sweeps: int = 50, *,
    backend: str = "cpu",
) -> np.ndarray:  # fmt: skip
    """`lop.insertion_descent` compiled: the same moves in the same order (sweeps over the jobs
    as they stood, best place behind unless the best in front is lower by more than 1e-13
    max|W|), so the same local optimum, to the last bit (the running sums are those of its
    cumsums); `descend` is a different rule (first improvement by position)."""
    D, o, thr = _prepare(W, order)
    if len(o) > 1:
        _kernel("descend_jobs", backend)(D, o, thr, int(max_sweeps))
    return o


def kicks(n: int, count: int, max_length: int, seed: int) -> np.ndarray:
    """count kicks (start, length, place) for an order of n: segments of 1..max_length jobs."""
    rng = np.random.default_rng(seed)
    out = np.empty((count, 3), dtype=np.int64)
    out[:, 0] = rng.integers(0, max(n, 1), count)
    out[:, 1] = rng.integers(1, max(max_length, 1) + 1, count)
    out[:, 2] = rng.integers(0, max(n, 1), count)
    return out


def iterated_search(
    W: np.ndarray,
    order: np.ndarray | Sequence[int],
    kick_table: np.ndarray,
    *,
    patience: int | None = None,
    backend: str = "cpu",
) -> np.ndarray:
    """The best order met by descent from `order`, then one kick and descent per row of
    `kick_table` (see `kicks`), accepting each result no worse than the current order; with
    `patience`, it stops once that many kicks in a row have not improved the best order (the
    rows it ran are a prefix of the table, so the result is that of the truncated table)."""
    D, o, thr = _prepare(W, order)
    if len(o) < 2:
        return o
    best = o.copy()
    table = np.ascontiguousarray(kick_table, dtype=np.int64)
    _kernel("iterate", backend)(D, o, best, table, thr, -1 if patience is None else int(patience))
    return best


def multistart(
    W: np.ndarray,
    order: np.ndarray | Sequence[int],
    *,
    starts: int,
    kicks_per_start: int,
    max_length: int,
    seed: int,
    backend: str = "cpu",
    stop: Callable[[], bool] | None = None,
) -> np.ndarray:
    """The cheapest of `iterated_search` from `starts` rotations of `order` (by k n / starts
    positions, k = 0..starts-1; each start its own kicks from `seed`). `stop` is asked before
    each rotation: once it says true, the best order so far (`order` itself at first)."""
    o = np.asarray(order, dtype=np.int64)
    n = len(o)
    best, best_cost = o, np.inf
    W = np.asarray(W, dtype=np.float64)
    for k in range(max(1, min(starts, n))):
        if stop is not None and stop():
            break
        start = np.roll(o, -((k * n) // max(starts, 1)))
        table = kicks(n, kicks_per_start, max_length, seed + k)
        cand = iterated_search(W, start, table, backend=backend)
        cost = float(np.triu(W[np.ix_(cand, cand)], 1).sum())
        if cost < best_cost:
            best, best_cost = cand, cost
    return best
