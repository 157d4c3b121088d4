"""Gauss-Legendre nodes on [0, 1] for any size: numpy's eigenvalue method, or Newton for large q.

`numpy.polynomial.legendre.leggauss(q)` costs O(q^3) (about 100 s at q = 5001); Newton's method
on P_q from the asymptotic initial guesses costs O(q^2) and agrees with it to about 1e-15.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

NEWTON_FROM = 256  # below this, numpy's leggauss is fast and is used as is


@lru_cache(maxsize=64)
def gauss_legendre_01(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [0, 1] by numpy's leggauss (exact for polynomials
    of degree <= 2q-1); O(q^3), so `gauss_legendre_unit` switches to Newton for large q."""
    x, w = np.polynomial.legendre.leggauss(q)
    return (x + 1) / 2, w / 2


def _legendre_newton(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes x in (-1, 1) (descending) and weights of the q-point Gauss-Legendre rule."""
    k = np.arange(1, q + 1, dtype=float)
    x = np.cos(np.pi * (k - 0.25) / (q + 0.5))
    dp = np.ones_like(x)
    for _ in range(100):
        p0, p1 = np.ones_like(x), x.copy()
        for j in range(2, q + 1):  # three-term recurrence, vectorized over all nodes
            p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
        dp = q * (x * p1 - p0) / (x * x - 1.0)
        step = p1 / dp
        x = x - step
        if np.max(np.abs(step)) < 1e-16:
            break
    p0, p1 = np.ones_like(x), x.copy()
    for j in range(2, q + 1):
        p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
    dp = q * (x * p1 - p0) / (x * x - 1.0)
    w = 2.0 / ((1.0 - x * x) * dp * dp)
    return x, w


@lru_cache(maxsize=16)
def gauss_legendre_unit(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes u (ascending) and weights on [0, 1]; exact for polynomials of degree <= 2q - 1."""
    if q < 1:
        raise ValueError(f"q must be >= 1 (got {q})")
    if q < NEWTON_FROM:
        return gauss_legendre_01(q)
    x, w = _legendre_newton(q)
    order = np.argsort(x)
    return (x[order] + 1.0) / 2.0, w[order] / 2.0
