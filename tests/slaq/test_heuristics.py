"""Max-min on quality (`maxmin_quality_extra`, `QualityLevel`) against brute force over every
integer allocation, the level on hand-computed fits, and the gain-based rule it replaces."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from schedlab.solvers.slaq.curves import shipped_curve, shipped_names
from schedlab.solvers.slaq.heuristics import QualityLevel, maxmin_extra, maxmin_quality_extra
from schedlab.solvers.slaq.predict import Fit, fit
from schedlab.solvers.slaq.quality import JobQuality, largest_drop


def table_fn(table, base):
    """c -> table[c - base]: a level given by its values at base + 0, 1, 2, ..."""
    t = np.asarray(table, dtype=float)
    return lambda c: t[np.asarray(c, dtype=int) - base]


def best_min(fns, base, free):
    """Brute force: the largest minimum over every split of `free` extra cores."""
    best = -np.inf
    for extra in itertools.product(range(free + 1), repeat=len(fns)):
        if sum(extra) == free:
            best = max(best, min(float(f(b + e)) for f, b, e in zip(fns, base, extra, strict=True)))
    return best


def min_of(fns, base, extra):
    return min(float(f(b + e)) for f, b, e in zip(fns, base, extra, strict=True))


@pytest.mark.parametrize("seed", range(60))
def test_maxmin_quality_is_brute_force_on_nondecreasing_tables(seed):
    """Random nondecreasing levels (not concave, with plateaus and ties): the water-filling's
    minimum is the largest minimum of all integer allocations, and it hands out every core."""
    rng = np.random.default_rng(seed)
    n, free = int(rng.integers(1, 5)), int(rng.integers(0, 9))
    base = [int(b) for b in rng.integers(1, 4, n)]
    steps = rng.choice([0.0, 0.0, 0.05, 0.1, 0.3], size=(n, free + 2))
    tables = np.cumsum(steps, axis=1) + rng.choice([0.0, 0.1, 0.2], size=(n, 1))
    fns = [table_fn(t, b) for t, b in zip(tables, base, strict=True)]
    extra = maxmin_quality_extra(fns, base, free)
    assert sum(extra) == free and min(extra) >= 0
    assert min_of(fns, base, extra) == pytest.approx(best_min(fns, base, free), abs=1e-12)


def fitted_levels(seed, n):
    """Levels of real fits: prefixes of shipped curves whose last loss fell (so the predicted
    loss does not rise and every level is nondecreasing in cores)."""
    rng = np.random.default_rng(seed)
    out = []
    names = shipped_names()
    while len(out) < n:
        curve = shipped_curve(names[int(rng.integers(len(names)))])
        k = int(rng.integers(2, min(len(curve), 80)))
        h = curve[:k]
        if h[-1] >= h[-2]:
            continue
        q = JobQuality(fit(h), float(rng.uniform(0.2, 2.0)), largest_drop(h))
        out.append(QualityLevel(q, float(h[0]), q.fit.l_now, float(h.min()), q.norm))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_maxmin_quality_is_brute_force_on_fitted_levels(seed):
    n, free = 2 + seed % 3, 4 + seed % 5
    fns = fitted_levels(seed, n)
    base = [1] * n
    for f in fns:  # nondecreasing, as the optimality argument needs
        v = f(np.arange(1, free + 2, dtype=float))
        assert np.all(np.diff(v) >= -1e-12)
    extra = maxmin_quality_extra(fns, base, free)
    assert sum(extra) == free
    assert min_of(fns, base, extra) == pytest.approx(best_min(fns, base, free), rel=1e-12)


def test_gain_based_maxmin_is_not_maxmin_on_quality():
    """A job far along (level 0.9, small gains) and one behind (level 0.1, large gains): the
    gain rule feeds the job of smallest gain, the quality rule the job behind."""
    ahead = table_fn([0.9 + 0.001 * c for c in range(8)], 1)
    behind = table_fn([0.1 + 0.1 * c for c in range(8)], 1)
    gain_a = table_fn([0.001 * c for c in range(8)], 1)
    gain_b = table_fn([0.1 * c for c in range(8)], 1)
    by_quality = maxmin_quality_extra([ahead, behind], [1, 1], 6)
    by_gain = maxmin_extra([gain_a, gain_b], [1, 1], 6)
    assert by_quality == [0, 6]
    assert min_of([ahead, behind], [1, 1], by_gain) < min_of([ahead, behind], [1, 1], by_quality)


def test_a_job_no_core_can_raise_does_not_absorb_the_cores():
    """A flat job at the minimum keeps the minimum whatever it gets: the cores go to the others
    (still max-min optimal, checked by brute force); all cores go somewhere when none can rise."""
    flat = table_fn([0.05] * 8, 1)
    rising = table_fn([0.2 + 0.1 * c for c in range(8)], 1)
    extra = maxmin_quality_extra([flat, rising], [1, 1], 5)
    assert extra == [0, 5] and min_of([flat, rising], [1, 1], extra) == best_min(
        [flat, rising], [1, 1], 5
    )
    assert sum(maxmin_quality_extra([flat, flat], [1, 1], 5)) == 5


def level(h, f, ipc=1.0):
    q = JobQuality(f, ipc, largest_drop(h))
    return QualityLevel(q, h[0], f.l_now, min(h), q.norm)


def test_quality_level_on_hand_computed_fits():
    """(L_first - L^(now + c T/W)) / (L_first - floor) on fits whose prediction is known."""
    # naive, losses 4, 3: L^(h) = 3 - h, clipped at 0 (floor 0, span 4)
    lv = level([4.0, 3.0], fit(np.array([4.0, 3.0]), "naive"))
    np.testing.assert_allclose(lv(np.array([0.0, 1.0, 2.0, 5.0])), [0.25, 0.5, 0.75, 1.0])
    # geometric, L^(h) = 2 * 0.5^h after 4, 2 (M = 2, floor 0): level = 1 - 0.5^(c + 1)
    lv = level([4.0, 2.0], Fit("geometric", (0.5,), 2.0, 2.0), ipc=1.0)
    np.testing.assert_allclose(lv(np.array([0.0, 1.0, 2.0])), [0.5, 0.75, 0.875])
    # a rising last step, 4, 2, 3: naive L^(h) = 3 + h; floor = the lowest loss seen, 2
    lv = level([4.0, 2.0, 3.0], fit(np.array([4.0, 2.0, 3.0]), "naive"))
    np.testing.assert_allclose(lv(np.array([0.0, 1.0, 3.0])), [0.5, 0.0, -1.0])
    # never dropped: no span, level 0
    lv = level([3.0, 3.0], fit(np.array([3.0, 3.0]), "geometric"))
    np.testing.assert_allclose(lv(np.array([0.0, 4.0])), [0.0, 0.0])
    # half speed (T / W = 0.5): c cores run c / 2 iterations
    lv = level([4.0, 3.0], fit(np.array([4.0, 3.0]), "naive"), ipc=0.5)
    np.testing.assert_allclose(lv(np.array([2.0, 4.0])), [0.5, 0.75])
