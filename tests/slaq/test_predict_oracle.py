"""The strict fitter (`predict.fit`: offset grid + NNLS of the transformed model, compiled in
fitcore.py) against an independent fit that shares none of its code: the points are densified by
scipy's natural `CubicSpline`, weighted decay^(now - k), and the same model under the same
bounds is fitted in loss space by `scipy.optimize.least_squares` from several starts.

What this pins (docs/slaq.md, "Prediction error"): our fit's weighted residual, evaluated on the
oracle's own points, is the residual our fitter reports (so window, densification and weights
agree); on noise-free curves both reach ~0; on shipped prefixes ours is near the optimum at the
median but not everywhere: on the near-flat plateau of linreg0.1 the grid leaves up to 0.88 of the
weighted variance that the optimum explains (10-ahead predictions then differ by < 8%).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.interpolate import CubicSpline
from scipy.optimize import least_squares

from schedlab.solvers.slaq import predict as P
from schedlab.solvers.slaq.curves import shipped_curve, shipped_names

FAMS = ("inverse-poly", "exponential")
#: Measured on every 7th prefix of every shipped curve (226 per family, 5 starts): median excess
#: 0.2% of the optimum's residual; max excess 0.88 (inverse-poly) / 0.98 (exponential) of the
#: weighted variance, both on linreg0.1's plateau; 10-ahead predictions within 7.6% relative.
MEDIAN_EXCESS = 0.01
MAX_EXCESS_OF_VARIANCE = 1.0
MAX_PRED_DIFF = 0.08


def points(h: np.ndarray, cfg: P.PredictorConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(k, loss, weight) the strict fitter should fit: the last `window` points, a window shorter
    than `spline_points` replaced by a natural spline at `spline_points` equally spaced k."""
    n = len(h)
    lo = max(0, n - cfg.window)
    k = np.arange(lo + 1, n + 1, dtype=float)
    y = np.asarray(h[lo:], dtype=float)
    if len(k) < cfg.spline_points:
        ks = np.linspace(k[0], k[-1], cfg.spline_points)
        y, k = CubicSpline(k, y, bc_type="natural")(ks), ks
    return k, y, cfg.decay ** (k[-1] - k)


def model(fam: str, p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """inverse-poly 1/(a u^2 + b u + c) + d; exponential exp(beta - alpha u) + c (u = k / now)."""
    if fam == "inverse-poly":
        a, b, c, d = p
        return 1 / (a * u * u + b * u + c) + d
    alpha, beta, c = p
    return np.exp(beta - alpha * u) + c


def jac(fam: str, p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """d model / d p (columns per parameter)."""
    if fam == "inverse-poly":
        a, b, c, _ = p
        q = -1 / (a * u * u + b * u + c) ** 2
        return np.stack([q * u * u, q * u, q, np.ones_like(u)], axis=1)
    alpha, beta, _ = p
    e = np.exp(beta - alpha * u)
    return np.stack([-u * e, e, np.ones_like(u)], axis=1)


def oracle(fam: str, k: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    """The smallest sum w (model - y)^2 over starts at offsets 0, .5, .9, .99, .999 of min y (the
    rest from a weighted polyfit of the transformed losses); offsets bounded by min y, as the
    model's transform needs (1/(L - d), log(L - c))."""
    u, lmin, sw = k / k[-1], float(y.min()), np.sqrt(w)
    best: tuple[float, np.ndarray] = (np.inf, np.zeros(0))
    for frac in (0.0, 0.5, 0.9, 0.99, 0.999):
        g = y - frac * lmin
        if fam == "inverse-poly":
            c = np.polyfit(u, 1 / g, 2, w=sw * g * g)
            x0 = np.array([c[0], c[1], c[2], frac * lmin])
            lb, ub = np.zeros(4), np.array([np.inf, np.inf, np.inf, lmin])
        else:
            c = np.polyfit(u, np.log(g), 1, w=sw * g)
            x0 = np.array([-c[0], c[1], frac * lmin])
            lb, ub = np.array([0.0, -np.inf, 0.0]), np.array([np.inf, np.inf, lmin])
        x0 = np.clip(x0, lb + 1e-12, np.where(np.isfinite(ub), ub * (1 - 1e-9), np.inf))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                r = least_squares(
                    lambda p: sw * (model(fam, p, u) - y),
                    x0,
                    jac=lambda p: sw[:, None] * jac(fam, p, u),
                    bounds=(lb, ub),
                    x_scale="jac",
                    ftol=1e-12,
                    xtol=1e-12,
                    gtol=1e-12,
                    max_nfev=500,
                )
            except ValueError:
                continue
            sse = float(np.sum(w * (model(fam, r.x, u) - y) ** 2))
        if np.isfinite(sse) and sse < best[0]:
            best = (sse, r.x)
    return best


def compare(h: np.ndarray, fam: str) -> dict[str, float] | None:
    """Ours against the oracle on one history (None when our fit fell back to another family)."""
    cfg = P.PredictorConfig()
    f = P.fit(h, fam, cfg)
    if f.family != fam:
        return None
    k, y, w = points(h, cfg)
    ours = float(np.sum(w * (f.predict(k - f.k_now) - y) ** 2))
    best, x = oracle(fam, k, y, w)
    var = float(np.sum(w * (y - np.average(y, weights=w)) ** 2))
    mine10 = float(f.predict(10.0))
    theirs10 = float(model(fam, x, np.array([(k[-1] + 10) / k[-1]]))[0])
    return {
        "ours": ours,
        "rss": f.rss,
        "oracle": best,
        "var": var,
        "pred_diff": abs(mine10 - theirs10) / abs(theirs10),
    }


def test_our_residual_is_the_independent_objective_and_noise_free_fits_agree():
    k = np.arange(1.0, 121.0)
    curves = {
        "inverse-poly": [1 / (0.002 * k**2 + 0.4 * k + 1) + 0.3, 1 / (0.05 * k + 0.5) + 2.0],
        "exponential": [0.93 ** (k - 3) + 0.2, 5 * 0.97**k + 1.0],
    }
    for fam, cs in curves.items():
        for c in cs:
            for n in (12, 45, 120):  # densified, densified, a full window
                r = compare(c[:n], fam)
                assert r is not None
                assert r["ours"] == pytest.approx(r["rss"], rel=1e-6, abs=1e-14 * r["var"])
                # the grid's resolution (measured <= 4.1e-6 of the variance; the oracle is exact
                # on a full window) and the spline's deviation from the model (both alike)
                assert r["ours"] - r["oracle"] <= 1e-5 * r["var"]
                assert r["pred_diff"] <= 5e-3


def shipped_prefixes(step: int) -> list[np.ndarray]:
    return [c[:n] for c in map(shipped_curve, shipped_names()) for n in range(5, len(c), step)]


@pytest.mark.parametrize("fam", FAMS)
def test_near_the_scipy_optimum_on_shipped_prefixes(fam):
    hs = shipped_prefixes(50) + [shipped_curve("linreg0.1")[:n] for n in (47, 54)]  # the worst
    rs = [r for r in (compare(h, fam) for h in hs) if r is not None]
    assert len(rs) > 20
    for r in rs:
        assert r["ours"] == pytest.approx(r["rss"], rel=1e-6, abs=1e-14 * r["var"])
        assert r["ours"] - r["oracle"] <= MAX_EXCESS_OF_VARIANCE * r["var"]
        assert r["pred_diff"] <= MAX_PRED_DIFF
    excess = [r["ours"] / r["oracle"] - 1 for r in rs if r["oracle"] > 0]
    assert np.median(excess) <= MEDIAN_EXCESS
    assert min(excess) > -1e-3  # the oracle is an optimum: ours is never much below it


@pytest.mark.slow
@pytest.mark.parametrize("fam", FAMS)
def test_near_the_scipy_optimum_on_every_7th_prefix(fam):
    rs = [r for r in (compare(h, fam) for h in shipped_prefixes(7)) if r is not None]
    for r in rs:
        assert r["ours"] - r["oracle"] <= MAX_EXCESS_OF_VARIANCE * r["var"]
        assert r["pred_diff"] <= MAX_PRED_DIFF
    assert np.median([r["ours"] / r["oracle"] - 1 for r in rs]) <= MEDIAN_EXCESS
