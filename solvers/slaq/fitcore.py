"""Compiled fitting core of `predict.fit_many`: every job's window, densification, weights and
both families' offset searches in one numba loop over jobs (no per-job Python work).

It computes what the numpy reference `fit_families_batch` (tests/slaq/numpy_fit.py, the test
oracle) computes, job by job: the same grids, moments (binomial expansion of the power sums)
and NNLS active-set enumeration (`_nnls3`/`_nnls2` on scalars: bitwise the array enumeration
`numpy_fit.nnls_arrays`, their test oracle). Where speed asked for it, the arithmetic differs
by rounding only: sums in 4 interleaved partial sums instead of BLAS, musl's log polynomial
(< 1 ulp) for libm's log, exp(beta - alpha u) as an exact exp every ANCHOR points times
powers of the step. Results agree with the reference to 1e-9 relative
(tests/slaq/test_fitcore.py); an offset can move to a neighbouring grid point only on a near-tie
of the residuals. Each family's offset search is one loop body (`_search_inv`, `_search_exp`):
a call per offset that passes arrays costs numba's reference counting, which once was most of
the time. Inputs are flat arrays (all histories concatenated), outputs are arrays per job and
family.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

INV, EXP = 0, 1  # family codes (predict.FAMILIES order)
ANCHOR = 16  # exact exp every ANCHOR points of the exponential residual
_BIN = np.array(
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0], [1, 4, 6, 4, 1]],
    dtype=np.float64,
)


class _Work(NamedTuple):
    """Scratch arrays of one fitting loop (allocated once, not per job or offset)."""

    x2: np.ndarray  # (3,) best of a refined search


class _Buf(NamedTuple):
    """Per-job scratch vectors (length = the job's fit points) of the per-point passes."""

    g: np.ndarray  # gaps L - offset
    gb: np.ndarray  # g's bits (int64 view)
    mb: np.ndarray  # reduced mantissas' bits (int64)
    mf: np.ndarray  # mb as float64 (view)
    kf: np.ndarray  # exponents (float)
    lg: np.ndarray  # log(g)
    r: np.ndarray  # weighted squared residuals
    an: np.ndarray  # exp at every ANCHOR-th point
    rp: np.ndarray  # (ANCHOR,) powers of the step between anchors


@numba.njit(cache=True)
def _buf(n):  # type: ignore[no-untyped-def]
    """Fresh per-job vectors."""
    g = np.empty(n)
    mb = np.empty(n, dtype=np.int64)
    e = np.empty
    na = (n + ANCHOR - 1) // ANCHOR
    return _Buf(g, g.view(np.int64), mb, mb.view(np.float64), e(n), e(n), e(n), e(na), e(ANCHOR))


# musl's log (FreeBSD e_log.c): reduce to m in [sqrt(2)/2, sqrt(2)), log(m) by a polynomial in
# s = (m - 1) / (m + 1); error < 1 ulp. Written as two branch-free loops so that LLVM vectorizes
# them (libm's scalar log was half of the exponential family's time).
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_LG1, _LG2, _LG3 = 6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01
_LG4, _LG5, _LG6 = 2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_TINY = 2.2250738585072014e-308  # smallest normal double


@numba.njit(cache=True, error_model="numpy")
def _log_reduced(m, k):  # type: ignore[no-untyped-def]
    """log(2^k m) for m in [sqrt(2)/2, sqrt(2)) (musl's polynomial; branch-free)."""
    f = m - 1.0
    hfsq = 0.5 * f * f
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    return s * (hfsq + (t2 + t1)) + k * _LN2_LO - hfsq + f + k * _LN2_HI


@numba.njit(cache=True)
def _work() -> _Work:
    """Fresh scratch arrays."""
    return _Work(np.zeros(3))


@numba.njit(cache=True)
def _power_sums(e: np.ndarray, u: np.ndarray, w: np.ndarray) -> np.ndarray:
    """S[a, p] = sum_n w e^a u^p, a, p = 0..4 (`numpy_fit._power_sums`)."""
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
def _gm(s, d2, d3, d4, delta, power, p):  # type: ignore[no-untyped-def]
    """sum_n w (e_n + delta)^power u_n^p by the binomial expansion (`numpy_fit._gap_moments`)
    from the power sums s, a tuple of 25 floats (row-major; an array would be reference
    counted per call); d2, d3, d4: delta's powers."""
    acc = 0.0
    for a in range(power + 1):
        k = power - a
        dk = 1.0 if k == 0 else (delta if k == 1 else (d2 if k == 2 else (d3 if k == 3 else d4)))
        acc += _BIN[power, a] * dk * s[5 * a + p]
    return acc


@numba.njit(cache=True)
def _sums_tuple(s):  # type: ignore[no-untyped-def]
    """The 5 x 5 power sums as a tuple of 25 floats (row-major)."""
    return (
        s[0, 0], s[0, 1], s[0, 2], s[0, 3], s[0, 4],
        s[1, 0], s[1, 1], s[1, 2], s[1, 3], s[1, 4],
        s[2, 0], s[2, 1], s[2, 2], s[2, 3], s[2, 4],
        s[3, 0], s[3, 1], s[3, 2], s[3, 3], s[3, 4],
        s[4, 0], s[4, 1], s[4, 2], s[4, 3], s[4, 4],
    )  # fmt: skip


@numba.njit(cache=True, error_model="numpy")
def _set_res(yty, x0, x1, x2, b0, b1, b2, s00, s01, s02, s11, s12, s22, r):  # type: ignore[no-untyped-def]
    """|A x - y|^2 = y'y - 2 x'A'y + x'A'A x of an active-set solution, in the order of
    operations of `numpy_fit.nnls_arrays` (r = 1, 2, 3 leading entries used; the matrix is
    symmetric)."""
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
    """`numpy_fit.ldl_solve` for r = 2 with scalars (same operations)."""
    d0 = a00
    l10 = a01 / d0
    d1 = a11 - l10**2 * d0
    z1 = b1 - l10 * b0
    x1 = z1 / d1
    x0 = b0 / d0 - l10 * x1
    return x0, x1


@numba.njit(cache=True, error_model="numpy")
def _nnls3(a00, a01, a02, a11, a12, a22, b0, b1, b2, yty):  # type: ignore[no-untyped-def]
    """`numpy_fit.nnls_arrays` for m = 3 (every column >= 0) with scalars: the 7 active sets
    in the same order and operations, so the result is bitwise the array version's.
    (ok, x0, x1, x2)."""
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
    # {0, 1, 2}: the unpivoted LDL' of `numpy_fit.ldl_solve`
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
    """`numpy_fit.nnls_arrays` for m = 2 (column 0 >= 0, column 1 free) with scalars, same
    operations."""
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


@numba.njit(cache=True)
def _sum4(r, n):  # type: ignore[no-untyped-def]
    """sum of r[:n] in 4 interleaved partial sums (4 independent add chains: the sequential
    sum was latency-bound), then (s0 + s1) + (s2 + s3) + the tail."""
    s0 = s1 = s2 = s3 = 0.0
    m = n - n % 4
    for t in range(0, m, 4):
        s0 += r[t]
        s1 += r[t + 1]
        s2 += r[t + 2]
        s3 += r[t + 3]
    out = (s0 + s1) + (s2 + s3)
    for t in range(m, n):
        out += r[t]
    return out


@numba.njit(cache=True, error_model="numpy")
def _search_inv(grid, u, e, w, lmin, s, bx, r):  # type: ignore[no-untyped-def]
    """inverse-poly: the first grid offset of smallest weighted loss-space sse (np.argmin of
    `numpy_fit._step`), its NNLS solution -> bx. Per offset: the moments from the power sums
    s (binomial expansion), the exact NNLS (`_nnls3`), the residual over the points (a
    vectorized pass, then the sequential sum). One loop body, arrays passed once (a call per
    offset that passes arrays costs reference counting)."""
    n = len(u)
    best, bi = np.inf, 0
    for gi in range(len(grid)):
        delta = lmin - grid[gi]
        d2 = 1.0 * delta * delta
        d3, d4 = d2 * delta, d2 * delta * delta
        k = _gm(s, d2, d3, d4, delta, 4, 2)
        ok, x0, x1, x2 = _nnls3(
            _gm(s, d2, d3, d4, delta, 4, 4),
            _gm(s, d2, d3, d4, delta, 4, 3),
            k,
            k,
            _gm(s, d2, d3, d4, delta, 4, 1),
            _gm(s, d2, d3, d4, delta, 4, 0),
            _gm(s, d2, d3, d4, delta, 3, 2),
            _gm(s, d2, d3, d4, delta, 3, 1),
            _gm(s, d2, d3, d4, delta, 3, 0),
            _gm(s, d2, d3, d4, delta, 2, 0),
        )
        if not (ok and max(x0, max(x1, x2)) > 0):
            continue
        for t in range(n):  # vectorized (a division per point)
            v = 1.0 / (x0 * (u[t] * u[t]) + x1 * u[t] + x2)
            v -= e[t] + delta
            r[t] = v * v * w[t]
        sse = _sum4(r, n)
        if np.isfinite(sse) and sse < best:
            best, bi = sse, gi
            bx[0], bx[1], bx[2] = x0, x1, x2
    return best, bi


@numba.njit(cache=True, error_model="numpy")
def _search_exp(grid, u, du, e, w, lmin, emax, s, bx, b):  # type: ignore[no-untyped-def]
    """exponential: `_search_inv` for log(L - c) = -alpha u + beta (`_nnls2`). The log per
    point and offset is musl's (`_log_reduced`, vectorized) when every gap is a normal number;
    exp(beta - alpha u_t) is exact every ANCHOR points, times powers of exp(-alpha du) in
    between (u is equally spaced; relative error ~ ANCHOR ulps)."""
    g, gb, mb, mf, kf, lg, r, an, rp = b
    n = len(u)
    best, bi = np.inf, 0
    for gi in range(len(grid)):
        delta = lmin - grid[gi]
        d2 = 1.0 * delta * delta
        d3, d4 = d2 * delta, d2 * delta * delta
        for t in range(n):
            g[t] = e[t] + delta
        if delta >= _TINY and emax + delta < np.inf:  # every gap (in [delta, emax + delta])
            for t in range(n):
                hx = (gb[t] >> 32) + (0x3FF00000 - 0x3FE6A09E)
                kf[t] = float((hx >> 20) - 0x3FF)
                mb[t] = (((hx & 0x000FFFFF) + 0x3FE6A09E) << 32) | (gb[t] & 0xFFFFFFFF)
            for t in range(n):
                lg[t] = _log_reduced(mf[t], kf[t])
        else:
            for t in range(n):
                lg[t] = np.log(g[t])
        for t in range(n):  # the transformed targets' moments (mf, kf, lg reused), summed below
            q = g[t] * lg[t]
            qg = q * g[t] * w[t]
            mf[t] = qg
            kf[t] = qg * u[t]
            lg[t] = q * q * w[t]
        mt0, mt1, yty = _sum4(mf, n), _sum4(kf, n), _sum4(lg, n)
        m0 = _gm(s, d2, d3, d4, delta, 2, 0)
        m1 = _gm(s, d2, d3, d4, delta, 2, 1)
        m2 = _gm(s, d2, d3, d4, delta, 2, 2)
        ok, x0, x1 = _nnls2(m2, -m1, m0, -mt1, mt0, yty)
        if not ok:
            continue
        for a in range(len(an)):
            an[a] = np.exp(x0 * -u[min(a * ANCHOR, n - 1)] + x1)
        rho = np.exp(x0 * -du)
        rp[0] = 1.0
        for i in range(1, ANCHOR):
            rp[i] = rp[i - 1] * rho
        for t in range(n):
            v = an[t // ANCHOR] * rp[t % ANCHOR] - g[t]
            r[t] = v * v * w[t]
        sse = _sum4(r, n)
        if np.isfinite(sse) and sse < best:
            best, bi = sse, gi
            bx[0], bx[1], bx[2] = x0, x1, 0.0
    return best, bi


@numba.njit(cache=True)
def _search(fam, grid, pts, s, bx, b) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """The family's search over the offsets `grid`: (smallest sse, its index); x -> bx."""
    u, du, e, w, lmin, emax = pts
    if fam == INV:
        return _search_inv(grid, u, e, w, lmin, s, bx, b.r)
    return _search_exp(grid, u, du, e, w, lmin, emax, s, bx, b)


@numba.njit(cache=True)
def _full(fam, pts, s, geo, lin, bx, ws, b) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """`numpy_fit._full_search`: the offset grid, then a refined grid around its best point."""
    gn = len(geo)
    lmin = pts[4]
    grid = lmin * (1.0 - geo)
    x2 = ws.x2
    sse, gi = _search(fam, grid, pts, s, bx, b)
    lo = grid[min(gi + 1, gn - 1)]
    hi = grid[gi - 1] if gi > 0 else lmin * (1 - 1e-6)
    fine = lo + (hi - lo) * lin
    sse2, gi2 = _search(fam, fine, pts, s, x2, b)
    if sse2 < sse:
        bx[:] = x2
        return sse2, fine[gi2]
    return sse, grid[gi]


@numba.njit(cache=True)
def _warm(fam, pts, s, t0, span, lin, t_min, bx, ws, b) -> tuple[float, float, bool]:  # type: ignore[no-untyped-def]
    """`numpy_fit._warm_search` for one job: (sse, offset, x, best point on the bracket edge)."""
    gn = len(span)
    lmin = pts[4]
    t = np.minimum(np.maximum(t0 * span, t_min), 1.0)
    grid = lmin * (1.0 - t)
    x2 = ws.x2
    sse, gi = _search(fam, grid, pts, s, bx, b)
    edge = (gi == 0 and t[0] > t_min) or (gi == gn - 1 and t[gn - 1] < 1.0)
    lo = grid[min(gi + 1, gn - 1)]
    hi = grid[max(gi - 1, 0)]
    fine = lo + (hi - lo) * lin
    sse2, gi2 = _search(fam, fine, pts, s, x2, b)
    if sse2 < sse:
        bx[:] = x2
        return sse2, fine[gi2], edge
    return sse, grid[gi], edge


@numba.njit(cache=True)
def _points(flat, start, n, window, dens, dks, decay):
    """(u = k / k_now, loss, w, k_now) of one history: `numpy_fit.fit_points`."""
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
    s = _sums_tuple(_power_sums(e, u, w))
    n = len(u)
    du = (u[n - 1] - u[0]) / (n - 1) if n > 1 else 0.0  # u is equally spaced (`_points`)
    pts = (u, du, e, w, lmin, e.max())
    b = _buf(n)
    for fam in fams:
        full = True
        t0 = 1.0 - warm[j, fam] / lmin
        bx = xs[j, fam]
        if np.isfinite(t0) and t0 >= t_min and t0 <= 1.0:
            a, o, edge = _warm(fam, pts, s, t0, span, wlin, t_min, bx, ws, b)
            full = edge
        if full:
            a, o = _full(fam, pts, s, geo, lin, bx, ws, b)
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
