"""Student-t intervals over independent runs (seeds, replications), shared by the subjects'
experiments: one exact quantile (bisection on the t CDF by mpmath's incomplete beta, so it
does not rest on the library the tests compare it with) and the half-width built on it."""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np


@lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """Quantile of Student's t with `df` degrees of freedom (bisection on the exact CDF)."""
    if not 0 < p < 1 or df < 1:
        raise ValueError(f"t_quantile: need 0 < p < 1 and df >= 1 (got {p}, {df})")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)

    def cdf(t: float) -> float:
        x = df / (df + t * t)
        tail = 0.5 * float(mpmath.betainc(df / 2, 0.5, 0, x, regularized=True))
        return 1.0 - tail

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if cdf(mid) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def t_half_width(values: np.ndarray, confidence: float = 0.95) -> float | None:
    """Half-width of the two-sided t-interval of the mean of `values` (None below 2 values)."""
    n = len(values)
    if n < 2:
        return None
    sd = float(np.std(values, ddof=1))
    return t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
