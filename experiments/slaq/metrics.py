"""SLAQ vs a baseline, both ways: quality improvement and delay reduction, with t-intervals.

The paper (Zhang et al., SoCC 2017) reports "an average quality improvement of up to 73% and an
average delay reduction of up to 44%"; the authors' code computes neither number, so both
readings are kept here, each named by its definition (fractions, not percent):

- quality improvement at an epoch t: 1 - L_new(t) / L_base(t), L the mean normalized loss of
  the running jobs (lower loss = higher quality), over the epochs both runs record
  (`aligned`: the same times; the series passed in must already be aligned) and where
  L_base(t) >= `MIN_BASE_LOSS` (so that ~0 / ~0 does not dominate);
  "up to" = its maximum over t; "time-averaged" = 1 - sum_t L_new / sum_t L_base;
- delay reduction to 90% (95%) of a job's loss reduction, over the jobs that reach the level in
  both runs: "ratio of means" = 1 - mean_j t_new / mean_j t_base; "mean of ratios" =
  mean_j (1 - t_new,j / t_base,j);
- over seeds: the mean and the half-width of the two-sided 95% Student t-interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Series = Sequence[float] | npt.NDArray[np.float64]

#: Epochs whose baseline loss is below this are left out of the improvement (~0 / ~0).
MIN_BASE_LOSS = 0.02

#: Two-sided 95% Student t quantiles t_{0.975, df} for df = 1..30 (to 6 decimals).
_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582,
    2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
    2.200985, 2.178813, 2.160369, 2.144787, 2.131450,
    2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
    2.079614, 2.073873, 2.068658, 2.063899, 2.059539,
    2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip


def aligned(
    times_a: Sequence[float],
    a: Sequence[float],
    times_b: Sequence[float],
    b: Sequence[float],
) -> tuple[np.ndarray, np.ndarray]:
    """The two series at the epochs both recorded (the same epoch grid; ms-rounded times)."""
    tb = {round(t * 1000): i for i, t in enumerate(times_b)}
    idx = [(i, tb[round(t * 1000)]) for i, t in enumerate(times_a) if round(t * 1000) in tb]
    return (
        np.asarray([a[i] for i, _ in idx], dtype=float),
        np.asarray([b[k] for _, k in idx], dtype=float),
    )


def _common(new: Series, base: Series, min_base: float) -> tuple[np.ndarray, np.ndarray]:
    """The two loss series over their shared epochs where the baseline is at least `min_base`."""
    n = min(len(new), len(base))
    a, b = np.asarray(new[:n], dtype=float), np.asarray(base[:n], dtype=float)
    keep = np.isfinite(a) & np.isfinite(b) & (b >= min_base)
    return a[keep], b[keep]


def improvement_up_to(new: Series, base: Series, min_base: float = MIN_BASE_LOSS) -> float | None:
    """Largest relative loss reduction 1 - L_new(t) / L_base(t) over time (None: no epoch)."""
    a, b = _common(new, base, min_base)
    return float(np.max(1.0 - a / b)) if len(a) else None


def improvement_time_avg(
    new: Series, base: Series, min_base: float = MIN_BASE_LOSS
) -> float | None:
    """Time-averaged relative loss reduction 1 - sum_t L_new / sum_t L_base (None: no epoch)."""
    a, b = _common(new, base, min_base)
    return float(1.0 - a.sum() / b.sum()) if len(a) and b.sum() > 0 else None


def _paired(
    new: Sequence[float | None], base: Sequence[float | None]
) -> tuple[np.ndarray, np.ndarray]:
    """Per-job delays of the jobs that have one in both runs (and a positive baseline)."""
    pairs = [
        (x, y)
        for x, y in zip(new, base, strict=True)
        if x is not None and y is not None and y > 0 and math.isfinite(x) and math.isfinite(y)
    ]
    if not pairs:
        return np.zeros(0), np.zeros(0)
    a, b = zip(*pairs, strict=True)
    return np.asarray(a, dtype=float), np.asarray(b, dtype=float)


def delay_ratio_of_means(new: Sequence[float | None], base: Sequence[float | None]) -> float | None:
    """Delay reduction 1 - mean_j t_new / mean_j t_base over the paired jobs (None: none)."""
    a, b = _paired(new, base)
    return float(1.0 - a.mean() / b.mean()) if len(a) else None


def delay_mean_of_ratios(new: Sequence[float | None], base: Sequence[float | None]) -> float | None:
    """Delay reduction mean_j (1 - t_new,j / t_base,j) over the paired jobs (None: none)."""
    a, b = _paired(new, base)
    return float(np.mean(1.0 - a / b)) if len(a) else None


def t_quantile_975(df: int) -> float:
    """t_{0.975, df}: the table for df <= 30, above it a Cornish-Fisher expansion (error < 1e-6)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1 (got {df})")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def mean_ci(values: Sequence[float | None]) -> tuple[float | None, float | None, int]:
    """(mean, half-width of the 95% t-interval, n) of the defined values; half-width None
    when fewer than 2 values."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if len(v) == 0:
        return None, None, 0
    if len(v) == 1:
        return float(v[0]), None, 1
    half = t_quantile_975(len(v) - 1) * float(np.std(v, ddof=1)) / math.sqrt(len(v))
    return float(v.mean()), half, len(v)
