"""The 3-cycles of a fractional tournament among the triangle rows tight at an order, compiled
by numba.

Arrays in, arrays out, no subject. Positions p < q < r of an order have the row of the cycle
p -> q -> r -> p tight there (x_pq + x_qr - x_pr = 1 at the order's 0/1 point). Given the
tournament Yp in the order's positions (Yp[a, b]: the share of a before b) and the scaled cost
differences Dp there, `tight_cycles` returns, for every pair (p, r) that Yp partly reverses
(Yp[r, p] > tol, r >= p + 2), the middles q it violates (Yp[p, q] + Yp[q, r] + Yp[r, p] > 2 +
tol), at most `per_pair` of them: the most violated first, ties to the middles whose pairs cost
most to reverse (score V - 1e-4 (Dp[p, q] + Dp[q, r]); equal scores by `tie`). The work
is the sum over the reversed pairs of r - p, without the n x |reversed| slices a whole-array
form builds for each p (PACE #67's first round, 19,566 reversed pairs at n = 1,024: 0.45 s as
such slices).
Rows come out by p, then by rank (the most violated of every pair (p, r) first), then by r.
lpcut does not use it (`exact_lpcut.incumbent_cycles` keeps its whole-array form): which
middles it takes among equal scores changes the LP rounds that follow, and ties to the smaller
middle cost PACE #96 8 interior-point rounds against 5 (`experiments/bench/bench_tight_cycles`,
docs/tried.md).
Backends: 'cpu' (numba) or 'numpy' (the same loops in plain Python: the reference for tests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.solvers.kernels.jit import pick

TIE_WEIGHT = 1e-4  # the cost differences' weight in the score: a tie-break between violations


def _key(p, q, r, mode):
    """The tie key of middle q of pair (p, r): the smaller wins ('first': q itself; 'hash': a
    fixed hash of the triple, so equal scores pick middles spread over (p, r))."""
    if mode == 0:
        return q
    return ((p * 73856093) ^ (q * 19349663) ^ (r * 83492791)) % 1000003


def _cycles(Yp, Dp, per_pair, tol, out, mode):
    """Fill out[:m] with the (p, q, r) of the module docstring; returns m. out has room for
    per_pair rows per reversed pair; per_pair >= 1."""
    n = Yp.shape[0]
    m = 0
    rs = np.empty(n, np.int64)
    got = np.empty(n, np.int64)
    top = np.empty((n, per_pair), np.int64)
    score = np.empty(per_pair, np.float64)
    key = np.empty(per_pair, np.int64)
    for p in range(n - 2):
        nr = 0
        for r in range(p + 2, n):
            if Yp[r, p] > tol:
                rs[nr] = r
                nr += 1
        for i in range(nr):
            r = rs[i]
            cnt = 0
            for q in range(p + 1, r):
                v = Yp[p, q] + Yp[q, r] + Yp[r, p]
                if v <= 2.0 + tol:
                    continue
                sc = v - TIE_WEIGHT * (Dp[p, q] + Dp[q, r])
                h = _key(p, q, r, mode)
                if cnt < per_pair:
                    at = cnt
                    cnt += 1
                elif sc > score[-1] or (sc == score[-1] and h < key[-1]):
                    at = per_pair - 1
                else:
                    continue
                while at > 0 and (score[at - 1] < sc or (score[at - 1] == sc and key[at - 1] > h)):
                    score[at] = score[at - 1]
                    key[at] = key[at - 1]
                    top[i, at] = top[i, at - 1]
                    at -= 1
                score[at] = sc
                key[at] = h
                top[i, at] = q
            got[i] = cnt
        for rank in range(per_pair):
            for i in range(nr):
                if rank < got[i]:
                    out[m, 0] = p
                    out[m, 1] = top[i, rank]
                    out[m, 2] = rs[i]
                    m += 1
    return m


_PLAIN: dict[str, Callable[..., Any]] = {"cycles": _cycles, "key": _key}
TIES = ("first", "hash")  # `_key`'s rules, in its mode numbering


def tight_cycles(
    Yp: np.ndarray,
    Dp: np.ndarray,
    per_pair: int,
    tol: float,
    *,
    tie: str = "first",
    backend: str = "cpu",
) -> np.ndarray:
    """(m, 3) positions (p, q, r) of the module docstring, for an n x n tournament Yp and cost
    differences Dp (float64, in the order's positions); equal scores go to the smaller middle
    (tie 'first') or to the smaller hash of the triple ('hash')."""
    if per_pair < 0:
        raise ValueError(f"per_pair must be >= 0, not {per_pair}")
    if tie not in TIES:
        raise ValueError(f"tie must be one of {', '.join(TIES)}, not {tie!r}")
    Yp = np.ascontiguousarray(Yp, dtype=np.float64)
    Dp = np.ascontiguousarray(Dp, dtype=np.float64)
    n = Yp.shape[0]
    if n < 3 or per_pair == 0:
        return np.zeros((0, 3), dtype=np.int64)
    reversed_pairs = int(np.count_nonzero(np.tril(Yp, -2) > tol))
    out = np.empty((per_pair * reversed_pairs, 3), dtype=np.int64)
    m = pick(_PLAIN, "cycles", backend)(Yp, Dp, int(per_pair), float(tol), out, TIES.index(tie))
    return out[:m]
