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

from schedlab.experiments.stats import t_half_width

Series = Sequence[float] | npt.NDArray[np.float64]

#: Epochs whose baseline loss is below this are left out of the improvement (~0 / ~0).
MIN_BASE_LOSS = 0.02


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


def mean_ci(values: Sequence[float | None]) -> tuple[float | None, float | None, int]:
    """(mean, half-width of the 95% t-interval, n) of the defined values; half-width None
    when fewer than 2 values."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if len(v) == 0:
        return None, None, 0
    return float(v.mean()), t_half_width(v), len(v)
