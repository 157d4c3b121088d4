"""All-pairs shortest paths with non-negative arc lengths, compiled by numba.

Arrays in, arrays out, no subject: `length[i, j]` is the length of arc i -> j, used only where
`arc[i, j]` is true. Both functions return (dist, nxt): the length of a shortest i -> j path
(inf if none; 0 for i = j) and the node after i on it (-1 if none); `path` reads a path back.
- `dag_all_pairs`: arcs go forward in the listing (only i < j is read); a backward sweep over
  sources, O(n^3 / 6).
- `floyd_warshall`: any digraph, O(n^3).
`best_first_hops` ranks, for given (source, target) pairs, the first hops of shortest paths
(the k best arcs out of the source, each followed by a shortest path), and `paths` reads many
recorded paths back at once (flat nodes and offsets): the batch forms of column generation.
Backend 'cpu' (numba) or 'numpy' (the same loops in plain Python: the reference for tests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.solvers.kernels.jit import pick


def _dag(length, arc, dist, nxt):
    n = length.shape[0]
    for i in range(n - 1, -1, -1):
        dist[i, i] = 0.0
        for j in range(i + 1, n):
            best = np.inf
            arg = -1
            for k in range(i + 1, j + 1):
                if arc[i, k]:
                    v = length[i, k] + dist[k, j]
                    if v < best:
                        best = v
                        arg = k
            dist[i, j] = best
            nxt[i, j] = arg


def _floyd(length, arc, dist, nxt):
    n = length.shape[0]
    for i in range(n):
        for j in range(n):
            if arc[i, j] and i != j:
                dist[i, j] = length[i, j]
                nxt[i, j] = j
        dist[i, i] = 0.0
        nxt[i, i] = i
    for k in range(n):
        for i in range(n):
            dik = dist[i, k]
            if dik == np.inf or i == k:
                continue
            for j in range(n):
                v = dik + dist[k, j]
                if v < dist[i, j]:
                    dist[i, j] = v
                    nxt[i, j] = nxt[i, k]


def _first_hops(length, arc, dist, src, dst, hops, vals):
    k = hops.shape[1]
    n = length.shape[0]
    for r in range(len(src)):
        i = src[r]
        j = dst[r]
        for h in range(n):
            if h == i or not arc[i, h]:
                continue
            v = length[i, h] + dist[h, j]
            if not v < vals[r, k - 1]:  # also skips inf
                continue
            s = k - 1
            while s > 0 and v < vals[r, s - 1]:
                vals[r, s] = vals[r, s - 1]
                hops[r, s] = hops[r, s - 1]
                s -= 1
            vals[r, s] = v
            hops[r, s] = h


def _path_lengths(nxt, starts, ends, count):
    for r in range(len(starts)):
        i = starts[r]
        c = 1
        while i != ends[r]:
            i = nxt[i, ends[r]]
            if i < 0:
                count[r] = -1
                break
            c += 1
        if i >= 0:
            count[r] = c


def _path_fill(nxt, starts, ends, ptr, nodes):
    for r in range(len(starts)):
        i = starts[r]
        at = ptr[r]
        nodes[at] = i
        while i != ends[r]:
            i = nxt[i, ends[r]]
            at += 1
            nodes[at] = i


_PLAIN: dict[str, Callable[..., None]] = {
    "dag": _dag,
    "floyd": _floyd,
    "first_hops": _first_hops,
    "path_lengths": _path_lengths,
    "path_fill": _path_fill,
}


def _kernel(name: str, backend: str) -> Callable[..., Any]:
    return pick(_PLAIN, name, backend)


def _run(
    name: str, length: np.ndarray, arc: np.ndarray, backend: str
) -> tuple[np.ndarray, np.ndarray]:
    kernel = _kernel(name, backend)
    n = length.shape[0]
    L = np.ascontiguousarray(length, dtype=np.float64)
    A = np.ascontiguousarray(arc, dtype=np.bool_)
    dist = np.full((n, n), np.inf)
    nxt = np.full((n, n), -1, dtype=np.int64)
    kernel(L, A, dist, nxt)
    return dist, nxt


def dag_all_pairs(
    length: np.ndarray, arc: np.ndarray, *, backend: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """Shortest forward paths when every arc i -> j has i < j (O(n^3 / 6))."""
    return _run("dag", length, arc, backend)


def floyd_warshall(
    length: np.ndarray, arc: np.ndarray, *, backend: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """Shortest paths in any digraph with non-negative lengths (O(n^3))."""
    return _run("floyd", length, arc, backend)


def path(nxt: np.ndarray, i: int, j: int) -> list[int]:
    """The nodes of the recorded shortest i -> j path, i first and j last."""
    out = [i]
    while i != j:
        i = int(nxt[i, j])
        if i < 0:
            raise ValueError(f"no path from {out[0]} to {j}")
        out.append(i)
    return out


def best_first_hops(
    length: np.ndarray,
    arc: np.ndarray,
    dist: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    k: int,
    *,
    backend: str = "cpu",
) -> tuple[np.ndarray, np.ndarray]:
    """For each pair (src[r], dst[r]): the k first hops h (arc src -> h) with the shortest
    length[src, h] + dist[h, dst], best first, and those lengths; -1 and inf where fewer exist.
    Ties go to the lower h. dist is a shortest-path table, e.g. from `dag_all_pairs`."""
    kernel = _kernel("first_hops", backend)
    r = len(src)
    hops = np.full((r, k), -1, dtype=np.int64)
    vals = np.full((r, k), np.inf)
    kernel(
        np.ascontiguousarray(length, dtype=np.float64),
        np.ascontiguousarray(arc, dtype=np.bool_),
        np.ascontiguousarray(dist, dtype=np.float64),
        np.ascontiguousarray(src, dtype=np.int64),
        np.ascontiguousarray(dst, dtype=np.int64),
        hops,
        vals,
    )
    return hops, vals


def paths(
    nxt: np.ndarray, starts: np.ndarray, ends: np.ndarray, *, backend: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """The recorded shortest starts[r] -> ends[r] paths, all at once: their nodes one after
    another (each path start first and end last) and the offsets (len(starts) + 1) where each
    begins; ValueError if one does not exist."""
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    table = np.ascontiguousarray(nxt, dtype=np.int64)
    count = np.zeros(len(starts), dtype=np.int64)
    _kernel("path_lengths", backend)(table, starts, ends, count)
    if (count < 0).any():
        r = int(np.nonzero(count < 0)[0][0])
        raise ValueError(f"no path from {starts[r]} to {ends[r]}")
    ptr = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(count, out=ptr[1:])
    nodes = np.empty(int(ptr[-1]), dtype=np.int64)
    _kernel("path_fill", backend)(table, starts, ends, ptr, nodes)
    return nodes, ptr
