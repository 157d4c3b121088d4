"""The numpy path of `predict.fit_many` and the array form of the compiled NNLS, moved out of
the package: test oracles only. `fit_many_numpy` computes what `solvers/slaq/fitcore.py`
computes (the families' fits batched across jobs, normal-equation moments, exact NNLS by
active-set enumeration); tests/slaq/test_fitcore.py checks the compiled path against it, and
tests/slaq/test_predict_fast.py checks it against the design-matrix reference
(`reference_fit.py`). `nnls_arrays` is the array enumeration that fitcore's scalar `_nnls3` /
`_nnls2` reproduce bitwise."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from schedlab.solvers.slaq.predict import (
    FAMILIES,
    GRID,
    T_MIN,
    WARM_GRID,
    WARM_SPAN,
    Fit,
    PredictorConfig,
    _densify,
    _simple,
    _triage,
)


# ---- weighted non-negative least squares (tiny, exact, batched) ----------------------------
def _spd_solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with a x = b per batch (a: (B, r, r) symmetric positive (semi)definite, r <= 3), by an
    unpivoted LDL' factorization written out elementwise (vectorized over B; a LAPACK call per
    tiny system is ~10x slower). Singular systems give non-finite x."""
    r = a.shape[1]
    lo: dict[tuple[int, int], np.ndarray] = {}
    d: list[np.ndarray] = []
    for i in range(r):
        for j in range(i):
            s = a[:, i, j] - sum((lo[i, k] * lo[j, k] * d[k] for k in range(j)), np.zeros(1))
            lo[i, j] = s / d[j]
        d.append(a[:, i, i] - sum((lo[i, k] ** 2 * d[k] for k in range(i)), np.zeros(1)))
    z: list[np.ndarray] = []
    for i in range(r):
        z.append(b[:, i] - sum((lo[i, k] * z[k] for k in range(i)), np.zeros(1)))
    x: list[np.ndarray] = [np.zeros(0)] * r
    for i in reversed(range(r)):
        x[i] = z[i] / d[i] - sum((lo[k, i] * x[k] for k in range(i + 1, r)), np.zeros(1))
    return np.stack(x, axis=1)


def _nnls_normal(
    ata: np.ndarray, aty: np.ndarray, yty: np.ndarray, nonneg: tuple[bool, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Exact solutions of min |A x - y| with x_j >= 0 where `nonneg[j]`, per batch, from the
    normal-equation moments (A'A: (B, m, m), A'y: (B, m), y'y: (B,)); returns x (B, m) and
    whether a feasible solution exists (B,).

    Every subset of columns is solved by least squares; the NNLS optimum is the feasible
    subset solution of smallest residual (it is the least-squares solution on its own
    support), found by comparing |A x - y|^2 = y'y - 2 x'A'y + x'A'A x.
    """
    b, m = aty.shape
    best_x = np.zeros((b, m))
    best_r = np.full(b, np.inf)
    for r in range(1, m + 1):
        for cols in itertools.combinations(range(m), r):
            if any(not nonneg[j] for j in range(m) if j not in cols):
                continue  # a free column is never dropped
            idx = np.array(cols)
            sub = ata[:, idx[:, None], idx[None, :]] + 1e-12 * np.eye(r)
            rhs = aty[:, idx]
            with np.errstate(all="ignore"):
                xs = _spd_solve(sub, rhs)
                res = (
                    yty
                    - 2 * np.einsum("bi,bi->b", xs, rhs)
                    + np.einsum("bi,bij,bj->b", xs, sub, xs)
                )
            ok = np.all(np.isfinite(xs), axis=1) & np.isfinite(res)
            for pos, j in enumerate(idx):
                if nonneg[j]:
                    ok &= xs[:, pos] >= 0
            better = ok & (res < best_r)
            best_r = np.where(better, res, best_r)
            best_x[better] = 0.0
            best_x[np.ix_(better, idx)] = xs[better]
    return best_x, np.isfinite(best_r)


def _nnls_batch(
    a: np.ndarray, y: np.ndarray, nonneg: tuple[bool, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """`_nnls_normal` from the design matrix itself (A: (B, n, m), y: (B, n))."""
    at = a.transpose(0, 2, 1)
    aty = (at @ y[..., None])[..., 0]
    return _nnls_normal(at @ a, aty, np.einsum("bn,bn->b", y, y), nonneg)


def _offset_grid(lmin: np.ndarray) -> np.ndarray:
    """Per job, offsets in [0, lmin) dense near lmin (where flat curves put their asymptote)."""
    return lmin[:, None] * (1.0 - np.geomspace(1e-4, 1.0, GRID))[None, :]


def _refined(grid: np.ndarray, i: np.ndarray, lmin: np.ndarray) -> np.ndarray:
    """Per job, a finer grid between the neighbours of its best grid point i."""
    rows = np.arange(len(i))
    lo = grid[rows, np.minimum(i + 1, grid.shape[1] - 1)]
    hi = np.where(i > 0, grid[rows, np.maximum(i - 1, 0)], lmin * (1 - 1e-6))
    return lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, GRID)[None, :]


_BINOM = np.array(
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]]
)


def _power_sums(e: np.ndarray, u: np.ndarray, w: np.ndarray) -> np.ndarray:
    """S[j, a, p] = sum_n w e^a u^p for a, p = 0..4 (offset-free; see `_gap_moments`)."""
    ea = [w]
    up = [np.ones_like(u)]
    for _ in range(4):
        ea.append(ea[-1] * e)
        up.append(up[-1] * u)
    return np.stack(ea, axis=1) @ np.stack(up, axis=2)  # (J, 5, n) @ (J, n, 5)


def _gap_moments(s: np.ndarray, delta: np.ndarray, power: int, pmax: int) -> np.ndarray:
    """sum_n w (e_n + delta)^power u_n^p for p = 0..pmax at every offset: (J, G, pmax + 1),
    from the power sums s = `_power_sums` (J, 5, 5).

    gap = L - offset = e + delta with e = L - min L >= 0 and delta = min L - offset > 0, so the
    binomial expansion has only non-negative terms (no cancellation) and costs O(n) per job
    plus O(1) per offset instead of O(n) per offset.
    """
    a = np.arange(power + 1)
    coef = _BINOM[power, a][None, None, :] * delta[:, :, None] ** (power - a)[None, None, :]
    return coef @ s[:, : power + 1, : pmax + 1]  # (J, G, pmax+1)


def _moments(
    family: str, s: np.ndarray, delta: np.ndarray, gap: np.ndarray, u: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normal-equation moments (A'A (J, G, m, m), A'y (J, G, m), y'y (J, G)) of the
    transformed, row-scaled problem at every offset, without forming A (see `_step`)."""
    if family == "inverse-poly":  # rows sqrt(w) gap^2, y = sqrt(w) gap; basis u^2, u, 1
        ex = np.array([2, 1, 0])
        m4 = _gap_moments(s, delta, 4, 4)
        ata = m4[:, :, ex[:, None] + ex[None, :]]
        aty = _gap_moments(s, delta, 3, 2)[:, :, ex]
        yty = _gap_moments(s, delta, 2, 0)[:, :, 0]
        return ata, aty, yty
    # exponential: rows sqrt(w) gap, y = rows log(gap); basis -u, 1
    m2 = _gap_moments(s, delta, 2, 2)
    ata = np.stack(
        [np.stack([m2[..., 2], -m2[..., 1]], -1), np.stack([-m2[..., 1], m2[..., 0]], -1)], -2
    )
    with np.errstate(all="ignore"):
        q = gap * np.log(gap)  # (J, G, n)
        mt = (q * gap) @ (w[:, :, None] * u[:, :, None] ** np.arange(2)[None, None, :])
        yty = ((q * q) @ w[:, :, None])[..., 0]
    aty = np.stack([-mt[..., 1], mt[..., 0]], -1)
    return ata, aty, yty


def _step(
    family: str,
    off: np.ndarray,
    u: np.ndarray,
    loss: np.ndarray,
    w: np.ndarray,
    lmin: np.ndarray,
    s: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best fit per job over its offsets `off` (J, G): (sse (J,), offset index (J,), x (J, m)).

    Per offset the transformed problem is solved exactly (NNLS); offsets are ranked by the
    weighted loss-space residual. inverse-poly: 1/(L - d) = a u^2 + b u + c, rows scaled by
    sqrt(w) (L - d)^2;
    exponential: log(L - c) = -alpha u + beta, rows scaled by sqrt(w) (L - c): the scaled
    residual approximates the loss-space residual; candidates are ranked in loss space.
    The NNLS works on normal-equation moments, so the (J, G, n, m) design matrix is never
    formed.
    """
    j, g = off.shape
    e = loss - lmin[:, None]  # (J, n) >= 0 where w > 0
    delta = lmin[:, None] - off  # (J, G) > 0
    gap = e[:, None, :] + delta[:, :, None]  # (J, G, n) = loss - offset
    s = _power_sums(e, u, w) if s is None else s
    ata, aty, yty = _moments(family, s, delta, gap, u, w)
    m = aty.shape[2]
    nonneg = (True, True, True) if family == "inverse-poly" else (True, False)
    x, ok = _nnls_normal(ata.reshape(j * g, m, m), aty.reshape(j * g, m), yty.reshape(-1), nonneg)
    x = x.reshape(j, g, m)
    if family == "inverse-poly":
        basis = np.stack([u * u, u, np.ones_like(u)], axis=1)  # (J, 3, n)
        valid = x.max(axis=2) > 0  # a, b, c >= 0 and u > 0: the polynomial is > 0 unless 0
    else:
        basis = np.stack([-u, np.ones_like(u)], axis=1)
        valid = np.ones((j, g), dtype=bool)
    r = x @ basis  # (J, G, n)
    with np.errstate(all="ignore"):
        if family == "inverse-poly":
            np.divide(1.0, r, out=r)
        else:
            np.exp(r, out=r)
        r -= gap  # prediction - loss
        r *= r
        sse = (r @ w[:, :, None])[..., 0]  # (J, G)
    sse = np.where(ok.reshape(j, g) & valid & np.isfinite(sse), sse, np.inf)
    g_idx = np.argmin(sse, axis=1)
    rows_j = np.arange(j)
    return sse[rows_j, g_idx], g_idx, x[rows_j, g_idx]


def _full_search(
    family: str, u: np.ndarray, loss: np.ndarray, w: np.ndarray, lmin: np.ndarray, s: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sse, offset, x) per job: the 32-point offset grid, then 32 points around its best."""
    grid = _offset_grid(lmin)
    sse, gi, x = _step(family, grid, u, loss, w, lmin, s)
    rows = np.arange(len(gi))
    off = grid[rows, gi]
    fine = _refined(grid, gi, lmin)
    sse2, gi2, x2 = _step(family, fine, u, loss, w, lmin, s)
    better = sse2 < sse
    off = np.where(better, fine[rows, gi2], off)
    return np.where(better, sse2, sse), off, np.where(better[:, None], x2, x)


def _warm_search(
    family: str,
    u: np.ndarray,
    loss: np.ndarray,
    w: np.ndarray,
    lmin: np.ndarray,
    s: np.ndarray,
    t0: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(sse, offset, x, edge) per job: WARM_GRID relative gaps t = (L_min - offset) / L_min
    geometric in t0 * [1/WARM_SPAN, WARM_SPAN], then WARM_GRID points between the best one's
    neighbours. `edge`: the best point is on the bracket's edge (not at a bound of [T_MIN, 1]),
    so the minimum may lie outside: the caller runs the full search for those jobs."""
    span = np.geomspace(1 / WARM_SPAN, WARM_SPAN, WARM_GRID)
    t = np.clip(t0[:, None] * span[None, :], T_MIN, 1.0)
    grid = lmin[:, None] * (1.0 - t)
    sse, gi, x = _step(family, grid, u, loss, w, lmin, s)
    rows, last = np.arange(len(gi)), WARM_GRID - 1
    edge = ((gi == 0) & (t[:, 0] > T_MIN)) | ((gi == last) & (t[:, last] < 1.0))
    lo = grid[rows, np.minimum(gi + 1, last)]
    hi = grid[rows, np.maximum(gi - 1, 0)]
    fine = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, WARM_GRID)[None, :]
    sse2, gi2, x2 = _step(family, fine, u, loss, w, lmin, s)
    better = sse2 < sse
    off = np.where(better, fine[rows, gi2], grid[rows, gi])
    return np.where(better, sse2, sse), off, np.where(better[:, None], x2, x), edge


def fit_families_batch(
    family: str,
    k: np.ndarray,
    loss: np.ndarray,
    w: np.ndarray,
    warm: np.ndarray | None = None,
) -> list[Fit | None]:
    """One family's weighted fit for J jobs at once (arrays (J, n); padding has w = 0).

    An offset grid per job, then a refined grid around its best point; None where a job has a
    loss <= 0 or no finite candidate. `warm` (J,): each job's previous offset of this family
    (nan: none); where given, a small bracket around it is searched instead (`_warm_search`),
    falling back to the full search when the best offset is on the bracket's edge.
    """
    lmin = np.min(np.where(w > 0, loss, np.inf), axis=1)
    good = lmin > 0
    lmin_s = np.where(good, lmin, 1.0)
    loss_s = np.where(good[:, None], loss, 2.0)
    scale = k.max(axis=1)
    u = k / scale[:, None]
    j = len(k)
    sse, off, x = np.full(j, np.inf), np.zeros(j), np.zeros((j, 3 if family == FAMILIES[0] else 2))
    full = np.ones(j, dtype=bool)
    sums = _power_sums(loss_s - lmin_s[:, None], u, w)
    if warm is not None:
        with np.errstate(all="ignore"):
            t0 = 1.0 - warm / lmin_s
        use = np.isfinite(t0) & (t0 >= T_MIN) & (t0 <= 1.0)
        if use.any():
            sse[use], off[use], x[use], edge = _warm_search(
                family, u[use], loss_s[use], w[use], lmin_s[use], sums[use], t0[use]
            )
            full[np.flatnonzero(use)[~edge]] = False
    if full.any():
        sse[full], off[full], x[full] = _full_search(
            family, u[full], loss_s[full], w[full], lmin_s[full], sums[full]
        )
    out: list[Fit | None] = []
    for i in range(j):
        if not (good[i] and np.isfinite(sse[i])):
            out.append(None)
            continue
        last = int(np.max(np.nonzero(w[i] > 0)[0]))
        k_now, l_now = float(k[i, last]), float(loss[i, last])
        params = (*(float(v) for v in x[i]), float(off[i]), float(scale[i]))
        out.append(Fit(family, params, k_now, l_now, float(sse[i])))
    return out


def fit_inverse_poly(k: np.ndarray, loss: np.ndarray, w: np.ndarray) -> Fit | None:
    """Weighted NNLS fit of 1/(a k^2 + b k + c) + d (None when no finite fit exists)."""
    return fit_families_batch("inverse-poly", k[None], loss[None], w[None])[0]


def fit_exponential(k: np.ndarray, loss: np.ndarray, w: np.ndarray) -> Fit | None:
    """Weighted fit of a^(k - b) + c with 0 <= a <= 1, c >= 0 (None when no finite fit)."""
    return fit_families_batch("exponential", k[None], loss[None], w[None])[0]


def fit_points(
    history: np.ndarray, cfg: PredictorConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(iterations, losses, weights) to fit: the window, densified when short."""
    n = len(history)
    start = max(0, n - cfg.window)
    k = np.arange(start + 1, n + 1, dtype=float)
    loss = np.asarray(history[start:], dtype=float)
    if len(k) < cfg.spline_points:  # the spline is translation-invariant in k
        mat, ks = _densify(len(k), cfg.spline_points)
        loss, k = mat @ loss, ks + start
    return k, loss, _decay_weights(k[-1], k, cfg.decay)


def _decay_weights(k_now: float, k: np.ndarray, decay: float) -> np.ndarray:
    return decay ** (k_now - k)


def fit_family(history: np.ndarray, family: str, cfg: PredictorConfig) -> Fit | None:
    """One family's fit of `history` (None when it fails)."""
    k, loss, w = fit_points(history, cfg)
    fitter = fit_inverse_poly if family == "inverse-poly" else fit_exponential
    return fitter(k, loss, w)


def _padded(points: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """Stack (k, loss, w) of several jobs, padding with each job's last point at weight 0."""
    n = max(len(p[0]) for p in points)
    k, loss, w = (np.empty((len(points), n)) for _ in range(3))
    for i, (ki, li, wi) in enumerate(points):
        m = len(ki)
        k[i, :m], loss[i, :m], w[i, :m] = ki, li, wi
        k[i, m:], loss[i, m:], w[i, m:] = ki[-1], li[-1], 0.0
    return k, loss, w


def _choose(model: str, h: np.ndarray, fits: dict[str, Fit | None], cfg: PredictorConfig) -> Fit:
    """The documented choice among the families' fits, with the fallbacks."""
    order = list(FAMILIES) if model == "auto" else [model, *(f for f in FAMILIES if f != model)]
    ok = {f: v for f, v in fits.items() if v is not None and (model == "auto" or f == model)}
    note = ""
    if not ok and model != "auto":
        note = f"{model} fit failed -> {order[1]}; "
        other = fits.get(order[1]) or fit_family(h, order[1], cfg)
        ok = {order[1]: other} if other is not None else {}
    if not ok:
        return _simple(h, "geometric", note + "no family fits -> geometric; ")
    best = min(ok.values(), key=lambda f: f.rss)
    if model == "auto":
        note += f"auto: {best.family} (smaller weighted residual); "
    cands = {f: v.rss for f, v in ok.items()}
    offs = {f: v.params[-2] for f, v in fits.items() if v is not None}
    return Fit(best.family, best.params, best.k_now, best.l_now, best.rss, note, cands, offs)


def _warm_offsets(warm: Sequence[Fit | None] | None, part: list[int], family: str) -> Any:
    """The previous offsets of `family` for the jobs `part` (nan: none), or None."""
    if warm is None:
        return None
    return np.array(
        [np.nan if (p := warm[i]) is None else p.offsets.get(family, np.nan) for i in part]
    )


def fit_many_numpy(
    histories: list[np.ndarray],
    model: str = "auto",
    cfg: PredictorConfig | None = None,
    *,
    chunk: int = 128,
    warm: Sequence[Fit | None] | None = None,
) -> list[Fit]:
    """The numpy path of `predict.fit_many` (the families' fits batched across jobs in chunks),
    the reference of the compiled path (tests/slaq/test_fitcore.py).

    `warm`: per history, its previous fit (or None). A family's offset search then starts from
    the previous fit's offset of that family (a small bracket, see `_warm_search`) instead of
    the full grid: about 4x fewer offsets. The fit may differ from a cold one within the
    tolerance checked in tests/slaq/test_predict.py (documented in docs/slaq.md).
    """
    cfg = cfg or PredictorConfig()
    hs = [np.asarray(h, dtype=float) for h in histories]
    simple, todo = _triage(hs, model, cfg)
    out: list[Fit | None] = [simple.get(i) for i in range(len(hs))]
    families = list(FAMILIES) if model == "auto" else [model]
    for start in range(0, len(todo), chunk):
        part = todo[start : start + chunk]
        k, loss, w = _padded([fit_points(hs[i], cfg) for i in part])
        per_family = {
            f: fit_families_batch(f, k, loss, w, _warm_offsets(warm, part, f)) for f in families
        }
        for pos, i in enumerate(part):
            out[i] = _choose(model, hs[i], {f: v[pos] for f, v in per_family.items()}, cfg)
    return [f for f in out if f is not None]


# ---- the array NNLS that fitcore's scalar _nnls3 / _nnls2 reproduce bitwise ------------
# active sets in itertools.combinations order (columns, -1 = unused): 3 columns all >= 0;
# 2 columns with column 1 free (never dropped)
_SETS3 = np.array(
    [[0, -1, -1], [1, -1, -1], [2, -1, -1], [0, 1, -1], [0, 2, -1], [1, 2, -1], [0, 1, 2]]
)
_SETS2 = np.array([[1, -1, -1], [0, 1, -1]])
_SIZE3 = np.array([1, 1, 1, 2, 2, 2, 3])
_SIZE2 = np.array([1, 2])


@numba.njit(error_model="numpy")
def ldl_solve(a, b, r, x, lo, d, z) -> None:  # type: ignore[no-untyped-def]
    """x[:r] with a[:r, :r] x = b[:r]: the unpivoted LDL' of `_spd_solve` (lo, d, z:
    workspace, so that nothing is allocated per solve)."""
    for i in range(r):
        for j in range(i):
            s = a[i, j]
            for k in range(j):
                s -= lo[i, k] * lo[j, k] * d[k]
            lo[i, j] = s / d[j]
        s = a[i, i]
        for k in range(i):
            s -= lo[i, k] ** 2 * d[k]
        d[i] = s
    for i in range(r):
        s = b[i]
        for k in range(i):
            s -= lo[i, k] * z[k]
        z[i] = s
    for i in range(r - 1, -1, -1):
        s = z[i] / d[i]
        for k in range(i + 1, r):
            s -= lo[k, i] * x[k]
        x[i] = s


@numba.njit(error_model="numpy")
def nnls_arrays(ata, aty, yty, m, out, ws) -> bool:  # type: ignore[no-untyped-def]
    """Exact NNLS from normal-equation moments by active-set enumeration (`_nnls_normal`):
    m = 3 all columns >= 0 (inverse-poly); m = 2 column 0 >= 0, column 1 free (exponential).
    The array form of fitcore's `_nnls3` / `_nnls2` (which the fits use), their oracle; `ws`:
    the workspace of `nnls_workspace()`."""
    best = np.inf
    sub, lo, rhs, xs, d, z = ws
    out[0] = out[1] = out[2] = 0.0
    sets = _SETS3 if m == 3 else _SETS2
    sizes = _SIZE3 if m == 3 else _SIZE2
    for si in range(sets.shape[0]):
        r = sizes[si]
        for p in range(r):
            cp = sets[si, p]
            rhs[p] = aty[cp]
            for q in range(r):
                sub[p, q] = ata[cp, sets[si, q]] + (1e-12 if p == q else 0.0)
        ldl_solve(sub, rhs, r, xs, lo, d, z)
        dot = 0.0
        quad = 0.0
        for p in range(r):
            dot += xs[p] * rhs[p]
            for q in range(r):
                quad += xs[p] * sub[p, q] * xs[q]
        res = yty - 2 * dot + quad
        ok = np.isfinite(res)
        for p in range(r):
            ok = ok and np.isfinite(xs[p])
            if m == 3 or sets[si, p] == 0:
                ok = ok and xs[p] >= 0
        if ok and res < best:
            best = res
            out[0] = out[1] = out[2] = 0.0
            for p in range(r):
                out[sets[si, p]] = xs[p]
    return np.isfinite(best)


def nnls_workspace() -> tuple[np.ndarray, ...]:
    """Scratch arrays of `nnls_arrays`: sub (3, 3), lo (3, 3), rhs, xs, d, z (3,)."""
    v = np.zeros
    return v((3, 3)), v((3, 3)), v(3), v(3), v(3), v(3)
