"""Intervals of ESG's evaluation: rates stay in [0, 1], paired differences by hand, ratios,
Wilson against its formula, and the stopping rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.experiments.esg import eval_stats as es
from schedlab.experiments.stats import t_half_width


def test_rate_interval_stays_in_the_unit_interval():
    # the case the old figure drew from -45 % to 178 %: three seeds of a proportion
    xs = [0.0, 1.0, 0.4]
    half = t_half_width(np.array(xs))
    assert half is not None and np.mean(xs) - half < 0 and np.mean(xs) + half > 1  # t leaves it
    m, lo, hi = es.mean_interval(xs)
    assert m == pytest.approx(1.4 / 3) and 0.0 <= lo <= m <= hi <= 1.0
    assert es.mean_interval([1.0, 1.0, 1.0])[1:] == (1.0, 1.0)
    assert all(math.isnan(v) for v in es.mean_interval([0.7])[1:])  # no interval below 2
    assert es.mean_interval(xs) == es.mean_interval(xs)  # seeded: the same rows, same interval


def test_paired_points_by_hand():
    # differences 10, 20, 30 points: mean 20, sd 10, t(0.975, 2) = 4.302653 -> half 24.841
    m, lo, hi = es.paired_points([0.9, 0.8, 0.7], [0.8, 0.6, 0.4])
    assert m == pytest.approx(20.0)
    assert hi - m == pytest.approx(4.302653 * 10 / math.sqrt(3), rel=1e-5)
    assert m - lo == pytest.approx(hi - m)
    # clipped to [-100, 100]
    m, lo, hi = es.paired_points([1.0, 1.0, 0.0], [0.0, 0.0, 0.0])
    assert hi == 100.0 and lo < m


def test_paired_ratio():
    g, lo, hi = es.paired_ratio([0.9, 0.9, 0.9], [0.5, 0.5, 0.5])
    assert g == pytest.approx(0.8) and lo == pytest.approx(0.8) and hi == pytest.approx(0.8)
    g, lo, hi = es.paired_ratio([2.0, 4.0, 3.0, 5.0], [1.0, 1.0, 2.0, 2.0])
    assert g == pytest.approx(14 / 6 - 1) and lo <= g <= hi
    assert es.paired_ratio([0.5, 0.6], [0.0, 0.0])[0] == math.inf


def test_wilson_matches_its_formula():
    k, n, z = 45, 50, 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    lo, hi = es.wilson(k, n)
    assert lo == pytest.approx(centre - half, rel=1e-9) and hi == pytest.approx(centre + half)
    assert es.wilson(50, 50)[1] == pytest.approx(1.0) and es.wilson(0, 50)[0] == 0.0


def test_decided_rule():
    assert es.decided(0.5, 9.0)  # excludes 0
    assert es.decided(-9.0, -0.1)
    assert es.decided(-2.0, 2.9)  # narrower than 5 points
    assert not es.decided(-2.0, 3.1)  # wider, straddles 0: add seeds
    assert not es.decided(math.nan, math.nan)
