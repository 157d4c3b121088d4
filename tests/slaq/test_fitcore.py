"""The compiled fitting core (solvers/slaq/fitcore.py via `fit_many`) against the numpy path
(`tests/slaq/numpy_fit.fit_many_numpy`): the same family, notes and candidates, predictions
and residuals equal to 1e-9 relative, on shipped-curve prefixes and random synthetic curves,
cold and warm."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.slaq import predict as P
from schedlab.solvers.slaq.curves import shipped_curve, shipped_names
from schedlab.solvers.slaq.generate import synthetic_curve
from tests.slaq import numpy_fit as N

H = np.arange(1.0, 11.0)


def shipped_prefixes(step: int) -> list[np.ndarray]:
    return [c[:n] for c in map(shipped_curve, shipped_names()) for n in range(2, len(c), step)]


def synthetic(count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    fams = ("inverse-poly", "exponential")
    out = [synthetic_curve(rng, int(rng.integers(5, 160)), fams[i % 2]) for i in range(count)]
    out += [rng.uniform(0.1, 3.0, int(rng.integers(5, 120))) for _ in range(count // 4)]  # noise
    out.append(np.array([1.0, -1.0, -2.0, -3.0, -4.0, -5.0]))  # no family fits
    return out


def assert_same(fast, ref) -> None:
    assert len(fast) == len(ref)
    for a, b in zip(fast, ref, strict=True):
        assert a.candidates.keys() == b.candidates.keys() and a.offsets.keys() == b.offsets.keys()
        if a.family != b.family and {a.family, b.family} <= set(b.candidates):
            # `auto` on an exact tie of the two families' residuals (equal to ~1e-16: both fit
            # the same points equally well, as at scale 1e12 under OpenBLAS's Haswell kernels):
            # the last bit decides, so either family is the documented choice.
            r = [b.candidates[f] for f in (a.family, b.family)]
            assert r[0] == pytest.approx(r[1], rel=1e-12), (a.family, b.family, r)
        else:
            assert (a.family, a.note) == (b.family, b.note)
            np.testing.assert_allclose(a.predict(H), b.predict(H), rtol=1e-9, atol=1e-300)
        for f in a.candidates:
            # root residuals: a near-perfect fit's residual is a difference of close numbers
            ra, rb = np.sqrt(a.candidates[f]), np.sqrt(b.candidates[f])
            assert ra == pytest.approx(rb, rel=1e-9, abs=1e-10 * abs(b.l_now))
        assert (a.k_now, a.l_now) == pytest.approx((b.k_now, b.l_now), rel=1e-12)


@pytest.mark.parametrize("model", ["auto", "inverse-poly", "exponential", "naive"])
def test_compiled_matches_numpy_on_shipped_prefixes(model):
    hs = shipped_prefixes(11)
    assert_same(P.fit_many(hs, model), N.fit_many_numpy(hs, model))


@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_matches_numpy_on_synthetic_curves(seed):
    hs = synthetic(60, seed)
    for model in ("auto", "exponential"):
        assert_same(P.fit_many(hs, model), N.fit_many_numpy(hs, model))


def test_compiled_warm_start_matches_numpy_warm_start():
    hs = shipped_prefixes(9)
    prev_hs = [h[: max(5, len(h) - 5)] for h in hs]
    fast = P.fit_many(hs, warm=list(P.fit_many(prev_hs)))
    ref = N.fit_many_numpy(hs, warm=N.fit_many_numpy(prev_hs))
    assert_same(fast, ref)


def test_fit_batch_arrays_are_the_fits_params():
    hs = shipped_prefixes(17)
    batch = P.fit_many(hs)
    code, params, k_now, l_now = batch.arrays()
    for i, f in enumerate(batch):
        c, p = P.packed(f)
        assert code[i] == c and (params[i] == p).all()
        assert (k_now[i], l_now[i]) == (f.k_now, f.l_now)
    assert batch[-1] == batch[len(batch) - 1] and len(batch[2:5]) == 3


def test_scalar_nnls_is_the_array_nnls_bitwise():
    """`_nnls3` / `_nnls2` (scalar, per offset) against `nnls_arrays` (the active-set
    enumeration on arrays), on random normal equations, well and badly conditioned: the same
    answer, bitwise."""
    from schedlab.solvers.slaq import fitcore as F

    rng = np.random.default_rng(8)
    ws = N.nnls_workspace()
    out = np.zeros(3)
    checked = [0, 0]
    for i in range(400):
        a = rng.normal(size=(12, 3)) * (10.0 ** rng.integers(-4, 5, 3))
        if i % 4 == 0:
            a[:, 2] = a[:, 1] * (1 + 1e-9)  # nearly collinear
        y = rng.normal(size=12) * 10.0 ** rng.integers(-3, 4)
        ata, aty, yty = a.T @ a, a.T @ y, float(y @ y)
        ok = N.nnls_arrays(ata, aty, yty, 3, out, ws)
        ok3, *x3 = F._nnls3(
            ata[0, 0], ata[0, 1], ata[0, 2], ata[1, 1], ata[1, 2], ata[2, 2], *aty, yty
        )
        assert ok == ok3 and (not ok or list(out) == x3)
        ok = N.nnls_arrays(ata[:2, :2], aty[:2], yty, 2, out, ws)
        ok2, *x2 = F._nnls2(ata[0, 0], ata[0, 1], ata[1, 1], aty[0], aty[1], yty)
        assert ok == ok2 and (not ok or list(out[:2]) == x2)
        checked[0] += ok3
        checked[1] += sum(v == 0 for v in x3)  # active constraints occur
    assert checked[0] > 300 and checked[1] > 100


def test_batch_offsets_array_is_fit_offsets_and_a_warm_start():
    hs = shipped_prefixes(13) + synthetic(20, 3)
    for model in ("auto", "exponential", "naive"):
        batch = P.fit_many(hs, model)
        offs = batch.offsets()
        for i, f in enumerate(batch):
            want = [f.offsets.get(name, np.nan) for name in P.FAMILIES]
            np.testing.assert_array_equal(offs[i], want)
    prev = P.fit_many([h[: max(5, len(h) - 4)] for h in hs])
    by_list = P.fit_many(hs, warm=list(prev))
    by_array = P.fit_many(hs, warm=prev.offsets())
    assert [f.params for f in by_list] == [f.params for f in by_array]


def test_musl_log_is_within_one_ulp_of_numpy():
    from schedlab.solvers.slaq import fitcore as F

    rng = np.random.default_rng(4)
    x = np.concatenate([np.exp(rng.uniform(-700, 700, 3000)), 1 + rng.normal(0, 1e-9, 300)])
    m, k = np.frexp(x)  # x = m 2^k, m in [0.5, 1): move m into [sqrt(2)/2, sqrt(2))
    low = m < np.sqrt(0.5)
    m, k = np.where(low, 2 * m, m), np.where(low, k - 1, k).astype(float)
    got = np.array([F._log_reduced(a, b) for a, b in zip(m, k, strict=True)])
    ref = np.log(x)
    assert np.all(np.abs(got - ref) <= np.spacing(np.abs(ref)))


@pytest.mark.parametrize("scale", [1e-303, 1e-150, 1e-12, 1e12])  # losses are at most 1e12
def test_compiled_matches_numpy_at_extreme_loss_scales(scale):
    """Gaps in the subnormal range take the libm log, the others musl's: either way the
    compiled fits are the numpy path's (1e-303: the smallest offsets' gaps are subnormal)."""
    hs = [h * scale for h in shipped_prefixes(11)]
    for model in ("auto", "exponential"):
        assert_same(P.fit_many(hs, model), N.fit_many_numpy(hs, model))
