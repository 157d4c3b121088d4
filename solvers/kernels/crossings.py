"""Crossing counts of a two-layer drawing, pair by pair, compiled by numba.

Arrays in, arrays out, no subject. The free vertices' neighbour positions are in CSR form
(`ptr`, `nbr`: vertex v's sorted neighbours are nbr[ptr[v]:ptr[v + 1]]). Placing u before v
makes c(u, v) = #{(a, b): a in N(u), b in N(v), a > b} crossings between their edges. Only
pairs whose neighbour spans overlap have both counts positive; every other pair has one count
zero and is decided (`solvers.lop.crossings`), so the kernels below enumerate and count the
overlapping pairs only: the work is the number of such pairs times the smaller degree's log.
Backends: 'cpu' (the loops compiled by numba), 'numpy' (the same loops in plain Python: the
reference for tests), 'vector' (whole-array numpy: sorted keys and searchsorted in place of the
loops) and 'auto', the default: 'vector' up to AUTO_VECTOR_MAX candidate pairs or edges, else
'cpu'. The vectorised form takes 3-7 times the compiled one's time (about 0.1 s on the largest
PACE 2024 exact-public graphs) but needs no numba: a process whose graph needs no LP never pays
numba's first-call set-up (about 0.8 CPU s, more than the whole solve of such a graph).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schedlab.solvers.kernels.jit import pick

AUTO_VECTOR_MAX = 4_000_000  # 'auto': the vectorised kernels up to this many candidates / edges
VECTOR_CHUNK = 1 << 22  # neighbour look-ups per chunk of the vectorised enumeration: a
# position's candidates times its vertex's degree bound them: bounded memory on dense graphs


def _below(nbr, lo, hi, a, strict):
    """#{b in nbr[lo:hi]: b < a} (strict) or b <= a, by bisection of the sorted run."""
    i, j = lo, hi
    while i < j:
        k = (i + j) // 2
        if nbr[k] < a or (not strict and nbr[k] == a):
            i = k + 1
        else:
            j = k
    return i - lo


def _pair_costs(ptr, nbr, u, v):
    """(c(u, v), c(v, u)): bisect the smaller neighbour list into the larger."""
    du, dv = ptr[u + 1] - ptr[u], ptr[v + 1] - ptr[v]
    small, large, ds, dl = (u, v, du, dv) if du <= dv else (v, u, dv, du)
    s_first = 0  # c(small, large): pairs a in N(small), b in N(large), a > b
    l_first = 0  # c(large, small): b > a
    for k in range(ptr[small], ptr[small] + ds):
        a = nbr[k]
        s_first += _below(nbr, ptr[large], ptr[large] + dl, a, True)
        l_first += dl - _below(nbr, ptr[large], ptr[large] + dl, a, False)
    if small == u:
        return s_first, l_first
    return l_first, s_first


def _count_overlaps(order, left, right):
    """For each vertex at position p of `order` (sorted by left end), how many later vertices
    q start strictly before its right end (left[q] < right[p]): the candidates of `_overlaps`."""
    n = len(order)
    out = np.zeros(n, dtype=np.int64)
    for p in range(n):
        r = right[order[p]]
        q = p + 1
        while q < n and left[order[q]] < r:
            q += 1
        out[p] = q - p - 1
    return out


def _overlaps(order, left, right, ptr, nbr, start, us, vs, cuv, cvu):
    """The pairs (u, v) with both crossing counts positive (spans overlapping: left[v] <
    right[u] and left[u] < right[v]) and their counts, written from start[p] on for position p
    of `order`; returns how many were written in all (the rest of each slot is unused)."""
    n = len(order)
    total = 0
    for p in range(n):
        u = order[p]
        w = start[p]
        q = p + 1
        while q < n and left[order[q]] < right[u]:
            v = order[q]
            if right[v] > left[u]:
                a, b = _pair_costs(ptr, nbr, u, v)
                if a > 0 and b > 0:
                    us[w] = u
                    vs[w] = v
                    cuv[w] = a
                    cvu[w] = b
                    w += 1
            q += 1
        for k in range(w, start[p + 1]):
            us[k] = -1
        total += w - start[p]
    return total


def _crossings(fixed):
    """Crossings of edges listed by (free position, fixed position) ascending: the pairs i < j
    with fixed[i] > fixed[j] between different free positions (merge-sort inversion count;
    edges at one free vertex never cross). `fixed` is overwritten."""
    n = len(fixed)
    buf = np.empty_like(fixed)
    width = 1
    inv = 0
    src = fixed
    dst = buf
    while width < n:
        i = 0
        while i < n:
            mid = min(i + width, n)
            hi = min(i + 2 * width, n)
            a, b, k = i, mid, i
            while a < mid and b < hi:
                if src[a] <= src[b]:
                    dst[k] = src[a]
                    a += 1
                else:
                    dst[k] = src[b]
                    inv += mid - a
                    b += 1
                k += 1
            while a < mid:
                dst[k] = src[a]
                a += 1
                k += 1
            while b < hi:
                dst[k] = src[b]
                b += 1
                k += 1
            i += 2 * width
        src, dst = dst, src
        width *= 2
    return inv


def _count_overlaps_vec(order: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """`_count_overlaps` on whole arrays: `order` is sorted by left end, so the later vertices
    starting before right[order[p]] are those up to its searchsorted position."""
    ends = np.searchsorted(left[order], right[order], side="left")
    return np.maximum(ends - np.arange(len(order)) - 1, 0).astype(np.int64)


def _pair_costs_vec(ptr: np.ndarray, nbr: np.ndarray, keys: np.ndarray, big: int,
                    u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """`_pair_costs` for arrays of pairs: each neighbour a of the smaller-degree end is looked up
    in the larger end's sorted run through `keys` (vertex * big + neighbour: one sorted array
    for all runs), and the counts are summed per pair."""
    du, dv = ptr[u + 1] - ptr[u], ptr[v + 1] - ptr[v]
    su = du <= dv
    small, large = np.where(su, u, v), np.where(su, v, u)
    ds, dl = np.minimum(du, dv), np.maximum(du, dv)
    if not len(u):
        return ds.copy(), ds.copy()
    starts = np.cumsum(ds) - ds
    pair = np.repeat(np.arange(len(u), dtype=np.int64), ds)
    a = nbr[np.repeat(ptr[small] - starts, ds) + np.arange(int(ds.sum()), dtype=np.int64)]
    at = large[pair] * big + a
    base = ptr[large][pair]
    below = np.searchsorted(keys, at, side="left") - base  # b < a
    above = dl[pair] - (np.searchsorted(keys, at, side="right") - base)  # b > a
    s_first, l_first = np.add.reduceat(below, starts), np.add.reduceat(above, starts)
    return np.where(su, s_first, l_first), np.where(su, l_first, s_first)


def _overlaps_vec(order: np.ndarray, left: np.ndarray, right: np.ndarray, ptr: np.ndarray,
                  nbr: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, ...]:  # fmt: skip
    """`_overlaps` on whole arrays, about VECTOR_CHUNK neighbour look-ups at a time (a pair
    looks up the smaller degree's neighbours, at most u's degree); the pairs come in the loops'
    order (by position of u in `order`, then of v)."""
    big = int(nbr.max()) + 2 if len(nbr) else 1
    deg = np.diff(ptr)
    keys = np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), deg) * big + nbr
    cum = np.cumsum(counts * deg[order])
    parts = []
    p0, n = 0, len(order)
    while p0 < n:
        done = int(cum[p0 - 1]) if p0 else 0
        p1 = min(max(int(np.searchsorted(cum, done + VECTOR_CHUNK, side="right")), p0 + 1), n)
        c = counts[p0:p1]
        pp = np.repeat(np.arange(p0, p1, dtype=np.int64), c)
        qq = pp + 1 + np.arange(len(pp), dtype=np.int64) - np.repeat(np.cumsum(c) - c, c)
        u, v = order[pp], order[qq]
        meet = right[v] > left[u]
        u, v = u[meet], v[meet]
        cuv, cvu = _pair_costs_vec(ptr, nbr, keys, big, u, v)
        keep = (cuv > 0) & (cvu > 0)
        parts.append((u[keep], v[keep], cuv[keep], cvu[keep]))
        p0 = p1
    if not parts:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(4))
    return tuple(np.concatenate([q[k] for q in parts]) for k in range(4))


def _crossings_vec(fixed: np.ndarray) -> int:
    """`_crossings` on whole arrays: the same bottom-up merge, each level counting, for every
    element of a right half, the larger elements of its left half by searchsorted over keys
    (block * big + value), then sorting each merged block by its keys."""
    n = len(fixed)
    if n < 2:
        return 0
    cur = np.asarray(fixed, dtype=np.int64) - int(np.min(fixed))
    big = int(cur.max()) + 2
    pos = np.arange(n, dtype=np.int64)
    inv, width = 0, 1
    while width < n:
        blk = pos // (2 * width)
        right_half = (pos // width) % 2 == 1
        keys = blk * big + cur
        left_keys = keys[~right_half]  # sorted: each left half is sorted from the level below
        rb = blk[right_half]
        ends = np.searchsorted(left_keys, rb * big + big - 1, side="left")
        inv += int((ends - np.searchsorted(left_keys, keys[right_half], side="right")).sum())
        cur = np.sort(keys) - blk * big
        width *= 2
    return inv


_PLAIN: dict[str, Callable[..., object]] = {
    "below": _below,
    "pair_costs": _pair_costs,
    "count_overlaps": _count_overlaps,
    "overlaps": _overlaps,
    "crossings": _crossings,
}


def spans(ptr: np.ndarray, nbr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(left, right): each vertex's smallest and largest neighbour (0, 0 without one)."""
    deg = np.diff(ptr)
    left = np.zeros(len(deg), dtype=np.int64)
    right = np.zeros(len(deg), dtype=np.int64)
    has = deg > 0
    left[has] = nbr[ptr[:-1][has]]
    right[has] = nbr[ptr[1:][has] - 1]
    return left, right


def overlapping_pairs(
    ptr: np.ndarray, nbr: np.ndarray, vertices: np.ndarray, *, backend: str = "auto"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(u, v, c(u, v), c(v, u)) for every pair of `vertices` (each with a neighbour) whose two
    crossing counts are both positive, u listed before v by left end. Memory: one slot per
    candidate pair (spans that start inside another's), then the pairs themselves."""
    ptr = np.ascontiguousarray(ptr, dtype=np.int64)
    nbr = np.ascontiguousarray(nbr, dtype=np.int64)
    left, right = spans(ptr, nbr)
    vs = np.asarray(vertices, dtype=np.int64)
    order = vs[np.lexsort((right[vs], left[vs]))]
    if backend in ("auto", "vector"):
        counts = _count_overlaps_vec(order, left, right)
        if backend == "vector" or int(counts.sum()) <= AUTO_VECTOR_MAX:
            u, v, cuv, cvu = _overlaps_vec(order, left, right, ptr, nbr, counts)
            return u, v, cuv, cvu
        backend = "cpu"  # too many candidates for whole arrays: the loops, on the same counts
    else:
        counts = pick(_PLAIN, "count_overlaps", backend)(order, left, right)
    start = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    size = int(start[-1])
    u = np.empty(size, dtype=np.int64)
    v = np.empty(size, dtype=np.int64)
    cuv = np.empty(size, dtype=np.int64)
    cvu = np.empty(size, dtype=np.int64)
    pick(_PLAIN, "overlaps", backend)(order, left, right, ptr, nbr, start, u, v, cuv, cvu)
    keep = u >= 0
    return u[keep], v[keep], cuv[keep], cvu[keep]


def crossing_number(
    order: np.ndarray, ptr: np.ndarray, nbr: np.ndarray, *, backend: str = "auto"
) -> int:
    """The crossings of the drawing that lists the free vertices in `order` (every vertex
    once), counted from the edges alone (an inversion count, O(m log m)): independent of the
    pair counts above."""
    o = np.asarray(order, dtype=np.int64)
    ptr = np.asarray(ptr, dtype=np.int64)
    deg = ptr[o + 1] - ptr[o]
    first = np.repeat(ptr[o] - np.cumsum(deg) + deg, deg)  # edge k of the list: first + k
    idx = first + np.arange(int(deg.sum()), dtype=np.int64)
    fixed = np.ascontiguousarray(np.asarray(nbr, dtype=np.int64)[idx])
    if backend == "vector" or (backend == "auto" and len(fixed) <= AUTO_VECTOR_MAX):
        return _crossings_vec(fixed)
    return int(pick(_PLAIN, "crossings", "cpu" if backend == "auto" else backend)(fixed))
