"""Compiled fitting core of `predict.fit_many`: every job's window, densification, weights and
both families' offset searches in one numba loop over jobs (no per-job Python work).

It computes what the numpy reference `predict.fit_families_batch` computes, job by job and in
the same order of operations where it matters (the NNLS active-set enumeration, the LDL'
solve, the grids); sums are accumulated sequentially instead of by BLAS, so results agree
with the reference to rounding (tested to 1e-9 relative in tests/slaq/test_fitcore.py).
Inputs are flat arrays (all histories concatenated), outputs are arrays per job and family.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

INV, EXP = 0, 1  # family codes (predict.FAMILIES order)
ANCHOR = 8  # exact exp every ANCHOR points of the exponential residual
_BIN = np.array(
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]],
    dtype=np.float64,
)
# active sets in itertools.combinations order (columns, -1 = unused): 3 columns all >= 0;
# 2 columns with column 1 free (never dropped)
_SETS3 = np.array(
    [[0, -1, -1], [1, -1, -1], [2, -1, -1], [0, 1, -1], [0, 2, -1], [1, 2, -1], [0, 1, 2]]
)
_SETS2 = np.array([[1, -1, -1], [0, 1, -1]])
_SIZE3 = np.array([1, 1, 1, 2, 2, 2, 3])
_SIZE2 = np.array([1, 2])


class _Work(NamedTuple):
    """Scratch arrays of one fitting thread (allocated once per job loop, not per offset)."""

    sub: np.ndarray  # (3, 3) active-set normal matrix
    lo: np.ndarray  # (3, 3) LDL' factor
    rhs: np.ndarray  # (3,)
    xs: np.ndarray  # (3,) active-set solution
    d: np.ndarray  # (3,)
    z: np.ndarray  # (3,)
    ata: np.ndarray  # (3, 3) moments
    aty: np.ndarray  # (3,)
    dp: np.ndarray  # (3,) powers of delta
    m4: np.ndarray  # (3,)
    x: np.ndarray  # (3,) candidate of one offset
    x2: np.ndarray  # (3,) best of a refined search


@numba.njit(cache=True)
def _work() -> _Work:
    """Fresh scratch arrays."""
    v = np.zeros
    return _Work(
        v((3, 3)), v((3, 3)), v(3), v(3), v(3), v(3), v((3, 3)), v(3), v(3), v(3), v(3), v(3)
    )


@numba.njit(cache=True, error_model="numpy")
def _ldl_solve(a, b, r, x, lo, d, z) -> None:  # type: ignore[no-untyped-def]
    """x[:r] with a[:r, :r] x = b[:r]: the unpivoted LDL' of `predict._spd_solve` (lo, d, z:
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


@numba.njit(cache=True, error_model="numpy")
def _nnls(ata, aty, yty, m, out, ws) -> bool:  # type: ignore[no-untyped-def]
    """Exact NNLS from normal-equation moments by active-set enumeration (`_nnls_normal`):
    m = 3 all columns >= 0 (inverse-poly); m = 2 column 0 >= 0, column 1 free (exponential).
    The array form of `_nnls3` / `_nnls2` (which the fits use), kept as their test oracle."""
    best = np.inf
    sub, lo, rhs, xs, d, z = ws.sub, ws.lo, ws.rhs, ws.xs, ws.d, ws.z
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
        _ldl_solve(sub, rhs, r, xs, lo, d, z)
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


@numba.njit(cache=True)
def _power_sums(e: np.ndarray, u: np.ndarray, w: np.ndarray) -> np.ndarray:
    """S[a, p] = sum_n w e^a u^p, a, p = 0..4 (`predict._power_sums`)."""
    s = np.zeros((5, 5))
    for t in range(len(e)):
        ea = w[t]
        for a in range(5):
            up = 1.0
            for p in range(5):
                s[a, p] += ea * up
                up *= u[t]
            ea *= e[t]
    return s


@numba.njit(cache=True)
def _gap_moment5(s, dp, d3, d4, power, p):  # type: ignore[no-untyped-def]
    """sum_n w (e_n + delta)^power u_n^p by the binomial expansion (`predict._gap_moments`)
    from the power sums s; dp holds delta^0..2, d3 and d4 delta^3 and delta^4."""
    acc = 0.0
    for a in range(power + 1):
        k = power - a
        dk = dp[k] if k < 3 else (d3 if k == 3 else d4)
        acc += _BIN[power, a] * dk * s[a, p]
    return acc


@numba.njit(cache=True)
def _gm(s, d2, d3, d4, delta, power, p):  # type: ignore[no-untyped-def]
    """`_gap_moment5` with the powers of delta as scalars (same operations)."""
    acc = 0.0
    for a in range(power + 1):
        k = power - a
        dk = 1.0 if k == 0 else (delta if k == 1 else (d2 if k == 2 else (d3 if k == 3 else d4)))
        acc += _BIN[power, a] * dk * s[a, p]
    return acc


@numba.njit(cache=True, error_model="numpy")
def _set_res(yty, x0, x1, x2, b0, b1, b2, s00, s01, s02, s11, s12, s22, r):  # type: ignore[no-untyped-def]
    """|A x - y|^2 = y'y - 2 x'A'y + x'A'A x of an active-set solution, in `_nnls`'s order of
    operations (r = 1, 2, 3 leading entries used; the matrix is symmetric)."""
    if r == 1:
        dot = 0.0 + x0 * b0
        quad = 0.0 + x0 * s00 * x0
    elif r == 2:
        dot = 0.0 + x0 * b0 + x1 * b1
        quad = 0.0 + x0 * s00 * x0 + x0 * s01 * x1 + x1 * s01 * x0 + x1 * s11 * x1
    else:
        dot = 0.0 + x0 * b0 + x1 * b1 + x2 * b2
        quad = 0.0 + x0 * s00 * x0 + x0 * s01 * x1 + x0 * s02 * x2
        quad += x1 * s01 * x0
        quad += x1 * s11 * x1
        quad += x1 * s12 * x2
        quad += x2 * s02 * x0
        quad += x2 * s12 * x1
        quad += x2 * s22 * x2
    return yty - 2 * dot + quad


@numba.njit(cache=True, error_model="numpy")
def _ls2(a00, a01, a11, b0, b1):  # type: ignore[no-untyped-def]
    """`_ldl_solve` for r = 2 with scalars (same operations)."""
    d0 = a00
    l10 = a01 / d0
    d1 = a11 - l10**2 * d0
    z1 = b1 - l10 * b0
    x1 = z1 / d1
    x0 = b0 / d0 - l10 * x1
    return x0, x1


@numba.njit(cache=True, error_model="numpy")
def _nnls3(a00, a01, a02, a11, a12, a22, b0, b1, b2, yty):  # type: ignore[no-untyped-def]
    """`_nnls` for m = 3 (every column >= 0) with scalars: the 7 active sets in the same order
    and operations, so the result is bitwise the array version's. (ok, x0, x1, x2)."""
    r = 1e-12
    c00, c11, c22 = a00 + r, a11 + r, a22 + r
    best, o0, o1, o2 = np.inf, 0.0, 0.0, 0.0
    # {0}, {1}, {2}
    for col in range(3):
        cc, bb = (c00, b0) if col == 0 else ((c11, b1) if col == 1 else (c22, b2))
        x = bb / cc
        res = _set_res(yty, x, 0.0, 0.0, bb, 0.0, 0.0, cc, 0.0, 0.0, 0.0, 0.0, 0.0, 1)
        if np.isfinite(res) and np.isfinite(x) and x >= 0 and res < best:
            best, o0, o1, o2 = res, 0.0, 0.0, 0.0
            if col == 0:
                o0 = x
            elif col == 1:
                o1 = x
            else:
                o2 = x
    # {0, 1}, {0, 2}, {1, 2}
    for pair in range(3):
        if pair == 0:
            p00, p01, p11, q0, q1 = c00, a01, c11, b0, b1
        elif pair == 1:
            p00, p01, p11, q0, q1 = c00, a02, c22, b0, b2
        else:
            p00, p01, p11, q0, q1 = c11, a12, c22, b1, b2
        x0, x1 = _ls2(p00, p01, p11, q0, q1)
        res = _set_res(yty, x0, x1, 0.0, q0, q1, 0.0, p00, p01, 0.0, p11, 0.0, 0.0, 2)
        ok = np.isfinite(res) and np.isfinite(x0) and x0 >= 0 and np.isfinite(x1) and x1 >= 0
        if ok and res < best:
            best = res
            if pair == 0:
                o0, o1, o2 = x0, x1, 0.0
            elif pair == 1:
                o0, o1, o2 = x0, 0.0, x1
            else:
                o0, o1, o2 = 0.0, x0, x1
    # {0, 1, 2}: the unpivoted LDL' of `_ldl_solve`
    d0 = c00
    l10 = a01 / d0
    d1 = c11 - l10**2 * d0
    l20 = a02 / d0
    l21 = (a12 - l20 * l10 * d0) / d1
    d2 = c22 - l20**2 * d0
    d2 -= l21**2 * d1
    z1 = b1 - l10 * b0
    z2 = b2 - l20 * b0
    z2 -= l21 * z1
    x2 = z2 / d2
    x1 = z1 / d1 - l21 * x2
    x0 = b0 / d0 - l10 * x1
    x0 -= l20 * x2
    res = _set_res(yty, x0, x1, x2, b0, b1, b2, c00, a01, a02, c11, a12, c22, 3)
    ok = np.isfinite(res) and np.isfinite(x0) and np.isfinite(x1) and np.isfinite(x2)
    if ok and x0 >= 0 and x1 >= 0 and x2 >= 0 and res < best:
        best, o0, o1, o2 = res, x0, x1, x2
    return np.isfinite(best), o0, o1, o2


@numba.njit(cache=True, error_model="numpy")
def _nnls2(a00, a01, a11, b0, b1, yty):  # type: ignore[no-untyped-def]
    """`_nnls` for m = 2 (column 0 >= 0, column 1 free) with scalars, same operations."""
    r = 1e-12
    c00, c11 = a00 + r, a11 + r
    best, o0, o1 = np.inf, 0.0, 0.0
    x = b1 / c11
    res = _set_res(yty, x, 0.0, 0.0, b1, 0.0, 0.0, c11, 0.0, 0.0, 0.0, 0.0, 0.0, 1)
    if np.isfinite(res) and np.isfinite(x) and res < best:
        best, o0, o1 = res, 0.0, x
    x0, x1 = _ls2(c00, a01, c11, b0, b1)
    res = _set_res(yty, x0, x1, 0.0, b0, b1, 0.0, c00, a01, 0.0, c11, 0.0, 0.0, 2)
    if np.isfinite(res) and np.isfinite(x0) and np.isfinite(x1) and x0 >= 0 and res < best:
        best, o0, o1 = res, x0, x1
    return np.isfinite(best), o0, o1


@numba.njit(cache=True, error_model="numpy")
def _eval_offset(fam, off, u, du, e, w, lmin, s, x, ws) -> float:  # type: ignore[no-untyped-def]
    """Weighted loss-space sse of the family's NNLS at one offset (inf when invalid); its
    solution goes to x. Scalar code (no array temporaries: this runs for every offset of every
    job) with the operations of the array version, kept in `_nnls` (tests compare them)."""
    delta = lmin - off
    n = len(u)
    d2 = 1.0 * delta * delta
    d3, d4 = d2 * delta, d2 * delta * delta
    if fam == INV:
        g = _gm(s, d2, d3, d4, delta, 4, 4)  # m4[0]: the (u^2, u^2) moment
        h = _gm(s, d2, d3, d4, delta, 4, 3)
        k = _gm(s, d2, d3, d4, delta, 4, 2)
        ok, x0, x1, x2 = _nnls3(
            g,
            h,
            k,
            k,
            _gm(s, d2, d3, d4, delta, 4, 1),
            _gm(s, d2, d3, d4, delta, 4, 0),
            _gm(s, d2, d3, d4, delta, 3, 2),
            _gm(s, d2, d3, d4, delta, 3, 1),
            _gm(s, d2, d3, d4, delta, 3, 0),
            _gm(s, d2, d3, d4, delta, 2, 0),
        )
        x[0], x[1], x[2] = x0, x1, x2
        ok = ok and max(x0, max(x1, x2)) > 0
        if not ok:
            return np.inf
        sse = 0.0
        for t in range(n):
            r = 1.0 / (x0 * (u[t] * u[t]) + x1 * u[t] + x2)
            r -= e[t] + delta
            sse += r * r * w[t]
        return sse if np.isfinite(sse) else np.inf
    m0 = _gm(s, d2, d3, d4, delta, 2, 0)
    m1 = _gm(s, d2, d3, d4, delta, 2, 1)
    m2 = _gm(s, d2, d3, d4, delta, 2, 2)
    mt0 = mt1 = yty = 0.0
    for t in range(n):
        gap = e[t] + delta
        q = gap * np.log(gap)
        mt0 += q * gap * w[t]
        mt1 += q * gap * (w[t] * u[t])
        yty += q * q * w[t]
    ok, x0, x1 = _nnls2(m2, -m1, m0, -mt1, mt0, yty)
    x[0], x[1], x[2] = x0, x1, 0.0
    if not ok:
        return np.inf
    # exp(x1 - x0 u_t) on the equally spaced u (`_points`): exact every ANCHOR points, a
    # geometric step in between (relative error ~ ANCHOR ulps; the exp was 3/4 of the time)
    rho = np.exp(x0 * -du)
    sse = 0.0
    ex = 0.0
    for t in range(n):
        if t % ANCHOR == 0:
            ex = np.exp(x0 * -u[t] + x1)
        else:
            ex *= rho
        r = ex - (e[t] + delta)
        sse += r * r * w[t]
    return sse if np.isfinite(sse) else np.inf


@numba.njit(cache=True)
def _search(fam, grid, u, e, w, lmin, s, bx, ws) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """The first grid offset of smallest sse (np.argmin of `predict._step`); its x -> bx."""
    best, bi = np.inf, 0
    x = ws.x
    n = len(u)
    du = (u[n - 1] - u[0]) / (n - 1) if n > 1 else 0.0  # u is equally spaced
    for g in range(len(grid)):
        sse = _eval_offset(fam, grid[g], u, du, e, w, lmin, s, x, ws)
        if sse < best:
            best, bi = sse, g
            bx[:] = x
    return best, bi


@numba.njit(cache=True)
def _full(fam, u, e, w, lmin, s, geo, lin, bx, ws) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """`predict._full_search`: the offset grid, then a refined grid around its best point."""
    gn = len(geo)
    grid = lmin * (1.0 - geo)
    x2 = ws.x2
    sse, gi = _search(fam, grid, u, e, w, lmin, s, bx, ws)
    lo = grid[min(gi + 1, gn - 1)]
    hi = grid[gi - 1] if gi > 0 else lmin * (1 - 1e-6)
    fine = lo + (hi - lo) * lin
    sse2, gi2 = _search(fam, fine, u, e, w, lmin, s, x2, ws)
    if sse2 < sse:
        bx[:] = x2
        return sse2, fine[gi2]
    return sse, grid[gi]


@numba.njit(cache=True)
def _warm(fam, u, e, w, lmin, s, t0, span, lin, t_min, bx, ws) -> tuple[float, float, bool]:  # type: ignore[no-untyped-def]
    """`predict._warm_search` for one job: (sse, offset, x, best point on the bracket edge)."""
    gn = len(span)
    t = np.minimum(np.maximum(t0 * span, t_min), 1.0)
    grid = lmin * (1.0 - t)
    x2 = ws.x2
    sse, gi = _search(fam, grid, u, e, w, lmin, s, bx, ws)
    edge = (gi == 0 and t[0] > t_min) or (gi == gn - 1 and t[gn - 1] < 1.0)
    lo = grid[min(gi + 1, gn - 1)]
    hi = grid[max(gi - 1, 0)]
    fine = lo + (hi - lo) * lin
    sse2, gi2 = _search(fam, fine, u, e, w, lmin, s, x2, ws)
    if sse2 < sse:
        bx[:] = x2
        return sse2, fine[gi2], edge
    return sse, grid[gi], edge


@numba.njit(cache=True)
def _points(flat, start, n, window, dens, dks, decay):
    """(u = k / k_now, loss, w, k_now) of one history: `predict.fit_points`."""
    lo = max(0, n - window)
    m = n - lo
    if m < dens.shape[1]:
        pts = dens.shape[1]
        loss = np.zeros(pts)
        for r in range(pts):
            acc = 0.0
            for c in range(m):
                acc += dens[m, r, c] * flat[start + lo + c]
            loss[r] = acc
        k = dks[m] + lo
    else:
        loss = flat[start + lo : start + n].copy()
        k = np.arange(lo + 1, n + 1).astype(np.float64)
    k_now = k[-1]
    w = decay ** (k_now - k)
    return k / k_now, loss, w, k_now


@numba.njit(cache=True)
def _fit_job(j, flat, starts, lens, fams, warm, grids, pts_cfg, out, ws) -> None:  # type: ignore[no-untyped-def]
    """Job j's fits of the families `fams` into the rows j of the `out` arrays."""
    window, dens, dks, decay = pts_cfg
    geo, lin, span, wlin, t_min = grids
    sse, off, xs, k_now, l_now = out
    u, loss, w, kn = _points(flat, starts[j], lens[j], window, dens, dks, decay)
    k_now[j], l_now[j] = kn, loss[-1]
    lmin = loss.min()
    if not lmin > 0:
        return
    e = loss - lmin
    s = _power_sums(e, u, w)
    for fam in fams:
        full = True
        t0 = 1.0 - warm[j, fam] / lmin
        bx = xs[j, fam]
        if np.isfinite(t0) and t0 >= t_min and t0 <= 1.0:
            a, o, edge = _warm(fam, u, e, w, lmin, s, t0, span, wlin, t_min, bx, ws)
            full = edge
        if full:
            a, o = _full(fam, u, e, w, lmin, s, geo, lin, bx, ws)
        sse[j, fam], off[j, fam] = a, o


@numba.njit(cache=True)
def _outputs(nj):  # type: ignore[no-untyped-def]
    """sse (J, 2) (inf: no fit), offset (J, 2), x (J, 2, 3), k_now (J,), l_now (J,)."""
    return (
        np.full((nj, 2), np.inf),
        np.zeros((nj, 2)),
        np.zeros((nj, 2, 3)),
        np.zeros(nj),
        np.zeros(nj),
    )


@numba.njit(cache=True)
def fit_all(flat, starts, lens, fams, warm, grids, pts_cfg):  # type: ignore[no-untyped-def]
    """Every job's fits of the families `fams` (codes), one thread: arrays sse (J, 2) (inf:
    no fit), offset (J, 2), x (J, 2, 3), and per job k_now, l_now (the densified last point).
    `warm` (J, 2): previous offsets (nan: none) for the warm-started search; `grids`: (geo,
    lin, span, wlin, t_min) of the searches; `pts_cfg`: (window, dens, dks, decay)."""
    out = _outputs(len(starts))
    ws = _work()
    for j in range(len(starts)):
        _fit_job(j, flat, starts, lens, fams, warm, grids, pts_cfg, out, ws)
    return out
