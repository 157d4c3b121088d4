"""The SLAQ authors' prediction-error study as their scripts run and score it (`--scoring authors`).

Source: github.com/andrewor14/spark, branch `andrew-as`, `plotting/`: `best_curve_fitter_ever.py`
(the predictor loop), `curve_fitter.py` (families, weights, bounds, densification), `plot.py`
(`parse_losses`, `calculate_avg_abs_error`), `plot_error.py` (the family per curve) and
`make-graph.sh` (window 100). Re-implemented here rule for rule (docs/slaq.md):

- family per curve by a substring of its name (`AUTHORS_FAMILY`): gbt, lda, svm -> inverse-poly
  1/(a x^2 + b x + c) + d, a, b, c, d >= 0; mlpc, logreg, linreg -> exponential a^(x - b) + c,
  0 <= a <= 1, b, c >= 0 (x the 1-based iteration);
- at every iteration n >= 5, in order, the last 100 points are fitted; a window of fewer than 50
  points is densified by scipy's not-a-knot `CubicSpline` at arange(first, last, 1/ceil(50/(m-1)))
  (the last point left out); sigma_i = decay^i over the fitted points, oldest first (so weights
  decay^(-2i)); `scipy.optimize.curve_fit` with those bounds (TRF), its default tolerances and
  starting point, as the authors called it;
- a fit that raises is retried from the mean of every parameter vector fitted so far in this run,
  then with decay 1 from there, then on the raw last 2w, 4w, ... points with decay 1; where even
  the whole curve fails (their script stops there) the naive rule answers, and the output says so;
- naive: the last drop repeated, L_n + h (L_n - L_{n-1}); no prediction is clipped;
- iteration t = 6..N is scored by the prediction made at max(5, t - k) for horizon k (so t <= k + 5
  is predicted fewer than k iterations ahead); error |L^ - L| / |L| with both rounded to 15
  decimals as their logs hold them; errors above np.percentile(d, 99) are dropped (ties kept);
  the plain mean.

Where their rule has no answer we say what we do: a target whose loss is 0 (their script divides
by zero) or whose error is not finite is left out of the mean and counted in `unscored`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput

#: plot_error.py's `alg_to_curve_fitter`: a curve whose name contains the key gets the family.
AUTHORS_FAMILY: tuple[tuple[str, str], ...] = (
    ("gbt", "inverse-poly"),
    ("lda", "inverse-poly"),
    ("svm", "inverse-poly"),
    ("mlpc", "exponential"),
    ("logreg", "exponential"),
    ("linreg", "exponential"),
)
AHEAD = 10  # NUM_ITERATIONS_IN_ADVANCE: predictions made per iteration (more if asked)
MIN_POINTS = 5  # MIN_POINTS_FOR_PREDICTION: the first iteration that predicts
SPLINE_POINTS = 50  # MIN_POINTS_FOR_CURVE_FITTING: densify windows shorter than this
WINDOW = 100  # make-graph.sh: `cf <decay> <func> 100`
PERCENTILE = 99.0  # calculate_avg_abs_error's cut
LOG_DECIMALS = 15  # the logs' "%.15f"


def authors_family(name: str | None) -> str:
    """The family the authors fitted to the curve `name` (InvalidInput when no key, or keys of
    both families, occur in it)."""
    found = {fam for key, fam in AUTHORS_FAMILY if name and key in name}
    if len(found) == 1:
        return found.pop()
    keys = ", ".join(k for k, _ in AUTHORS_FAMILY)
    why = "matches keys of both families" if found else "contains none of their keys"
    raise InvalidInput(
        f"model: 'auto' under the authors' scoring is the family they fitted to the curve, "
        f"chosen by its name ({keys}); {name!r} {why}: give --model inverse-poly or exponential"
    )


def inverse_poly(x: Any, a: float, b: float, c: float, d: float) -> Any:
    """curve_fitter.one_over_x_squared."""
    return 1 / (a * (x**2) + b * x + c) + d


def exponential(x: Any, a: float, b: float, c: float) -> Any:
    """curve_fitter.exponential."""
    return a ** (x - b) + c


FUNCS: dict[str, Callable[..., Any]] = {"inverse-poly": inverse_poly, "exponential": exponential}
UPPER = {"inverse-poly": [np.inf] * 4, "exponential": [1.0, np.inf, np.inf]}


def densify(x: Sequence[float], y: Sequence[float]) -> tuple[list[float], list[float]]:
    """curve_fitter.interpolate: a not-a-knot cubic spline through (x, y), evaluated on a step
    1/ceil(50/(m-1)) from x[0] up to (excluding) x[-1]: at least 50 points."""
    from scipy.interpolate import CubicSpline

    spline = CubicSpline(x, y)
    mult = math.ceil(float(SPLINE_POINTS) / (len(x) - 1))
    xs = np.arange(x[0], x[-1], step=1 / mult)
    return xs.tolist(), spline(xs).tolist()


def curve_fit_authors(
    family: str,
    x: Sequence[float],
    y: Sequence[float],
    decay: float,
    p0: list[float] | None,
    options: dict[str, Any] | None = None,
) -> np.ndarray:
    """curve_fitter.fit_curve: scipy's curve_fit with sigma_i = decay^i, the family's bounds,
    default tolerances (`options`, e.g. ftol, change them) and (without p0) scipy's default
    start; raises when scipy does."""
    from scipy.optimize import curve_fit

    func = FUNCS[family]
    sigma = [math.pow(decay, i) for i in range(len(y))]
    bounds = ([0.0] * len(UPPER[family]), UPPER[family])
    kw: dict[str, Any] = ({"p0": p0} if p0 else {}) | (options or {})
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(curve_fit(func, x, y, sigma=sigma, bounds=bounds, **kw)[0])


@dataclass(frozen=True)
class AuthorsFit:
    """One fit of the authors' loop: `predict(h)` is the loss h iterations after iteration
    `k_now`, unclipped; `step` says which attempt answered."""

    family: str  # inverse-poly, exponential, naive, geometric
    params: tuple[float, ...]
    k_now: int
    step: str

    def predict(self, ahead: np.ndarray) -> np.ndarray:
        """Their `get_func(fitter)(current_iter + i, *params)` (naive: L_n + h delta)."""
        h = np.asarray(ahead, dtype=float)
        with np.errstate(all="ignore"):
            if self.family == "naive":
                l_now, delta = self.params
                return np.asarray(l_now + h * delta, dtype=float)
            if self.family == "geometric":
                l_now, ratio = self.params
                return np.asarray(l_now * ratio**h, dtype=float)
            return np.asarray(FUNCS[self.family](self.k_now + h, *self.params), dtype=float)


def naive_fit(history: Sequence[float], step: str = "naive") -> AuthorsFit:
    """The `avg` strategy with window 1 (-> 2 points): the one delta, repeated linearly."""
    y = [float(v) for v in history[-2:]]
    deltas = [y[i] - y[i - 1] for i in range(1, len(y))]
    delta = float(sum(deltas)) / len(deltas)
    return AuthorsFit("naive", (y[-1], delta), len(history), step)


def geometric_fit(history: Sequence[float]) -> AuthorsFit:
    """Our two-point geometric rule L_n (L_n / L_{n-1})^h (not the authors'; scored their way);
    naive where a loss is <= 0."""
    prev, l_now = float(history[-2]), float(history[-1])
    if prev > 0 and l_now > 0:
        return AuthorsFit("geometric", (l_now, l_now / prev), len(history), "geometric")
    return naive_fit(history, "geometric needs positive losses -> naive")


class AuthorsPredictor:
    """best_curve_fitter_ever.pred_loss_cf over one run: call `fit` on the prefixes in order;
    the mean of every parameter vector fitted so far is the retries' starting point."""

    def __init__(
        self,
        family: str,
        decay: float,
        window: int = WINDOW,
        options: dict[str, Any] | None = None,
    ):
        self.family, self.decay, self.window, self.options = family, decay, window, options
        self.fitted: list[list[float]] = []  # all_fitted_params: one list per parameter

    def fit(self, history: Sequence[float]) -> AuthorsFit:
        """The fit at iteration len(history) with the authors' retries, as their loop makes it."""
        orig_y = [float(v) for v in history]
        orig_x = list(range(1, len(orig_y) + 1))
        x, y = orig_x[-self.window :], orig_y[-self.window :]
        k_now = x[-1]
        start = [sum(p) / len(p) for p in self.fitted]
        xf: Sequence[float] = x
        if len(x) < SPLINE_POINTS:
            xf, y = densify(x, y)
        tries: list[tuple[str, Sequence[float], list[float], float, list[float] | None]] = [
            ("fit", xf, y, self.decay, None)
        ]
        if start:  # without fits so far their retry is the first call again
            tries.append(("retry: mean start", xf, y, self.decay, start))
        tries.append(("retry: decay 1", xf, y, 1.0, start))
        w = self.window
        while True:
            w *= 2
            tries.append((f"retry: raw window {w}", orig_x[-w:], orig_y[-w:], 1.0, start))
            if w >= len(orig_x):
                break
        for step, tx, ty, decay, p0 in tries:
            try:
                params = curve_fit_authors(self.family, tx, ty, decay, p0, self.options)
            except Exception:  # noqa: BLE001 - their try_except catches everything
                continue
            self._remember(params)
            return AuthorsFit(self.family, tuple(float(p) for p in params), k_now, step)
        return naive_fit(orig_y, "every fit failed -> naive")

    def _remember(self, params: np.ndarray) -> None:
        for i, p in enumerate(params):
            if i >= len(self.fitted):
                self.fitted.append([])
            self.fitted[i].append(float(p))


def log_value(v: float) -> float:
    """A loss as their logs hold it ("%.15f", read back)."""
    return float(f"{v:.{LOG_DECIMALS}f}")


def percentile_cut(errors: Sequence[float]) -> list[float]:
    """calculate_avg_abs_error's cut: the errors <= np.percentile(errors, 99) (linear
    interpolation, ties at the cutoff kept): drops n-1-floor(0.99(n-1)) distinct top values."""
    if not len(errors):
        return []
    cutoff = np.percentile(errors, PERCENTILE)
    return [d for d in errors if d <= cutoff]


def authors_mean_pct(errors: Sequence[float]) -> tuple[float, int]:
    """(plain mean in % of the errors kept by `percentile_cut`, number dropped)."""
    kept = percentile_cut(errors)
    mean = 100 * float(sum(kept)) / len(kept) if kept else float("nan")
    return mean, len(errors) - len(kept)


def _predictor(
    model: str, family: str | None, decay: float, options: dict[str, Any] | None
) -> Callable[[list[float]], AuthorsFit]:
    """The fit made at each iteration: the authors' fit of `family`, naive, or geometric."""
    if model == "naive":
        return naive_fit
    if model == "geometric":
        return geometric_fit
    assert family is not None
    return AuthorsPredictor(family, decay, options=options).fit


def authors_errors(
    curve: np.ndarray,
    model: str = "auto",
    aheads: tuple[int, ...] = (1, 5, 10),
    *,
    decay: float = 0.8,
    name: str | None = None,
    fit_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The authors' study of `model` on `curve` (`name` picks the family for `auto`): per horizon
    k the mean relative error (%) over iterations 6..N, each scored by the prediction made at
    max(5, t - k), the errors above the 99th percentile dropped. `last`: the fit at N.
    `fit_options` go to curve_fit (None: the authors' call; the figure's sensitivity check)."""
    curve = np.asarray(curve, dtype=float)
    family = authors_family(name) if model == "auto" else model
    make = _predictor(model, family if family in FUNCS else None, decay, fit_options)
    n, far = len(curve), max(AHEAD, *aheads)
    hs = np.arange(1, far + 1, dtype=float)
    fits: dict[int, AuthorsFit] = {}
    preds: dict[int, np.ndarray] = {}
    hist = [float(v) for v in curve]
    for src in range(MIN_POINTS, n + 1):  # their loop; the fit at N is the forecast
        fits[src] = make(hist[:src])
        preds[src] = fits[src].predict(hs)
    used = [fits[s] for s in range(MIN_POINTS, n)]
    rows: list[dict[str, Any]] = []
    mean: dict[int, float] = {}
    dropped: dict[int, int] = {}
    unscored: dict[int, int] = {}
    for k in aheads:
        errs: list[float] = []
        for t in range(MIN_POINTS + 1, n + 1):
            src = max(MIN_POINTS, t - k)
            p, a = log_value(preds[src][t - src - 1]), log_value(curve[t - 1])
            with np.errstate(all="ignore"):
                e = abs((p - a) / a) if a != 0 else float("nan")
            if math.isfinite(e):
                errs.append(e)
            rows.append(
                {
                    "observed": src,
                    "ahead": t - src,
                    "iteration": t,
                    "predicted": p,
                    "actual": a,
                    "relative_error": e,
                    "family": fits[src].family,
                }
            )
        mean[k], dropped[k] = authors_mean_pct(errs)
        unscored[k] = max(0, n - MIN_POINTS) - len(errs)
    return {
        "mean_relative_error_pct": mean,
        "predictions": rows,
        "families": _count(f.family for f in used),
        "fit_steps": _count(f.step for f in used),
        "dropped": dropped,
        "unscored": unscored,
        "family": family,
        "last": fits.get(n),
    }


def _count(items: Iterable[str]) -> dict[str, int]:
    """How often each item occurs, in first-seen order."""
    out: dict[str, int] = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out
