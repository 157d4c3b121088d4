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
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, get_args

import numpy as np

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


WARM_GRID = 8  # offsets per stage of a warm-started search
WARM_SPAN = 1.35  # the warm bracket: previous gap (L_min - offset) times [1/span, span]
T_MIN = 1e-6  # smallest relative gap (L_min - offset) / L_min searched


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
    if len(k) < cfg.spline_points:  # the spline is translation-invariant in k
        mat, ks = _densify(len(k), cfg.spline_points)
        loss, k = mat @ loss, ks + start
    return k, loss, _decay_weights(k[-1], k, cfg.decay)


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


def _decay_weights(k_now: float, k: np.ndarray, decay: float) -> np.ndarray:
    return decay ** (k_now - k)


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
    offs = {f: v.params[-2] for f, v in fits.items() if v is not None}
    return Fit(best.family, best.params, best.k_now, best.l_now, best.rss, note, cands, offs)


def _warm_offsets(warm: Sequence[Fit | None] | None, part: list[int], family: str) -> Any:
    """The previous offsets of `family` for the jobs `part` (nan: none), or None."""
    if warm is None:
        return None
    return np.array(
        [np.nan if (p := warm[i]) is None else p.offsets.get(family, np.nan) for i in part]
    )


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
    chunk: int = 128,
    warm: Sequence[Fit | None] | np.ndarray | None = None,
) -> FitBatch:
    """`fit` for many loss histories at once: one compiled pass over all jobs
    (`solvers/slaq/fitcore.py`), the result a struct of arrays whose `Fit`s are built on access.

    `warm`: per history, its previous fit (or None), or an (n, 2) array of previous offsets
    per family (nan: none; `FitBatch.offsets()`). A family's offset search then starts from
    the previous fit's offset of that family (a small bracket, see `_warm_search`) instead of
    the full grid: about 4x fewer offsets. The fit may differ from a cold one within the
    tolerance checked in tests/slaq/test_predict_fast.py (documented in docs/slaq.md).
    `chunk` is unused (kept for callers of the numpy path's signature).
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


def fit_many_numpy(
    histories: list[np.ndarray],
    model: str = "auto",
    cfg: PredictorConfig | None = None,
    *,
    chunk: int = 128,
    warm: Sequence[Fit | None] | None = None,
) -> list[Fit]:
    """The numpy path of `fit_many` (the families' fits batched across jobs in chunks), kept
    as the reference of the compiled path (tests/slaq/test_fitcore.py).

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
