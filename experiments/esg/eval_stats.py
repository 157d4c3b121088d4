"""Intervals of ESG's evaluation, each made for its quantity, and the paired comparisons.

- a rate (SLO hit rate, in [0, 1]) over seeds: the percentile bootstrap of the mean over seeds
  (`mean_interval`; scipy.stats.bootstrap), which stays inside [0, 1] (a Student-t interval
  over 3 seeds of a proportion does not: it drew bars from -45 % to 178 %); pooled requests:
  the Wilson interval (`wilson`, scipy's binomtest), for one run's requests;
- the paired difference of two policies' hit rates, in points, per seed on the same app,
  arrivals and seed (`paired_points`): mean of the per-seed differences with the Student-t
  interval (`stats.t_half_width`), clipped to [-100, 100] (a difference of rates);
- a ratio of means over the same seeds (ESG's relative hit-rate gain hit_ESG / hit_b - 1,
  the cost saving cost_b / cost_ESG - 1): the paired percentile bootstrap over seeds
  (`paired_ratio`); infinite when the denominator's mean is 0.

`decided(lo, hi)`: the stopping rule of the sequential seeds (`evaluation.py`): an interval
of the difference that excludes 0 or is narrower than `DECIDE_WIDTH_PTS` points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats as sps

from schedlab.experiments.stats import t_half_width

CONFIDENCE = 0.95
#: Resamples of every bootstrap interval (seeded: the same rows give the same intervals).
BOOT_RESAMPLES = 2000
BOOT_SEED = 20240
#: The sequential seeds stop adding seeds to a comparison whose interval of the difference
#: (hit-rate points) excludes 0 or is narrower than this (the issue's 5 points).
DECIDE_WIDTH_PTS = 5.0


def _boot(data: tuple[np.ndarray, ...], stat: object, paired: bool) -> tuple[float, float]:
    """Percentile bootstrap interval of `stat` (vectorized over `axis`)."""
    if len(data[0]) < 2:
        return math.nan, math.nan
    with np.errstate(invalid="ignore"):  # resamples of a ratio may be inf (its std: nan)
        res = _bootstrap(data, stat, paired)
    ci = res.confidence_interval
    return float(ci.low), float(ci.high)


def _bootstrap(data: tuple[np.ndarray, ...], stat: object, paired: bool) -> Any:
    return sps.bootstrap(
        data,
        stat,  # type: ignore[arg-type]
        paired=paired,
        vectorized=True,
        method="percentile",
        n_resamples=BOOT_RESAMPLES,
        confidence_level=CONFIDENCE,
        rng=np.random.default_rng(BOOT_SEED),
    )


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.asarray(np.mean(x, axis=axis))


def mean_interval(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean of per-seed values (rates, costs) and its 95 % percentile-bootstrap interval over
    seeds: inside [0, 1] whenever the values are rates; nan bounds below 2 seeds."""
    x = np.asarray(xs, dtype=float)
    lo, hi = _boot((x,), _mean, paired=False)
    return float(x.mean()), lo, hi


def wilson(hits: int, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a proportion of pooled requests (`hits` of `n`)."""
    ci = sps.binomtest(hits, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(ci.low), float(ci.high)


def paired_points(ref: Sequence[float], other: Sequence[float]) -> tuple[float, float, float]:
    """Mean of the per-seed differences ref - other in points (rates x 100) and its 95 %
    t-interval, clipped to [-100, 100] (nan bounds with fewer than 2 seeds)."""
    d = 100.0 * (np.asarray(ref, dtype=float) - np.asarray(other, dtype=float))
    m = float(d.mean())
    h = t_half_width(d, CONFIDENCE)
    if h is None:
        return m, math.nan, math.nan
    return m, max(m - h, -100.0), min(m + h, 100.0)


def paired_ratio(num: Sequence[float], den: Sequence[float]) -> tuple[float, float, float]:
    """mean(num) / mean(den) - 1 over the same seeds, with its 95 % paired percentile-bootstrap
    interval; inf when mean(den) is 0 (a resample with a zero denominator counts as inf)."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if b.mean() <= 0:
        return math.inf, math.nan, math.nan

    def stat(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        ym = np.mean(y, axis=axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(np.where(ym > 0, np.mean(x, axis=axis) / ym - 1.0, np.inf))

    lo, hi = _boot((a, b), stat, paired=True)
    return float(a.mean() / b.mean() - 1.0), lo, hi


def decided(lo: float, hi: float) -> bool:
    """The stopping rule: the interval excludes 0 or is narrower than DECIDE_WIDTH_PTS."""
    if math.isnan(lo) or math.isnan(hi):
        return False
    return lo > 0 or hi < 0 or hi - lo < DECIDE_WIDTH_PTS
