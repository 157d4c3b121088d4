"""Compiled fitting core of `predict.fit_many`: every job's window, densification, weights and
both families' offset searches in one numba loop over jobs (no per-job Python work).

It computes what the numpy reference `predict.fit_families_batch` computes, job by job and in
the same order of operations where it matters (the NNLS active-set enumeration, the LDL'
solve, the grids); sums are accumulated sequentially instead of by BLAS, so results agree
with the reference to rounding (tested to 1e-9 relative in tests/slaq/test_fitcore.py).
Inputs are flat arrays (all histories concatenated), outputs are arrays per job and family.
"""

from __future__ import annotations

import numba
import numpy as np

INV, EXP = 0, 1  # family codes (predict.FAMILIES order)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _nnls(ata, aty, yty, m, out, ws) -> bool:  # type: ignore[no-untyped-def]
    """Exact NNLS from normal-equation moments by active-set enumeration (`_nnls_normal`):
    m = 3 all columns >= 0 (inverse-poly); m = 2 column 0 >= 0, column 1 free (exponential)."""
    best = np.inf
    sub, lo = ws[0], ws[1]
    rhs, xs, d, z = ws[2, 0], ws[2, 1], ws[2, 2], ws[3, 0]
    out[:] = 0.0
    sets = _SETS3 if m == 3 else _SETS2
    for si in range(len(sets)):
        cols = sets[si]
        r = 3 - np.sum(cols < 0)
        for p in range(r):
            rhs[p] = aty[cols[p]]
            for q in range(r):
                sub[p, q] = ata[cols[p], cols[q]] + (1e-12 if p == q else 0.0)
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
            if m == 3 or cols[p] == 0:
                ok = ok and xs[p] >= 0
        if ok and res < best:
            best = res
            out[:] = 0.0
            for p in range(r):
                out[cols[p]] = xs[p]
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


@numba.njit(cache=True, error_model="numpy")
def _eval_offset(fam, off, u, e, w, lmin, s, x, ws) -> float:  # type: ignore[no-untyped-def]
    """Weighted loss-space sse of the family's NNLS at one offset (inf when invalid); its
    solution goes to x. ws: (6, 3, 3) workspace."""
    delta = lmin - off
    ata, aty, dp = ws[4], ws[5, 0], ws[3, 1]
    n = len(u)
    dp[0] = 1.0
    for i in range(1, 3):
        dp[i] = dp[i - 1] * delta
    d3, d4 = dp[2] * delta, dp[2] * delta * delta  # dp has 3 slots: powers 3, 4 passed apart
    if fam == INV:
        m4 = ws[3, 2]
        for i in range(3):
            aty[i] = _gap_moment5(s, dp, d3, d4, 3, 2 - i)
        for q in range(3):
            m4[q] = _gap_moment5(s, dp, d3, d4, 4, 4 - q)
        for i in range(3):
            for k in range(3):
                ata[i, k] = m4[i + k] if i + k < 3 else _gap_moment5(s, dp, d3, d4, 4, 4 - i - k)
        yty = _gap_moment5(s, dp, d3, d4, 2, 0)
        ok = _nnls(ata, aty, yty, 3, x, ws)
        ok = ok and max(x[0], max(x[1], x[2])) > 0
    else:
        m0 = _gap_moment5(s, dp, d3, d4, 2, 0)
        m1 = _gap_moment5(s, dp, d3, d4, 2, 1)
        m2 = _gap_moment5(s, dp, d3, d4, 2, 2)
        ata[0, 0], ata[0, 1], ata[1, 0], ata[1, 1] = m2, -m1, -m1, m0
        mt0 = mt1 = yty = 0.0
        for t in range(n):
            gap = e[t] + delta
            q = gap * np.log(gap)
            mt0 += q * gap * w[t]
            mt1 += q * gap * (w[t] * u[t])
            yty += q * q * w[t]
        aty[0], aty[1] = -mt1, mt0
        ok = _nnls(ata, aty, yty, 2, x, ws)
    if not ok:
        return np.inf
    sse = 0.0
    for t in range(n):
        if fam == INV:
            r = 1.0 / (x[0] * (u[t] * u[t]) + x[1] * u[t] + x[2])
        else:
            r = np.exp(x[0] * -u[t] + x[1])
        r -= e[t] + delta
        sse += r * r * w[t]
    return sse if np.isfinite(sse) else np.inf


@numba.njit(cache=True)
def _search(fam, grid, u, e, w, lmin, s, bx, ws) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """The first grid offset of smallest sse (np.argmin of `predict._step`); its x -> bx."""
    best, bi = np.inf, 0
    x = ws[5, 1]
    for g in range(len(grid)):
        sse = _eval_offset(fam, grid[g], u, e, w, lmin, s, x, ws)
        if sse < best:
            best, bi = sse, g
            bx[:] = x
    return best, bi


@numba.njit(cache=True)
def _full(fam, u, e, w, lmin, s, geo, lin, bx, ws) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """`predict._full_search`: the offset grid, then a refined grid around its best point."""
    gn = len(geo)
    grid = lmin * (1.0 - geo)
    x2 = ws[5, 2]
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
    x2 = ws[5, 2]
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
def fit_all(flat, starts, lens, fams, warm, window, dens, dks, decay, geo, lin, span, wlin, t_min):
    """Every job's fits of the families `fams` (codes): arrays sse (J, 2) (inf: no fit),
    offset (J, 2), x (J, 2, 3), and per job k_now, l_now, scale (the densified last point).
    `warm` (J, 2): previous offsets (nan: none) for the warm-started search."""
    nj = len(starts)
    sse = np.full((nj, 2), np.inf)
    off = np.zeros((nj, 2))
    xs = np.zeros((nj, 2, 3))
    k_now = np.zeros(nj)
    l_now = np.zeros(nj)
    ws = np.zeros((6, 3, 3))
    for j in range(nj):
        u, loss, w, kn = _points(flat, starts[j], lens[j], window, dens, dks, decay)
        k_now[j], l_now[j] = kn, loss[-1]
        lmin = loss.min()
        if not lmin > 0:
            continue
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
    return sse, off, xs, k_now, l_now
