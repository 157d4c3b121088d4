"""The 3-cycles of a fractional tournament tight at an order, compiled by numba.

Arrays in, arrays out, no subject. Y is a tournament's matrix (Y[a, b] the share of a before b)
and D a pair-cost difference, both with rows and columns in the order's positions 0..n-1. For
each pair p < r that Y partly reverses (Y[r, p] > tol, r >= p + 2) the candidates are the q
between them whose cycle p -> q -> r -> p is violated (Y[p, q] + Y[q, r] + Y[r, p] > 2 + tol);
the `k` kept are those of the highest score, the violation less 1e-4 times the cost of reversing
(p, q) and (q, r) (D[p, q] + D[q, r]), ties to the smaller q. Rows come p by p, and within one
p by rank, then by r: a fixed order, so the LP that receives them follows one path everywhere.
Backend 'cpu' (numba) or 'numpy' (the same loops in plain Python: the reference for tests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.solvers.kernels.jit import pick


def _tight(Y, D, k, tol, out):
    """Write the rows (p, q, r) into out (as far as it has room); return how many there are.
    best_q[r, j] / best_s[r, j]: the j-th best candidate of pair (p, r), by score then q."""
    n = Y.shape[0]
    best_q = np.empty((n, k), dtype=np.int64)
    best_s = np.empty((n, k), dtype=np.float64)
    size = np.zeros(n, dtype=np.int64)
    rows = 0
    for p in range(n - 2):
        for r in range(p + 2, n):
            size[r] = 0
            if Y[r, p] <= tol:
                continue
            for q in range(p + 1, r):
                v = Y[p, q] + Y[q, r] + Y[r, p]
                if not v > 2.0 + tol:
                    continue
                s = v - 1e-4 * (D[p, q] + D[q, r])
                m = size[r]
                if m == k and not s > best_s[r, k - 1]:
                    continue  # no better than the k kept (a tie keeps the smaller q)
                at = m if m < k else k - 1
                while at > 0 and best_s[r, at - 1] < s:
                    best_s[r, at] = best_s[r, at - 1]
                    best_q[r, at] = best_q[r, at - 1]
                    at -= 1
                best_s[r, at] = s
                best_q[r, at] = q
                if m < k:
                    size[r] = m + 1
        for j in range(k):
            for r in range(p + 2, n):
                if j < size[r]:
                    if rows < out.shape[0]:
                        out[rows, 0] = p
                        out[rows, 1] = best_q[r, j]
                        out[rows, 2] = r
                    rows += 1
    return rows


_PLAIN: dict[str, Callable[..., Any]] = {"tight": _tight}


def tight_cycles(
    Y: np.ndarray, D: np.ndarray, k: int, tol: float, *, backend: str = "cpu",
    room: int | None = None,
) -> np.ndarray:  # fmt: skip
    """The rows (p, q, r) of the module's cycles, positions in the order, as an (m, 3) int64
    array. `room`: rows allotted at first (default 4 n k; a second pass with the exact count
    when there are more)."""
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    D = np.ascontiguousarray(D, dtype=np.float64)
    n, k = Y.shape[0], max(int(k), 1)
    if n < 3:
        return np.zeros((0, 3), dtype=np.int64)
    kernel = pick(_PLAIN, "tight", backend)
    out = np.empty((4 * n * k if room is None else room, 3), dtype=np.int64)
    rows = int(kernel(Y, D, k, float(tol), out))
    if rows > len(out):
        out = np.empty((rows, 3), dtype=np.int64)
        kernel(Y, D, k, float(tol), out)
    return out[:rows]
