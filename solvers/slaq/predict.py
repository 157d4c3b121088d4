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


# ---- weighted non-negative least squares (tiny, exact) -------------------------------------
def _nnls_batch(
    a: np.ndarray, y: np.ndarray, nonneg: tuple[bool, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate solutions of min |A x - y| per batch (A: (G, n, m), y: (G, n)).

    Every subset of columns is solved by least squares; a candidate is kept where its
    constrained coordinates are >= 0. The NNLS optimum is among them (it is the least-squares
    solution on its own support), so the caller picks the best feasible one by its residual.
    Returns x of shape (S, G, m) and the feasible mask (S, G), one row per subset S.
    """
    g, _, m = a.shape
    ata = np.einsum("gni,gnj->gij", a, a)
    aty = np.einsum("gni,gn->gi", a, y)
    xs_all, ok_all = [], []
    for r in range(1, m + 1):
        for cols in itertools.combinations(range(m), r):
            if any(not nonneg[j] for j in range(m) if j not in cols):
                continue  # a free column is never dropped
            idx = np.array(cols)
            sub = ata[:, idx[:, None], idx[None, :]] + 1e-12 * np.eye(r)
            try:
                xs = np.linalg.solve(sub, aty[:, idx][..., None])[..., 0]
            except np.linalg.LinAlgError:
                continue
            x = np.zeros((g, m))
            x[:, idx] = xs
            ok = np.all(np.isfinite(x), axis=1)
            for j in idx:
                if nonneg[j]:
                    ok &= x[:, j] >= 0
            xs_all.append(x)
            ok_all.append(ok)
    return np.stack(xs_all), np.stack(ok_all)


def _best(cands: tuple[np.ndarray, np.ndarray], sse_of: Any) -> tuple[float, int, np.ndarray]:
    """(smallest weighted residual, grid index, parameters) over feasible candidates."""
    x, ok = cands
    with np.errstate(invalid="ignore", over="ignore"):
        sse = np.where(ok, sse_of(x), np.inf)  # (S, G)
    flat = int(np.argmin(sse))
    s, i = divmod(flat, sse.shape[1])
    if not np.isfinite(sse[s, i]):
        return np.inf, -1, np.zeros(0)
    return float(sse[s, i]), i, x[s, i]


def _offset_grid(lmin: float) -> np.ndarray:
    """Offsets in [0, lmin), dense near lmin (where flat curves put their asymptote)."""
    return lmin * (1.0 - np.geomspace(1e-4, 1.0, GRID))


def _refined(grid: np.ndarray, i: int, lmin: float) -> np.ndarray:
    """A finer grid between the neighbours of grid point i (one refinement pass)."""
    lo = grid[min(i + 1, len(grid) - 1)]
    hi = grid[max(i - 1, 0)] if i > 0 else lmin * (1 - 1e-6)
    return np.linspace(lo, hi, GRID)


def _search(family_step, lmin: float) -> tuple[float, float, np.ndarray] | None:
    """(sse, offset, params): best offset on the grid, then on a refined grid around it."""
    grid = _offset_grid(lmin)
    sse, i, x = family_step(grid)
    if i < 0 or not np.isfinite(sse):
        return None
    best = (sse, float(grid[i]), x)
    fine = _refined(grid, i, lmin)
    sse2, j, x2 = family_step(fine)
    if j >= 0 and sse2 < sse:
        best = (sse2, float(fine[j]), x2)
    return best


def fit_inverse_poly(k: np.ndarray, loss: np.ndarray, w: np.ndarray) -> Fit | None:
    """Weighted NNLS fit of 1/(a k^2 + b k + c) + d (None when no finite fit exists)."""
    lmin = float(loss.min())
    if lmin <= 0:
        return None
    scale = float(k.max())
    u = k / scale
    basis = np.stack([u * u, u, np.ones_like(u)], axis=1)  # (n, 3)

    def step(d: np.ndarray) -> tuple[float, int, np.ndarray]:
        gap = loss[None, :] - d[:, None]  # (G, n) > 0
        rows = np.sqrt(w)[None, :] * gap**2  # d(1/gap) ~ dL / gap^2
        cands = _nnls_batch(rows[:, :, None] * basis[None, :, :], rows / gap, (True,) * 3)

        def sse_of(x: np.ndarray) -> np.ndarray:
            p = x @ basis.T  # (S, G, n)
            with np.errstate(divide="ignore", invalid="ignore"):
                pred = 1.0 / p + d[None, :, None]
            r = np.where(p > 0, (pred - loss) ** 2, np.inf)
            return np.asarray(r @ w)

        return _best(cands, sse_of)

    found = _search(step, lmin)
    if found is None:
        return None
    sse, d0, x = found
    params = (float(x[0]), float(x[1]), float(x[2]), d0, scale)
    return Fit("inverse-poly", params, float(k.max()), float(loss[-1]), sse)


def fit_exponential(k: np.ndarray, loss: np.ndarray, w: np.ndarray) -> Fit | None:
    """Weighted fit of a^(k - b) + c with 0 <= a <= 1, c >= 0 (None when no finite fit)."""
    lmin = float(loss.min())
    if lmin <= 0:
        return None
    scale = float(k.max())
    u = k / scale
    basis = np.stack([-u, np.ones_like(u)], axis=1)  # log(L - c) = -alpha u + beta

    def step(c: np.ndarray) -> tuple[float, int, np.ndarray]:
        gap = loss[None, :] - c[:, None]
        rows = np.sqrt(w)[None, :] * gap  # d log(gap) ~ dL / gap
        cands = _nnls_batch(rows[:, :, None] * basis[None, :, :], rows * np.log(gap), (True, False))

        def sse_of(x: np.ndarray) -> np.ndarray:
            with np.errstate(over="ignore"):
                pred = np.exp(x @ basis.T) + c[None, :, None]
            return np.asarray(((pred - loss) ** 2) @ w)

        return _best(cands, sse_of)

    found = _search(step, lmin)
    if found is None:
        return None
    sse, c0, x = found
    params = (float(x[0]), float(x[1]), c0, scale)
    return Fit("exponential", params, float(k.max()), float(loss[-1]), sse)


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


def fit(
    history: np.ndarray | list[float], model: str = "auto", cfg: PredictorConfig | None = None
) -> Fit:
    """The predictor of `model` for a loss history, with the documented fallbacks."""
    cfg = cfg or PredictorConfig()
    h = np.asarray(history, dtype=float)
    if model in ("naive", "geometric"):
        return _simple(h, model, "")
    if len(h) < cfg.min_points:
        return _simple(h, "geometric", f"{len(h)} < {cfg.min_points} points -> geometric; ")
    order = list(FAMILIES) if model == "auto" else [model, *(f for f in FAMILIES if f != model)]
    fits: dict[str, Fit | None] = {}
    for fam in order[: 2 if model == "auto" else 1]:
        fits[fam] = fit_family(h, fam, cfg)
    ok = {f: v for f, v in fits.items() if v is not None}
    note = ""
    if not ok and model != "auto":
        note = f"{model} fit failed -> {order[1]}; "
        other = fit_family(h, order[1], cfg)
        ok = {order[1]: other} if other is not None else {}
    if not ok:
        return _simple(h, "geometric", note + "no family fits -> geometric; ")
    best = min(ok.values(), key=lambda f: f.rss)
    cands = {f: v.rss for f, v in ok.items()}
    if model == "auto":
        note += f"auto: {best.family} (smaller weighted residual); "
    return Fit(best.family, best.params, best.k_now, best.l_now, best.rss, note, cands)


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
