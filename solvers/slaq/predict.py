"""Loss prediction: SLAQ's weighted, non-negative fits of a loss history, and two simple rules.

Families (k = iteration number, 1-based; `now` = the last observed iteration):

- inverse-poly  L(k) = 1 / (a k^2 + b k + c) + d,  a, b, c, d >= 0  (sub-linear algorithms:
  GBT, LDA, SGD-SVM);
- exponential   L(k) = a^(k - b) + c,  0 <= a <= 1, c >= 0  (linear / super-linear: L-BFGS
  logistic and linear regression, MLP). The shift b is left free: b >= 0 would force
  L(0) - c >= 1, which depends on the loss's units;
- naive         the last drop repeated: L_now - h (L_prev - L_now);
- geometric     L_now (L_now / L_prev)^h.

Fitting (numpy only, no scipy): the last `window` (100) points, weights decay^(now - k)
(decay 0.8); a window shorter than `spline_points` (50) is densified with a natural cubic
spline through its points. For each offset on a grid (d for inverse-poly, c for
exponential) the model is linear after a transform (1/(L - d) = a k^2 + b k + c;
log(L - c) = k log a - b log a), solved exactly as a weighted non-negative least-squares
problem by enumerating the active sets of its <= 3 columns, with rows scaled by the
transform's derivative so that the residual approximates the loss-space residual; the grid
point with the smallest weighted loss-space residual wins. Predictions are clipped at 0.

Fallback steps (recorded in `Fit.note`, never an exception): fewer than `min_points` (5)
points -> geometric (naive when a loss is <= 0; the last value when only one point); a family
whose fit fails (e.g. a loss <= 0, no finite candidate) -> the other family -> geometric ->
naive -> the last value. `auto` fits both families and keeps the smaller weighted residual.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Model = Literal["auto", "inverse-poly", "exponential", "naive", "geometric"]
MODELS: tuple[str, ...] = ("auto", "inverse-poly", "exponential", "naive", "geometric")
FAMILIES = ("inverse-poly", "exponential")
GRID = 32  # offsets tried per fit (and again on the refined grid)


@dataclass(frozen=True)
class PredictorConfig:
    """SLAQ's predictor settings."""

    decay: float = 0.8
    window: int = 100
    min_points: int = 5
    spline_points: int = 50


@dataclass(frozen=True)
class Fit:
    """A fitted predictor: `predict(h)` is the loss h iterations after the last observation."""

    family: str  # inverse-poly, exponential, naive, geometric, constant
    params: tuple[float, ...]
    k_now: float
    l_now: float
    rss: float = float("nan")  # weighted loss-space residual of the fit (families only)
    note: str = ""
    candidates: dict[str, float] = field(default_factory=dict)

    def predict(self, ahead: np.ndarray | float) -> np.ndarray:
        """Predicted loss at `ahead` iterations after now (array in, array out), clipped at 0."""
        h = np.asarray(ahead, dtype=float)
        f = self.family
        if f == "inverse-poly":
            a, b, c, d, scale = self.params
            u = (self.k_now + h) / scale
            with np.errstate(divide="ignore"):
                out = 1.0 / (a * u * u + b * u + c) + d
        elif f == "exponential":
            alpha, beta, c, scale = self.params
            out = np.exp(-alpha * (self.k_now + h) / scale + beta) + c
        elif f == "naive":
            out = self.l_now - h * self.params[0]
        elif f == "geometric":
            out = self.l_now * self.params[0] ** h
        else:
            out = np.full_like(h, self.l_now)
        return np.maximum(np.nan_to_num(out, nan=self.l_now, posinf=self.l_now), 0.0)


# ---- weighted non-negative least squares (tiny, exact, batched) ----------------------------
def _nnls_batch(
    a: np.ndarray, y: np.ndarray, nonneg: tuple[bool, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Exact solutions of min |A x - y| with x_j >= 0 where `nonneg[j]`, per batch
    (A: (B, n, m), y: (B, n)); returns x (B, m) and whether a feasible solution exists (B,).

    Every subset of columns is solved by least squares (normal equations); the NNLS optimum
    is the feasible subset solution of smallest residual (it is the least-squares solution on
    its own support), found by comparing |A x - y|^2 = y'y - 2 x'A'y + x'A'A x.
    """
    b, _, m = a.shape
    at = a.transpose(0, 2, 1)
    ata = at @ a
    aty = (at @ y[..., None])[..., 0]
    yty = np.einsum("bn,bn->b", y, y)
    best_x = np.zeros((b, m))
    best_r = np.full(b, np.inf)
    for r in range(1, m + 1):
        for cols in itertools.combinations(range(m), r):
            if any(not nonneg[j] for j in range(m) if j not in cols):
                continue  # a free column is never dropped
            idx = np.array(cols)
            sub = ata[:, idx[:, None], idx[None, :]] + 1e-12 * np.eye(r)
            with np.errstate(all="ignore"):
                try:
                    xs = np.linalg.solve(sub, aty[:, idx][..., None])[..., 0]
                except np.linalg.LinAlgError:
                    continue
                res = (
                    yty
                    - 2 * np.einsum("bi,bi->b", xs, aty[:, idx])
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


def _offset_grid(lmin: np.ndarray) -> np.ndarray:
    """Per job, offsets in [0, lmin) dense near lmin (where flat curves put their asymptote)."""
    return lmin[:, None] * (1.0 - np.geomspace(1e-4, 1.0, GRID))[None, :]


def _refined(grid: np.ndarray, i: np.ndarray, lmin: np.ndarray) -> np.ndarray:
    """Per job, a finer grid between the neighbours of its best grid point i."""
    rows = np.arange(len(i))
    lo = grid[rows, np.minimum(i + 1, grid.shape[1] - 1)]
    hi = np.where(i > 0, grid[rows, np.maximum(i - 1, 0)], lmin * (1 - 1e-6))
    return lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, GRID)[None, :]


def _step(
    family: str, off: np.ndarray, u: np.ndarray, loss: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best fit per job over its offsets `off` (J, G): (sse (J,), offset index (J,), x (J, m)).

    Per offset the transformed problem is solved exactly (NNLS); offsets are ranked by the
    weighted loss-space residual. inverse-poly: 1/(L - d) = a u^2 + b u + c, rows scaled by
    sqrt(w) (L - d)^2;
    exponential: log(L - c) = -alpha u + beta, rows scaled by sqrt(w) (L - c): the scaled
    residual approximates the loss-space residual; candidates are ranked in loss space.
    """
    j, g = off.shape
    gap = loss[:, None, :] - off[:, :, None]  # (J, G, n) > 0
    nonneg: tuple[bool, ...]
    if family == "inverse-poly":
        basis = np.stack([u * u, u, np.ones_like(u)], axis=2)  # (J, n, 3)
        rows = np.sqrt(w)[:, None, :] * gap**2
        y, nonneg = rows / gap, (True, True, True)
    else:
        basis = np.stack([-u, np.ones_like(u)], axis=2)
        rows = np.sqrt(w)[:, None, :] * gap
        y, nonneg = rows * np.log(gap), (True, False)
    m = basis.shape[2]
    a = rows[..., None] * basis[:, None, :, :]  # (J, G, n, m)
    x, ok = _nnls_batch(a.reshape(j * g, -1, m), y.reshape(j * g, -1), nonneg)
    x = x.reshape(j, g, m)
    p = x @ basis.transpose(0, 2, 1)  # (J, G, n)
    with np.errstate(all="ignore"):
        if family == "inverse-poly":
            pred = np.where(p > 0, 1.0 / p + off[:, :, None], np.inf)
        else:
            pred = np.exp(p) + off[:, :, None]
        sse = (((pred - loss[:, None, :]) ** 2) @ w[:, :, None])[..., 0]  # (J, G)
    sse = np.where(ok.reshape(j, g) & np.isfinite(sse), sse, np.inf)
    g_idx = np.argmin(sse, axis=1)
    rows_j = np.arange(j)
    return sse[rows_j, g_idx], g_idx, x[rows_j, g_idx]


def fit_families_batch(
    family: str, k: np.ndarray, loss: np.ndarray, w: np.ndarray
) -> list[Fit | None]:
    """One family's weighted fit for J jobs at once (arrays (J, n); padding has w = 0).

    An offset grid per job, then a refined grid around its best point; None where a job has a
    loss <= 0 or no finite candidate.
    """
    lmin = np.min(np.where(w > 0, loss, np.inf), axis=1)
    good = lmin > 0
    lmin_s = np.where(good, lmin, 1.0)
    loss_s = np.where(good[:, None], loss, 2.0)
    scale = k.max(axis=1)
    u = k / scale[:, None]
    grid = _offset_grid(lmin_s)
    sse, gi, x = _step(family, grid, u, loss_s, w)
    off = grid[np.arange(len(gi)), gi]
    fine = _refined(grid, gi, lmin_s)
    sse2, gi2, x2 = _step(family, fine, u, loss_s, w)
    better = sse2 < sse
    sse = np.where(better, sse2, sse)
    off = np.where(better, fine[np.arange(len(gi2)), gi2], off)
    x = np.where(better[:, None], x2, x)
    out: list[Fit | None] = []
    for i in range(len(k)):
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


# ---- densification -------------------------------------------------------------------------
def natural_cubic_spline(x: np.ndarray, y: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Natural cubic spline through (x, y) evaluated at xs (x strictly increasing)."""
    n = len(x)
    if n < 3:
        return np.interp(xs, x, y)
    h = np.diff(x)
    mat = np.zeros((n, n))
    rhs = np.zeros(n)
    mat[0, 0] = mat[-1, -1] = 1.0
    for i in range(1, n - 1):
        mat[i, i - 1 : i + 2] = (h[i - 1], 2 * (h[i - 1] + h[i]), h[i])
        rhs[i] = 6 * ((y[i + 1] - y[i]) / h[i] - (y[i] - y[i - 1]) / h[i - 1])
    m = np.linalg.solve(mat, rhs)  # second derivatives
    j = np.clip(np.searchsorted(x, xs) - 1, 0, n - 2)
    t0, t1 = xs - x[j], x[j + 1] - xs
    return (
        m[j] * t1**3 / (6 * h[j])
        + m[j + 1] * t0**3 / (6 * h[j])
        + (y[j] / h[j] - m[j] * h[j] / 6) * t1
        + (y[j + 1] / h[j] - m[j + 1] * h[j] / 6) * t0
    )


def fit_points(
    history: np.ndarray, cfg: PredictorConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(iterations, losses, weights) to fit: the window, densified when short."""
    n = len(history)
    start = max(0, n - cfg.window)
    k = np.arange(start + 1, n + 1, dtype=float)
    loss = np.asarray(history[start:], dtype=float)
    if len(k) < cfg.spline_points:
        ks = np.linspace(k[0], k[-1], cfg.spline_points)
        loss = natural_cubic_spline(k, loss, ks)
        k = ks
    return k, loss, cfg.decay ** (k[-1] - k)


# ---- the predictor -------------------------------------------------------------------------
def _simple(history: np.ndarray, how: str, note: str) -> Fit:
    """naive / geometric / constant predictor from the last two points."""
    now, l_now = float(len(history)), float(history[-1])
    if len(history) >= 2:
        prev = float(history[-2])
        if how == "geometric" and prev > 0 and l_now > 0:
            return Fit("geometric", (l_now / prev,), now, l_now, note=note)
        if how in ("geometric", "naive"):
            step = "" if how == "naive" else "geometric needs positive losses -> naive; "
            return Fit("naive", (prev - l_now,), now, l_now, note=note + step)
    return Fit("constant", (), now, l_now, note=note + "one point -> last value; ")


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
    return Fit(best.family, best.params, best.k_now, best.l_now, best.rss, note, cands)


def fit_many(
    histories: list[np.ndarray],
    model: str = "auto",
    cfg: PredictorConfig | None = None,
    *,
    chunk: int = 128,
) -> list[Fit]:
    """`fit` for many loss histories at once (the families' fits batched across jobs)."""
    cfg = cfg or PredictorConfig()
    hs = [np.asarray(h, dtype=float) for h in histories]
    out: list[Fit | None] = [None] * len(hs)
    todo = []
    for i, h in enumerate(hs):
        if model in ("naive", "geometric"):
            out[i] = _simple(h, model, "")
        elif len(h) < cfg.min_points:
            out[i] = _simple(h, "geometric", f"{len(h)} < {cfg.min_points} points -> geometric; ")
        else:
            todo.append(i)
    families = list(FAMILIES) if model == "auto" else [model]
    for start in range(0, len(todo), chunk):
        part = todo[start : start + chunk]
        k, loss, w = _padded([fit_points(hs[i], cfg) for i in part])
        per_family = {f: fit_families_batch(f, k, loss, w) for f in families}
        for pos, i in enumerate(part):
            out[i] = _choose(model, hs[i], {f: v[pos] for f, v in per_family.items()}, cfg)
    return [f for f in out if f is not None]


def fit(
    history: np.ndarray | list[float], model: str = "auto", cfg: PredictorConfig | None = None
) -> Fit:
    """The predictor of `model` for a loss history, with the documented fallbacks."""
    return fit_many([np.asarray(history, dtype=float)], model, cfg)[0]


# ---- the prediction-error study ------------------------------------------------------------
def prediction_errors(
    curve: np.ndarray,
    model: str = "auto",
    aheads: tuple[int, ...] = (1, 5, 10),
    cfg: PredictorConfig | None = None,
    *,
    drop_top: float = 0.01,
) -> dict[str, Any]:
    """Relative errors |L^ - L| / L of `model` on `curve`, predicting from every prefix of at
    least `min_points` points, per horizon in `aheads`; the mean drops the top 1% of errors."""
    cfg = cfg or PredictorConfig()
    curve = np.asarray(curve, dtype=float)
    steps: list[dict[str, Any]] = []
    errs: dict[int, list[float]] = {h: [] for h in aheads}
    families: dict[str, int] = {}
    for n in range(cfg.min_points, len(curve)):
        f = fit(curve[:n], model, cfg)
        families[f.family] = families.get(f.family, 0) + 1
        hs = [h for h in aheads if n - 1 + h < len(curve)]
        if not hs:
            continue
        pred = f.predict(np.array(hs, dtype=float))
        for h, p in zip(hs, pred, strict=True):
            actual = float(curve[n - 1 + h])
            e = abs(p - actual) / abs(actual) if actual != 0 else float("nan")
            errs[h].append(e)
            steps.append(
                {
                    "observed": n,
                    "ahead": h,
                    "iteration": n + h,
                    "predicted": float(p),
                    "actual": actual,
                    "relative_error": e,
                    "family": f.family,
                }
            )
    mean = {}
    for h, e in errs.items():
        arr = np.sort(np.asarray([x for x in e if np.isfinite(x)]))
        keep = arr[: len(arr) - int(np.floor(drop_top * len(arr)))] if len(arr) else arr
        mean[h] = float(100 * keep.mean()) if len(keep) else float("nan")
    return {"mean_relative_error_pct": mean, "predictions": steps, "families": families}
