"""SLAQ's comparison metrics (`experiments/slaq/metrics.py`) on hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.experiments.slaq import metrics as m
from schedlab.experiments.stats import t_quantile


def test_quality_improvement_up_to_and_time_averaged_by_hand():
    new, base = [0.6, 0.1, 0.001], [1.0, 0.4, 0.01]  # the last epoch: base below 0.02, left out
    assert m.improvement_up_to(new, base) == pytest.approx(0.75, rel=1e-12)  # max(0.4, 0.75)
    assert m.improvement_time_avg(new, base) == pytest.approx(1 - 0.7 / 1.4, rel=1e-12)
    assert m.improvement_up_to([0.5], [0.01]) is None  # no epoch left


def test_series_are_aligned_on_shared_epochs():
    a, b = m.aligned([0.0, 3.0, 9.0], [0.5, 0.4, 0.3], [3.0, 6.0, 9.0], [0.8, 0.7, 0.6])
    assert a.tolist() == [0.4, 0.3] and b.tolist() == [0.8, 0.6]


def test_delay_ratio_of_means_is_not_mean_of_ratios():
    new, base = [10.0, 100.0, None], [20.0, 110.0, 50.0]  # the third job: no pair, left out
    assert m.delay_ratio_of_means(new, base) == pytest.approx(1 - 110 / 130, rel=1e-12)
    assert m.delay_mean_of_ratios(new, base) == pytest.approx((0.5 + 1 - 100 / 110) / 2, rel=1e-12)
    assert m.delay_ratio_of_means([None], [1.0]) is None


def test_t_quantiles_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in [*range(1, 41), 50, 80, 120, 500]:
        assert t_quantile(0.975, df) == pytest.approx(stats.t.ppf(0.975, df), rel=2e-6)
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)


def test_mean_ci_by_hand_and_degenerate_cases():
    mean, half, n = m.mean_ci([1.0, 2.0, 3.0, 4.0, 5.0, None])
    assert (mean, n) == (3.0, 5)
    assert half == pytest.approx(2.776445105197799 * math.sqrt(2.5) / math.sqrt(5), rel=1e-12)
    assert m.mean_ci([2.0]) == (2.0, None, 1)
    assert m.mean_ci([None]) == (None, None, 0)


def test_ci_width_shrinks_like_root_n_and_covers_about_95_percent():
    rng = np.random.default_rng(7)
    halves = {n: np.mean([m.mean_ci(rng.normal(0, 1, n))[1] for _ in range(400)]) for n in (10, 40)}
    assert 1.7 < halves[10] / halves[40] < 2.4  # ~ 2 (root 4, and t shrinks a little)
    covered = 0
    for _ in range(2000):
        mean, half, _ = m.mean_ci(rng.normal(0, 1, 10))
        covered += abs(mean) <= half
    assert 0.93 < covered / 2000 < 0.97
