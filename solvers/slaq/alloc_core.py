"""Compiled quality evaluation and the threshold allocation for concave gains.

`q_values` is THE evaluation of Q_j(c) = (L_now - L^(now + c T / W_j)) / M_j from a packed fit
(`predict.packed`): `quality.JobQuality` calls it, so the heap and the threshold search see
bitwise the same qualities. `threshold_extra` finds the allocation of the marginal-gain heap
without popping core by core: the largest lambda with sum_j #{c : m_j(c) >= lambda} >= free
(bisection on lambda, a binary search per job on its non-increasing marginals m_j), then the
remaining ties in the heap's order (gain, then job index, then core). Its answer is verified
a posteriori against the heap's exact conditions (each job's marginals non-increasing up to
its last core and every given marginal ahead of every job's next one in the heap's order);
when they fail (a non-concave Q_j) it says so and the caller runs the heap.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, error_model="numpy")
def _pred(code, p, k_now, l_now, h):  # type: ignore[no-untyped-def]
    """`Fit.predict` at one horizon h (same operations, clipped at 0, nan/inf -> l_now)."""
    if code == 0:
        u = (k_now + h) / p[4]
        out = 1.0 / (p[0] * u * u + p[1] * u + p[2]) + p[3]
    elif code == 1:
        out = np.exp(-p[0] * (k_now + h) / p[3] + p[1]) + p[2]
    elif code == 2:
        out = l_now - h * p[0]
    elif code == 3:
        out = l_now * p[0] ** h
    else:
        out = l_now
    if np.isnan(out) or out == np.inf:
        out = l_now
    return max(out, 0.0)


@numba.njit(cache=True)
def q_one(code, p, k_now, l_now, ipc, norm, cores):  # type: ignore[no-untyped-def]
    """Q of one job at `cores` cores."""
    return (l_now - _pred(code, p, k_now, l_now, cores * ipc)) / norm


@numba.njit(cache=True)
def q_values(code, p, k_now, l_now, ipc, norm, cores):  # type: ignore[no-untyped-def]
    """Q of one job at every entry of the array `cores`."""
    out = np.empty(len(cores))
    for i in range(len(cores)):
        out[i] = q_one(code, p, k_now, l_now, ipc, norm, cores[i])
    return out


@numba.njit(cache=True)
def _q(j, c, table, code, p, kn, ln, ipc, norm, base):  # type: ignore[no-untyped-def]
    """Q_j at base_j + c: from `table` (J, L) when it is non-empty, else from the fit."""
    if table.shape[0] > 0:
        return table[j, c]
    return q_one(code[j], p[j], kn[j], ln[j], ipc[j], norm[j], float(base[j] + c))


@numba.njit(cache=True)
def _m(j, c, table, code, p, kn, ln, ipc, norm, base):  # type: ignore[no-untyped-def]
    """The heap's marginal gain of job j's (c+1)-th extra core: Q(c + 1) - Q(c)."""
    args = (table, code, p, kn, ln, ipc, norm, base)
    return _q(j, c + 1, *args) - _q(j, c, *args)


@numba.njit(cache=True)
def _count(j, lam, a, b, args):  # type: ignore[no-untyped-def]
    """First c in [a, b) with m_j(c) < lam (b if none), by bisection (m_j non-increasing)."""
    while a < b:
        mid = (a + b) // 2
        if _m(j, mid, *args) >= lam:
            a = mid + 1
        else:
            b = mid
    return a


@numba.njit(cache=True)
def _bracket(nj, free, args):  # type: ignore[no-untyped-def]
    """Per job counts at the bracket's ends: c_hi (gains >= hi; sum < free) and c_lo (gains
    >= lo; sum >= free), shrunk by bisection on lambda until few candidates are left."""
    hi, lo = -np.inf, np.inf
    for j in range(nj):
        hi = max(hi, _m(j, 0, *args))
        lo = min(lo, _m(j, free - 1, *args))
    hi = np.nextafter(hi, np.inf)
    c_hi = np.zeros(nj, dtype=np.int64)
    c_lo = np.full(nj, free, dtype=np.int64)
    s_hi, s_lo = 0, nj * free
    cm = np.zeros(nj, dtype=np.int64)
    for _ in range(200):
        if s_lo - s_hi <= 2 * nj + 64:
            break
        mid = lo + (hi - lo) / 2
        if not (lo < mid < hi):
            break
        s = 0
        for j in range(nj):
            cm[j] = _count(j, mid, c_hi[j], c_lo[j], args)
            s += cm[j]
        if s >= free:
            lo, s_lo = mid, s
            c_lo[:] = cm
        else:
            hi, s_hi = mid, s
            c_hi[:] = cm
    return c_hi, c_lo


@numba.njit(cache=True)
def _verified(extra, args) -> bool:  # type: ignore[no-untyped-def]
    """The heap gives `extra` iff each job's marginals are non-increasing on 0..extra_j and
    every job's last given key (-m, j) is below every other job's next key (its head)."""
    nj = len(extra)
    last = np.full(nj, np.nan)
    h1m, h1j, h2m, h2j = -np.inf, nj, -np.inf, nj  # the two smallest head keys (jobs differ)
    for j in range(nj):
        prev = np.inf
        for c in range(extra[j] + 1):
            v = _m(j, c, *args)
            if not v <= prev:  # also catches nan
                return False
            if c == extra[j] - 1:
                last[j] = v
            prev = v
        if prev > h1m or (prev == h1m and j < h1j):
            h2m, h2j = h1m, h1j
            h1m, h1j = prev, j
        elif prev > h2m or (prev == h2m and j < h2j):
            h2m, h2j = prev, j
    for j in range(nj):
        if extra[j] > 0:
            hm, hj = (h1m, h1j) if h1j != j else (h2m, h2j)
            if hj < nj and not (last[j] > hm or (last[j] == hm and j < hj)):
                return False
    return True


@numba.njit(cache=True)
def threshold_extra(free, table, code, p, kn, ln, ipc, norm, base):  # type: ignore[no-untyped-def]
    """(extra cores per job, verified): the heap's allocation found by a threshold search."""
    nj = len(base)
    args = (table, code, p, kn, ln, ipc, norm, base)
    extra = np.zeros(nj, dtype=np.int64)
    if free <= 0 or nj == 0:
        return extra, True
    c_hi, c_lo = _bracket(nj, free, args)
    need = free - c_hi.sum()
    total = (c_lo - c_hi).sum()
    if need < 0 or total < need:
        return extra, False
    vals = np.empty(total)
    who = np.empty(total, dtype=np.int64)
    k = 0
    for j in range(nj):
        for c in range(c_hi[j], c_lo[j]):
            vals[k], who[k] = -_m(j, c, *args), j
            k += 1
    order = np.argsort(vals, kind="mergesort")  # stable: ties stay in (job, core) order
    extra[:] = c_hi
    for i in range(need):
        extra[who[order[i]]] += 1
    return extra, _verified(extra, args)


@numba.njit(cache=True)
def _before(g1, j1, g2, j2) -> bool:  # type: ignore[no-untyped-def]
    """Heap order of `greedy.heap_extra`'s keys (-gain, job): larger gain, then lower job."""
    return -g1 < -g2 or (-g1 == -g2 and j1 < j2)


@numba.njit(cache=True)
def _sift_down(hg, hj, pos, size) -> None:  # type: ignore[no-untyped-def]
    """Restore the heap below `pos` (arrays of gains and jobs)."""
    g, j = hg[pos], hj[pos]
    while True:
        c = 2 * pos + 1
        if c >= size:
            break
        if c + 1 < size and _before(hg[c + 1], hj[c + 1], hg[c], hj[c]):
            c += 1
        if not _before(hg[c], hj[c], g, j):
            break
        hg[pos], hj[pos] = hg[c], hj[c]
        pos = c
    hg[pos], hj[pos] = g, j


@numba.njit(cache=True)
def heap_arrays(free, table, code, p, kn, ln, ipc, norm, base):  # type: ignore[no-untyped-def]
    """SLAQ's marginal-gain heap compiled: each free core to the largest Q_j(e + 1) - Q_j(e)
    (ties: the lower job index), exactly `greedy.heap_extra`'s allocation (its keys are
    distinct, so every heap pops them in the same order; the gains are `_m`'s, which is
    `q_one`, the evaluator behind `JobQuality`). Q from `table` when non-empty."""
    nj = len(base)
    args = (table, code, p, kn, ln, ipc, norm, base)
    extra = np.zeros(nj, dtype=np.int64)
    if free <= 0 or nj == 0:
        return extra
    q_next = np.empty(nj)  # Q_j(extra_j + 1)
    hg = np.empty(nj)
    hj = np.arange(nj)
    for j in range(nj):
        q0 = _q(j, 0, *args)
        q_next[j] = _q(j, 1, *args)
        hg[j] = q_next[j] - q0
    for pos in range(nj // 2 - 1, -1, -1):
        _sift_down(hg, hj, pos, nj)
    for _ in range(free):
        j = hj[0]
        extra[j] += 1
        e = extra[j]
        q_e = q_next[j]
        q_next[j] = _q(j, e + 1, *args)
        hg[0] = q_next[j] - q_e
        _sift_down(hg, hj, 0, nj)
    return extra
