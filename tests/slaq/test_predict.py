"""Predictors on synthetic curves with known parameters, fallbacks, and the error study."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.curves import load_curve, shipped_curve, shipped_names
from schedlab.solvers.slaq.predict import (
    PredictorConfig,
    fit,
    mean_without_top,
    natural_cubic_spline,
    prediction_errors,
)

K = np.arange(1, 61, dtype=float)


def test_inverse_poly_recovers_known_curve():
    truth = lambda k: 1 / (0.02 * k**2 + 0.5 * k + 1) + 0.3  # noqa: E731
    f = fit(truth(K), "inverse-poly")
    assert f.family == "inverse-poly"
    pred = f.predict(np.array([1.0, 10.0, 40.0]))
    np.testing.assert_allclose(pred, truth(60 + np.array([1.0, 10.0, 40.0])), rtol=2e-3)


def test_exponential_recovers_known_curve():
    truth = lambda k: 0.9 ** (k - 2) + 0.1  # noqa: E731
    f = fit(truth(K), "exponential")
    assert f.family == "exponential"
    alpha, _beta, c, scale = f.params
    assert np.exp(-alpha / scale) == pytest.approx(0.9, rel=5e-3)  # offset grid resolution
    assert c == pytest.approx(0.1, rel=1e-2)
    np.testing.assert_allclose(f.predict(10.0), truth(70.0), rtol=1e-3)


def test_auto_picks_the_generating_family():
    assert fit(0.85 ** (K - 1) + 0.2, "auto").family == "exponential"
    f = fit(1 / (0.001 * K**2 + 0.3 * K + 0.5) + 1.0, "auto")
    assert f.family == "inverse-poly" and "auto: inverse-poly" in f.note


def test_naive_and_geometric_rules():
    h = [4.0, 3.0, 2.0]
    np.testing.assert_allclose(fit(h, "naive").predict([1.0, 5.0]), [1.0, 0.0])  # clipped at 0
    np.testing.assert_allclose(fit(h, "geometric").predict([2.0]), [2.0 * (2 / 3) ** 2])


def test_fallbacks_never_crash():
    assert fit([1.0], "auto").family == "constant"
    assert fit([2.0, 1.0], "auto").family == "geometric"  # fewer than 5 points
    f = fit([1.0, -1.0, -2.0, -3.0, -4.0, -5.0], "inverse-poly")  # non-positive: no family fits
    assert f.family == "naive" and "no family fits" in f.note
    assert np.all(f.predict(np.arange(5.0)) >= 0)


def test_spline_interpolates_and_is_exact_on_lines():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    y = 3 - 0.5 * x
    xs = np.linspace(1, 7, 13)
    np.testing.assert_allclose(natural_cubic_spline(x, y, xs), 3 - 0.5 * xs, atol=1e-12)
    np.testing.assert_allclose(natural_cubic_spline(x, x**2, x), x**2, atol=1e-12)


def test_window_and_decay_weigh_recent_points():
    # a curve that changes regime: the fit follows the last points, not the first ones
    h = np.concatenate([np.full(100, 5.0), 0.8 ** np.arange(30) + 1.0])
    f = fit(h, "exponential", PredictorConfig(window=30))
    assert f.predict(1.0) == pytest.approx(0.8**30 + 1.0, rel=1e-2)


def test_error_study_shape():
    curve = 0.9 ** (np.arange(40.0)) + 0.5
    r = prediction_errors(curve, "exponential", (1, 5))
    assert set(r["mean_relative_error_pct"]) == {1, 5}
    assert r["mean_relative_error_pct"][1] < 0.1
    n1 = sum(1 for p in r["predictions"] if p["ahead"] == 1)
    assert n1 == 40 - 5


@pytest.mark.parametrize("n", [104, 105])
def test_strict_drop_top_on_a_hand_made_case(n):
    """A line L_k = 200 - k with one bump of B at k = 50: the naive rule 1 ahead is exact except
    three predictions (target 50: B/(L_50 + B); from 50: 2B/L_51; from 51: B/L_52). Strict
    scoring scores n - 5 predictions and drops the floor(1%) largest: none of 99, one of 100."""
    k = np.arange(1.0, n + 1)
    curve = 200.0 - k
    bump = 10.0
    curve[49] += bump
    errors = [bump / (150.0 + bump), 2 * bump / 149.0, bump / 148.0]
    r = prediction_errors(curve, "naive", (1,))
    scored = n - 5
    assert sum(p["relative_error"] > 1e-12 for p in r["predictions"]) == 3
    kept = errors if scored < 100 else [errors[0], errors[2]]
    assert r["dropped"][1] == scored // 100
    want = 100 * sum(kept) / (scored - scored // 100)
    assert r["mean_relative_error_pct"][1] == pytest.approx(want, rel=1e-9)


def test_mean_without_top_drops_floor_one_percent():
    errs = [float(i) for i in range(1, 201)]  # 200 errors: the two largest go
    assert mean_without_top(errs) == (pytest.approx(100 * sum(range(1, 199)) / 198), 2)
    assert mean_without_top(errs[:99]) == (pytest.approx(100 * 50.0), 0)
    assert mean_without_top([3.0, 1.0, 2.0], drop_top=0.34) == (pytest.approx(150.0), 1)


def test_fitted_families_beat_naive_on_shipped_logreg():
    curve = shipped_curve("logreg")
    fitted = prediction_errors(curve, "exponential", (10,))["mean_relative_error_pct"][10]
    naive = prediction_errors(curve, "naive", (10,))["mean_relative_error_pct"][10]
    assert fitted < naive


def test_shipped_curves_and_loading(tmp_path):
    assert len(shipped_names()) == 9
    assert len(shipped_curve("logreg")) == 100
    p = tmp_path / "bad.txt"
    p.write_text("1.0\nabc\n\ninf\n")
    with pytest.raises(InvalidInput) as e:
        load_curve(p)
    assert "line 2" in str(e.value) and "line 4" in str(e.value)
    with pytest.raises(InvalidInput, match="shipped curves"):
        shipped_curve("nope")
