"""Householder QR of a tall matrix in numba (single-threaded, deterministic).

Used to compress the B factor tables. numpy's LAPACK QR runs multithreaded OpenBLAS, which was
16x slower than single-threaded on the shared 2-core development machine (10,000 x 285 took 24 s);
this one takes well under a second there and needs no thread settings.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _qr_rows(At):  # pragma: no cover - compiled
    """In place on At = A^T (r x m, rows are A's columns): Householder vectors below the
    diagonal of each row j (v_j stored in At[j, j:], with beta_j = 2 / |v_j|^2), R returned."""
    r, m = At.shape
    R = np.zeros((r, r))
    beta = np.zeros(r)
    for j in range(r):
        norm2 = 0.0
        for x in range(j, m):
            norm2 += At[j, x] * At[j, x]
        norm = np.sqrt(norm2)
        if norm == 0.0:
            beta[j] = 0.0
            continue
        alpha = -norm if At[j, j] >= 0 else norm
        At[j, j] -= alpha
        vnorm2 = norm2 - 2.0 * alpha * (At[j, j] + alpha) + alpha * alpha
        # |v|^2 = |a|^2 - 2 alpha a_0 + alpha^2 with a_0 the original pivot (= At[j,j] + alpha)
        beta[j] = 2.0 / vnorm2 if vnorm2 > 0 else 0.0
        R[j, j] = alpha
        for c in range(j + 1, r):
            s = 0.0
            for x in range(j, m):
                s += At[j, x] * At[c, x]
            s *= beta[j]
            for x in range(j, m):
                At[c, x] -= s * At[j, x]
            R[j, c] = At[c, j]
    return R, beta


@njit(cache=True)
def _apply_q(At, beta, X):  # pragma: no cover - compiled
    """Q @ [X; 0] for X (r x k): returns an (m x k) array."""
    r, m = At.shape
    k = X.shape[1]
    Yt = np.zeros((k, m))
    for c in range(k):
        for j in range(r):
            Yt[c, j] = X[j, c]
    for j in range(r - 1, -1, -1):
        if beta[j] == 0.0:
            continue
        for c in range(k):
            s = 0.0
            for x in range(j, m):
                s += At[j, x] * Yt[c, x]
            s *= beta[j]
            for x in range(j, m):
                Yt[c, x] -= s * At[j, x]
    return Yt.T.copy()


class HouseholderQR:
    """A = Q R for a tall (m x r) matrix; Q is kept as reflectors and applied on demand."""

    def __init__(self, A: np.ndarray) -> None:
        m, r = A.shape
        if m < r:
            raise ValueError(f"HouseholderQR needs a tall matrix (got {A.shape})")
        self._At = np.ascontiguousarray(A.T, dtype=np.float64).copy()
        self.R, self._beta = _qr_rows(self._At)

    def q_times(self, X: np.ndarray) -> np.ndarray:
        """Q[:, :r] @ X for X with r rows."""
        return _apply_q(self._At, self._beta, np.ascontiguousarray(X, dtype=np.float64))
