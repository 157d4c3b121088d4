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

The prediction-error study (`prediction_errors`) runs in two conventions: `strict` (ours, with
this predictor) and `authors` (the SLAQ authors' fits and scoring, `predict_authors.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, get_args

import numpy as np

from schedlab.solvers.errors import InvalidInput

Model = Literal["auto", "inverse-poly", "exponential", "naive", "geometric"]
MODELS: tuple[str, ...] = get_args(Model)
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
    offsets: dict[str, float] = field(default_factory=dict)  # per fitted family (warm starts)

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


FAMILY_CODES = {"inverse-poly": 0, "exponential": 1, "naive": 2, "geometric": 3, "constant": 4}


def packed(f: Fit) -> tuple[int, np.ndarray]:
    """(family code, params padded to 5) of a fit: the compiled quality evaluator's input."""
    p = np.zeros(5)
    p[: len(f.params)] = f.params
    return FAMILY_CODES[f.family], p


class FitBatch(Sequence[Fit]):
    """Fits of many jobs as arrays (from `fit_many`); `batch[i]` builds job i's `Fit`.

    Jobs fitted by a family are rows of the arrays (`rows`: job index per row; sse, offset,
    x per family; the densified k_now, l_now); the others (simple rules, fallbacks) are Fits
    in `extra`. `arrays()` gives every job's family code, params, k_now and l_now at once.
    """

    def __init__(
        self,
        n: int,
        rows: np.ndarray,
        model: str,
        raw: tuple[np.ndarray, ...],
        extra: dict[int, Fit],
    ):
        self.n, self.rows, self.model, self.extra = n, rows, model, extra
        self.sse, self.off, self.x, self.k_now, self.l_now, self.scale = raw
        fams = [0, 1] if model == "auto" else [FAMILIES.index(model)] if model in FAMILIES else []
        masked = np.full_like(self.sse, np.inf)
        masked[:, fams] = self.sse[:, fams]
        self.code = np.argmin(masked, axis=1)  # first minimum: inverse-poly on ties
        self.ok = np.isfinite(masked[np.arange(len(rows)), self.code])
        self.row_of = {int(j): r for r, j in enumerate(rows) if self.ok[r]}

    def failed(self) -> np.ndarray:
        """Job indices of rows where no allowed family fitted (for the fallbacks)."""
        return self.rows[~self.ok]

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self.n))]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        if i in self.extra:
            return self.extra[i]
        r = self.row_of[i]
        fam = FAMILIES[self.code[r]]
        shown = [0, 1] if self.model == "auto" else [self.code[r]]
        fitted = [f for f in shown if np.isfinite(self.sse[r, f])]
        note = f"auto: {fam} (smaller weighted residual); " if self.model == "auto" else ""
        return Fit(
            fam,
            self._params(r, self.code[r]),
            float(self.k_now[r]),
            float(self.l_now[r]),
            float(self.sse[r, self.code[r]]),
            note,
            {FAMILIES[f]: float(self.sse[r, f]) for f in fitted},
            {FAMILIES[f]: float(self.off[r, f]) for f in fitted},
        )

    def _params(self, r: int, f: int) -> tuple[float, ...]:
        x = self.x[r, f, : 3 if f == 0 else 2]
        return (*(float(v) for v in x), float(self.off[r, f]), float(self.scale[r]))

    def offsets(self) -> np.ndarray:
        """(n, 2): every job's fitted offset per family (`Fit.offsets` as an array; nan where
        the family was not fitted): the `warm` argument of the next `fit_many`."""
        out = np.full((self.n, 2), np.nan)
        r = np.flatnonzero(self.ok)
        shown = np.isfinite(self.sse[r])
        if self.model != "auto":
            shown &= np.arange(2)[None, :] == self.code[r][:, None]
        out[self.rows[r]] = np.where(shown, self.off[r], np.nan)
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(family code, params (J, 5), k_now, l_now) of every job (the quality evaluator's)."""
        code = np.zeros(self.n, dtype=np.int64)
        params = np.zeros((self.n, 5))
        k_now, l_now = np.zeros(self.n), np.zeros(self.n)
        ok = self.ok
        rows, c = self.rows[ok], self.code[ok]
        code[rows] = c
        sel = np.flatnonzero(ok)
        x = self.x[sel, c]  # (R, 3)
        inv = c == 0
        params[rows[inv], :3] = x[inv]
        params[rows[inv], 3] = self.off[sel[inv], 0]
        params[rows[inv], 4] = self.scale[sel[inv]]
        ex = ~inv
        params[rows[ex], :2] = x[ex, :2]
        params[rows[ex], 2] = self.off[sel[ex], 1]
        params[rows[ex], 3] = self.scale[sel[ex]]
        k_now[rows], l_now[rows] = self.k_now[sel], self.l_now[sel]
        for i, f in self.extra.items():
            code[i], params[i] = packed(f)
            k_now[i], l_now[i] = f.k_now, f.l_now
        return code, params, k_now, l_now


# ---- the offset search (run by the compiled core, solvers/slaq/fitcore.py; its numpy
# reference, the test oracle, is tests/slaq/numpy_fit.py) ------------------------------------
WARM_GRID = 8  # offsets per stage of a warm-started search
WARM_SPAN = 1.35  # the warm bracket: previous gap (L_min - offset) times [1/span, span]
T_MIN = 1e-6  # smallest relative gap (L_min - offset) / L_min searched


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


@lru_cache(maxsize=256)
def _densify(n: int, points: int) -> tuple[np.ndarray, np.ndarray]:
    """The natural cubic spline through k = 1..n evaluated at `points` equally spaced k, as a
    (points, n) matrix (the spline is linear in the losses; cached per n), and those k."""
    k = np.arange(1.0, n + 1.0)
    ks = np.linspace(1.0, float(n), points)
    mat = np.stack([natural_cubic_spline(k, col, ks) for col in np.eye(n)], axis=1)
    mat.flags.writeable = False
    ks.flags.writeable = False
    return mat, ks


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


def _triage(
    hs: list[np.ndarray], model: str, cfg: PredictorConfig
) -> tuple[dict[int, Fit], list[int]]:
    """The histories answered by a simple rule (the model asked for one, or too few points:
    geometric), and the indices left for the families' fits."""
    simple: dict[int, Fit] = {}
    todo: list[int] = []
    for i, h in enumerate(hs):
        if model in ("naive", "geometric"):
            simple[i] = _simple(h, model, "")
        elif len(h) < cfg.min_points:
            note = f"{len(h)} < {cfg.min_points} points -> geometric; "
            simple[i] = _simple(h, "geometric", note)
        else:
            todo.append(i)
    return simple, todo


def fit_many(
    histories: Sequence[np.ndarray | Sequence[float]],
    model: str = "auto",
    cfg: PredictorConfig | None = None,
    *,
    warm: Sequence[Fit | None] | np.ndarray | None = None,
) -> FitBatch:
    """`fit` for many loss histories at once: one compiled pass over all jobs
    (`solvers/slaq/fitcore.py`), the result a struct of arrays whose `Fit`s are built on access.

    `warm`: per history, its previous fit (or None), or an (n, 2) array of previous offsets
    per family (nan: none; `FitBatch.offsets()`). A family's offset search then starts from
    the previous fit's offset of that family (a small bracket, see `fitcore._warm`) instead of
    the full grid: about 4x fewer offsets. The fit may differ from a cold one within the
    tolerance checked in tests/slaq/test_predict_fast.py (documented in docs/slaq.md).
    """
    cfg = cfg or PredictorConfig()
    hs = [np.asarray(h, dtype=float) for h in histories]
    extra, todo = _triage(hs, model, cfg)
    families = list(FAMILIES) if model == "auto" else [model] if model in FAMILIES else []
    prev = None
    if isinstance(warm, np.ndarray):
        prev = np.asarray(warm, dtype=float)[todo].reshape(len(todo), 2)
    elif warm is not None:
        prev = np.array(
            [
                [np.nan if (p := warm[i]) is None else p.offsets.get(f, np.nan) for f in FAMILIES]
                for i in todo
            ]
        ).reshape(len(todo), 2)
    raw = _compiled([hs[i] for i in todo], families, cfg, prev)
    batch = FitBatch(len(hs), np.asarray(todo, dtype=np.int64), model, raw, extra)
    failed = [int(i) for i in batch.failed()]
    if failed:
        extra.update(_fallbacks(model, [hs[i] for i in failed], failed, cfg))
    return batch


def _fallbacks(
    model: str, hs: list[np.ndarray], jobs: list[int], cfg: PredictorConfig
) -> dict[int, Fit]:
    """The documented steps for jobs whose family failed: the other family (when one was
    asked for), then geometric -> naive -> last value."""
    out: dict[int, Fit] = {}
    note = ""
    other: FitBatch | None = None
    if model != "auto":
        alt = FAMILIES[1 - FAMILIES.index(model)]
        note = f"{model} fit failed -> {alt}; "
        other = FitBatch(len(hs), np.arange(len(hs)), alt, _compiled(hs, [alt], cfg, None), {})
    for pos, (i, h) in enumerate(zip(jobs, hs, strict=True)):
        if other is not None and other.ok[pos]:
            f = other[pos]
            out[i] = Fit(f.family, f.params, f.k_now, f.l_now, f.rss, note, f.candidates, {})
        else:
            out[i] = _simple(h, "geometric", note + "no family fits -> geometric; ")
    return out


@lru_cache(maxsize=16)
def _dense_bank(points: int) -> tuple[np.ndarray, np.ndarray]:
    """`_densify` for every window length below `points`, stacked: (points, points, points)
    matrices (row n: the (points, n) matrix, zero-padded) and (points, points) k's."""
    mats = np.zeros((points, points, points))
    ks = np.zeros((points, points))
    for n in range(1, points):
        m, k = _densify(n, points)
        mats[n, :, :n] = m
        ks[n] = k
    return mats, ks


def _compiled(
    hs: list[np.ndarray], families: list[str], cfg: PredictorConfig, prev: np.ndarray | None
) -> tuple[np.ndarray, ...]:
    """fitcore.fit_all over the histories: (sse, offset, x, k_now, l_now, scale) arrays."""
    from schedlab.solvers.slaq import fitcore

    lens = np.array([len(h) for h in hs], dtype=np.int64)
    starts = np.zeros(len(hs), dtype=np.int64)
    if len(hs):
        starts[1:] = np.cumsum(lens)[:-1]
    flat = np.concatenate(hs) if hs else np.zeros(0)
    mats, ks = _dense_bank(cfg.spline_points)
    warm = np.full((len(hs), 2), np.nan) if prev is None else prev
    fams = np.array([FAMILIES.index(f) for f in families], dtype=np.int64)
    grids = (
        np.geomspace(1e-4, 1.0, GRID),
        np.linspace(0.0, 1.0, GRID),
        np.geomspace(1 / WARM_SPAN, WARM_SPAN, WARM_GRID),
        np.linspace(0.0, 1.0, WARM_GRID),
        T_MIN,
    )
    args = (flat, starts, lens, fams, warm, grids, (cfg.window, mats, ks, cfg.decay))
    sse, off, x, k_now, l_now = fitcore.fit_all(*args)
    return sse, off, x, k_now, l_now, k_now.copy()


def fit(
    history: np.ndarray | list[float], model: str = "auto", cfg: PredictorConfig | None = None
) -> Fit:
    """The predictor of `model` for a loss history, with the documented fallbacks."""
    return fit_many([np.asarray(history, dtype=float)], model, cfg)[0]


# ---- the prediction-error study ------------------------------------------------------------
SCORINGS: tuple[str, ...] = ("strict", "authors")


def mean_without_top(errors: Sequence[float], drop_top: float = 0.01) -> tuple[float, int]:
    """The strict convention's mean (%) after dropping the floor(drop_top n) largest errors
    (at 1%: none below 100 errors), and how many were dropped."""
    arr = np.sort(np.asarray(errors, dtype=float))
    cut = int(np.floor(drop_top * len(arr)))
    keep = arr[: len(arr) - cut]
    return (float(100 * keep.mean()) if len(keep) else float("nan")), cut


def prediction_errors(
    curve: np.ndarray,
    model: str = "auto",
    aheads: tuple[int, ...] = (1, 5, 10),
    cfg: PredictorConfig | None = None,
    *,
    drop_top: float = 0.01,
    scoring: str = "strict",
    name: str | None = None,
) -> dict[str, Any]:
    """Relative errors |L^ - L| / L of `model` on `curve` per horizon in `aheads`, in one of two
    conventions. strict (ours): from every prefix of at least `min_points` points exactly h
    ahead, predictions clipped at 0, the top `drop_top` of errors dropped by `mean_without_top`.
    authors: the SLAQ authors' fits, rules and scoring (`predict_authors.authors_errors`; `name`
    picks their family for `auto`; `cfg.decay` their sigma decay)."""
    cfg = cfg or PredictorConfig()
    if scoring == "authors":
        from schedlab.solvers.slaq.predict_authors import authors_errors

        return authors_errors(curve, model, aheads, decay=cfg.decay, name=name)
    if scoring != "strict":
        raise InvalidInput(f"scoring: must be one of {', '.join(SCORINGS)} (got {scoring!r})")
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
    mean: dict[int, float] = {}
    dropped: dict[int, int] = {}
    unscored: dict[int, int] = {}
    for h, e in errs.items():
        finite = [x for x in e if np.isfinite(x)]
        mean[h], dropped[h] = mean_without_top(finite, drop_top)
        unscored[h] = len(e) - len(finite)
    return {
        "mean_relative_error_pct": mean,
        "predictions": steps,
        "families": families,
        "dropped": dropped,
        "unscored": unscored,
    }
