"""All-pairs shortest paths with non-negative arc lengths, compiled by numba.

Arrays in, arrays out, no subject: `length[i, j]` is the length of arc i -> j, used only where
`arc[i, j]` is true. Both functions return (dist, nxt): the length of a shortest i -> j path
(inf if none; 0 for i = j) and the node after i on it (-1 if none); `path` reads a path back.
- `dag_all_pairs`: arcs go forward in the listing (only i < j is read); a backward sweep over
  sources, O(n^3 / 6).
- `floyd_warshall`: any digraph, O(n^3).
Backend 'cpu' (numba) or 'numpy' (the same loops in plain Python: the reference for tests).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np


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


_PLAIN = {"dag": _dag, "floyd": _floyd}


@cache
def _compiled(name: str) -> Any:
    import numba

    return numba.njit(cache=True)(_PLAIN[name])


def _run(
    name: str, length: np.ndarray, arc: np.ndarray, backend: str
) -> tuple[np.ndarray, np.ndarray]:
    if backend not in ("cpu", "numpy"):
        raise ValueError(f"backend must be 'cpu' or 'numpy', not {backend!r}")
    n = length.shape[0]
    L = np.ascontiguousarray(length, dtype=np.float64)
    A = np.ascontiguousarray(arc, dtype=np.bool_)
    dist = np.full((n, n), np.inf)
    nxt = np.full((n, n), -1, dtype=np.int64)
    kernel: Callable[..., None] = _compiled(name) if backend == "cpu" else _PLAIN[name]
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
