"""Möbius-ladder inequalities of the linear ordering polytope on six nodes, and their
separation on a fractional tournament, compiled by numba.

Arrays in, arrays out, no subject. Y[u, v] in [0, 1] is the weight of "u before v" (a
fractional tournament: Y[u, v] + Y[v, u] = 1 off the diagonal). The ladder on the nodes
(m_t, m_b, l_b, l_t, r_b, r_t) is the digraph of the 11 arcs LADDER_ARCS, the union of five
dicycles (m_t l_t l_b, m_t r_t r_b, m_b l_b m_t, m_b r_b m_t and the 4-cycle r_b l_t l_b r_t),
and every order puts at most LADDER_RHS = 8 of its arcs forward. The tests check this by
enumerating the 720 orders of six nodes, and that the 18 orders that put 8 forward span a
14-dimensional affine space while all 720 span 15: a facet of the polytope. No other fact
about these inequalities is used here. Its reverse (every arc turned round) is not
isomorphic to it, so both orientations are separated; its only other automorphism swaps l
and r, so each inequality is found once per orientation.

The separation (`violated_ladders`) takes every pair (m_t, m_b) whose arc m_t -> m_b is
fractional as the middle arc. The ladder's left-hand side is then
    Y[m_t, m_b] + P(l_b, l_t) + P(r_b, r_t) + Y[r_b, l_t] + Y[l_b, r_t],
with P(a, b) = Y[a, m_t] + Y[m_b, a] + Y[b, a] + Y[m_t, b] <= 4, so a side (a, b) of a
violated ladder has P(a, b) > 6 - Y[m_t, m_b] - max P; the sides above that bound, at most
`top` of the largest, are tried two by two. With `top` at least the number of such sides the
search is complete for ladders with a fractional middle arc (a test compares it with
enumeration); the `per_center` most violated are kept per middle arc and orientation.
Backend 'cpu' (numba) or 'numpy' (the same loop in plain Python: the reference for tests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.solvers.kernels.jit import pick

MT, MB, LB, LT, RB, RT = range(6)  # the columns of a ladder's node row
LADDER_ARCS = np.array(
    [(MT, MB), (LB, MT), (LT, LB), (RB, MT), (RT, RB), (MB, LB), (MB, RB), (MT, LT),
     (RB, LT), (MT, RT), (LB, RT)],
    dtype=np.int64,
)  # fmt: skip
LADDER_RHS = 8.0


def _bmax(Z, mt, mb):
    """The largest Y[m_t, b] over b off {m_t, m_b}: P(a, b) <= its a-terms + 1 + this."""
    bmax = 0.0
    for b in range(Z.shape[0]):
        if b != mt and b != mb and Z[mt, b] > bmax:
            bmax = Z[mt, b]
    return bmax


def _pmax(Z, mt, mb):
    """The largest P(a, b) over the pairs off {m_t, m_b}."""
    n = Z.shape[0]
    bmax = _bmax(Z, mt, mb)
    best = -1.0
    for a in range(n):
        if a == mt or a == mb:
            continue
        al = Z[a, mt] + Z[mb, a]
        if al + bmax + 1.0 <= best:
            continue
        for b in range(n):
            if b != a and b != mt and b != mb:
                p = al + Z[b, a] + Z[mt, b]
                if p > best:
                    best = p
    return best


def _sides(Z, mt, mb, need, pa, pb, pv):
    """The pairs (a, b) off {m_t, m_b} with P(a, b) > need, into pa, pb, pv; their count."""
    n = Z.shape[0]
    bmax = _bmax(Z, mt, mb)
    m = 0
    for a in range(n):
        if a == mt or a == mb:
            continue
        al = Z[a, mt] + Z[mb, a]
        if al + bmax + 1.0 <= need:
            continue
        for b in range(n):
            if b == a or b == mt or b == mb:
                continue
            p = al + Z[b, a] + Z[mt, b]
            if p > need:
                pa[m] = a
                pb[m] = b
                pv[m] = p
                m += 1
    return m


def _keep(v, i, j, best_v, best_i, best_j, kept):
    """Insert (v, i, j) into the per-centre list of the largest violations (size fixed)."""
    k = best_v.shape[0]
    if kept < k:
        pos = kept
        kept += 1
    else:
        pos = 0
        for q in range(1, k):
            if best_v[q] < best_v[pos]:
                pos = q
        if v <= best_v[pos]:
            return kept
    best_v[pos] = v
    best_i[pos] = i
    best_j[pos] = j
    return kept


def _ladders(Z, eps, tol, top, per_center, rev, nodes, flags, viol, count):
    """Append the ladders violated on Z (rows of nodes, flag `rev`, violation) from row
    `count` while there is room; returns the new count."""
    n = Z.shape[0]
    cap = nodes.shape[0]
    pa = np.empty(n * n, dtype=np.int64)
    pb = np.empty(n * n, dtype=np.int64)
    pv = np.empty(n * n)
    best_v = np.empty(per_center)
    best_i = np.empty(per_center, dtype=np.int64)
    best_j = np.empty(per_center, dtype=np.int64)
    for mt in range(n):
        for mb in range(n):
            c0 = Z[mt, mb]
            if mt == mb or c0 <= eps or c0 >= 1.0 - eps:
                continue
            # a side of a violated ladder has P > 6 - c0 - max P (cross terms at most 2)
            m = _sides(Z, mt, mb, 6.0 - c0 - _pmax(Z, mt, mb) + tol, pa, pb, pv)
            if m < 2:
                continue
            key = np.empty(m)  # the largest P first; ties (common near an order) scrambled
            for i in range(m):
                key[i] = (
                    -pv[i] - 1e-9 * ((pa[i] * 40503 + pb[i] * 9973 + mt * 7 + mb) % 65521) / 65521.0
                )
            order = np.argsort(key, kind="mergesort")
            k = min(m, top)
            kept = 0
            for x in range(k - 1):
                li = order[x]
                if pv[li] + pv[order[x + 1]] <= 6.0 - c0 + tol:
                    break  # sorted: no later pair reaches 8
                lb, lt = pa[li], pb[li]
                for y in range(x + 1, k):
                    ri = order[y]
                    if pv[li] + pv[ri] <= 6.0 - c0 + tol:
                        break
                    rb, rt = pa[ri], pb[ri]
                    if lb == rb or lb == rt or lt == rb or lt == rt:
                        continue
                    v = c0 + pv[li] + pv[ri] + Z[rb, lt] + Z[lb, rt] - 8.0
                    if v > tol:
                        kept = _keep(v, li, ri, best_v, best_i, best_j, kept)
            for q in range(kept):
                if count >= cap:
                    return count
                li, ri = best_i[q], best_j[q]
                nodes[count, 0] = mt
                nodes[count, 1] = mb
                nodes[count, 2] = pa[li]
                nodes[count, 3] = pb[li]
                nodes[count, 4] = pa[ri]
                nodes[count, 5] = pb[ri]
                flags[count] = rev
                viol[count] = best_v[q]
                count += 1
    return count


_PLAIN: dict[str, Callable[..., Any]] = {
    "bmax": _bmax,
    "pmax": _pmax,
    "sides": _sides,
    "keep": _keep,
    "ladders": _ladders,
}


def violated_ladders(
    Y: np.ndarray,
    *,
    top: int = 64,
    per_center: int = 2,
    max_cuts: int = 100_000,
    eps: float = 1e-6,
    tol: float = 1e-6,
    backend: str = "cpu",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ladders violated by more than `tol` on the fractional tournament Y (n x n), most
    violated first: their nodes (k x 6, columns m_t, m_b, l_b, l_t, r_b, r_t), whether each is
    the reversed ladder (k, bool: every arc turned round) and its violation (k);
    `ladder_arcs` gives each one's arcs. The search stops once `max_cuts` are found (the
    forward orientation first, middle arcs in row order), so a small limit sees part of Y
    only. Work memory: three arrays of n^2 entries."""
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[0] != Y.shape[1]:
        raise ValueError(f"Y: a square matrix is needed (got shape {Y.shape})")
    if top < 2 or per_center < 1 or max_cuts < 0:
        raise ValueError("top >= 2, per_center >= 1 and max_cuts >= 0 are needed")
    run = pick(_PLAIN, "ladders", backend)
    nodes = np.zeros((max_cuts, 6), dtype=np.int64)
    flags = np.zeros(max_cuts, dtype=np.bool_)
    viol = np.zeros(max_cuts)
    count = run(Y, eps, tol, top, per_center, False, nodes, flags, viol, 0)
    count = run(np.ascontiguousarray(Y.T), eps, tol, top, per_center, True, nodes, flags,
                viol, count)  # fmt: skip
    best = np.argsort(-viol[:count], kind="stable")
    return nodes[best], flags[best], viol[best]


def ladder_arcs(nodes: np.ndarray, reversed_: np.ndarray) -> np.ndarray:
    """The arcs (k x 11 x 2: tail, head, meaning "tail before head") of each ladder, whose
    inequality is sum over its arcs of Y[tail, head] <= LADDER_RHS."""
    nodes = np.asarray(nodes, dtype=np.int64).reshape(-1, 6)
    arcs = nodes[:, LADDER_ARCS]  # k x 11 x 2
    rev = np.asarray(reversed_, dtype=bool).reshape(-1)
    arcs[rev] = arcs[rev][:, :, ::-1]
    return arcs


def ladder_values(Y: np.ndarray, arcs: np.ndarray) -> np.ndarray:
    """The left-hand side sum of Y[tail, head] of each ladder given by its arcs."""
    return np.asarray(Y)[arcs[:, :, 0], arcs[:, :, 1]].sum(axis=1)
