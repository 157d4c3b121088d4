"""The fast fitting core against the design-matrix reference, and warm starts' tolerance."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.slaq import predict as P
from schedlab.solvers.slaq.curves import shipped_curve, shipped_names
from tests.slaq import numpy_fit as N
from tests.slaq import reference_fit as R


def prefixes(step: int) -> list[np.ndarray]:
    """Every `step`-th prefix (>= 5 points) of every shipped curve."""
    return [c[:n] for c in map(shipped_curve, shipped_names()) for n in range(5, len(c), step)]


def test_spd_solve_and_nnls_match_lapack_and_enumeration():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(200, 9, 3))
    y = rng.normal(size=(200, 9))
    ata = a.transpose(0, 2, 1) @ a
    rhs = rng.normal(size=(200, 3))
    np.testing.assert_allclose(
        N._spd_solve(ata, rhs), np.linalg.solve(ata, rhs[..., None])[..., 0], rtol=1e-9
    )
    for nonneg in ((True, True, True), (True, False, True)):
        x, ok = N._nnls_batch(a, y, nonneg)
        xr, okr = R.nnls_batch(a, y, nonneg)
        assert (ok == okr).all() and ok.sum() > 150  # x = 0 is not a candidate: some fail
        np.testing.assert_allclose(x[ok], xr[ok], atol=1e-9)


def test_moment_core_matches_the_design_matrix_reference(monkeypatch):
    hs = prefixes(7)
    fast = N.fit_many_numpy(hs)
    monkeypatch.setattr(
        N, "_step", lambda f, off, u, loss, w, lmin, s=None: R.step(f, off, u, loss, w)
    )
    ref = N.fit_many_numpy(hs)
    h = np.arange(1.0, 11.0)
    for a, b in zip(fast, ref, strict=True):
        assert a.family == b.family
        np.testing.assert_allclose(a.predict(h), b.predict(h), rtol=1e-7)
        assert a.rss == pytest.approx(b.rss, rel=1e-4, abs=1e-18)


def test_densify_cache_is_the_spline():
    k = np.arange(1.0, 18.0)
    loss = 1 / k + 0.1
    mat, ks = P._densify(17, 50)
    np.testing.assert_allclose(mat @ loss, P.natural_cubic_spline(k, loss, ks), rtol=1e-12)


# Warm starts search a bracket around the previous offset (fit_many(warm=...)). The offset is
# poorly identified on flat curves, so the tolerance is stated on the fitting criterion: the
# warm fit's weighted residual is at most WARM_RSS_TOL times the full search's (it is often
# smaller: both are grid searches), measured on every shipped curve, epochs of 3 and 8 points.
WARM_RSS_TOL = 1.2


@pytest.mark.parametrize("step", [3, 8])
def test_warm_start_residual_within_tolerance_of_full_search(step):
    ratios = []
    for c in map(shipped_curve, shipped_names()):
        prev = None
        for n in range(5, len(c) + 1, step):
            cold = P.fit_many([c[:n]])[0]
            warm = P.fit_many([c[:n]], warm=[prev])[0]
            prev = warm
            if cold.rss > 0 and np.isfinite(cold.rss):
                ratios.append(warm.rss / cold.rss)
    assert max(ratios) <= WARM_RSS_TOL
    assert np.median(ratios) <= 1.0 + 1e-9  # typically equal or better


def test_warm_start_without_previous_fit_is_the_full_search():
    hs = prefixes(23)
    cold = P.fit_many(hs)
    warm = P.fit_many(hs, warm=[None] * len(hs))
    assert [f.params for f in cold] == [f.params for f in warm]
    assert all(set(f.offsets) <= set(P.FAMILIES) for f in cold)
