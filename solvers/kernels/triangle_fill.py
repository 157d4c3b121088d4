"""Greedy filling of left-over arc capacities by 3-cycles, compiled by numba.

Arrays in, arrays out, no subject. Nodes are the positions 0..n-1 of an order; only pairs
i < j are read: `res[i, j]` is the capacity left on the pair, `fwd[i, j]` says the pair's arc
goes forward (i -> j), `back[i, j]` that it goes back (j -> i). For each back pair (i, j), rows
first, and each k between them with i -> k and k -> j forward, the 3-cycle i -> k -> j -> i
takes the smallest capacity left on its three pairs. Each cycle empties one pair, so there are
at most as many cycles as pairs with capacity, and when it ends no 3-cycle of that shape has
capacity left on all three pairs (a maximal packing of them, not a largest one).
Backend 'cpu' (numba) or 'numpy' (the same loop in plain Python: the reference for tests).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schedlab.solvers.kernels.jit import pick


def _fill(res, fwd, back, tri, weight):
    n = res.shape[0]
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if not back[i, j]:
                continue
            for k in range(i + 1, j):
                left = res[i, j]
                if left <= 0.0:
                    break
                if fwd[i, k] and fwd[k, j]:
                    x = min(left, res[i, k], res[k, j])
                    if x > 0.0:
                        res[i, j] -= x
                        res[i, k] -= x
                        res[k, j] -= x
                        tri[count, 0] = i
                        tri[count, 1] = k
                        tri[count, 2] = j
                        weight[count] = x
                        count += 1
    return count


_PLAIN: dict[str, Callable[..., int]] = {"fill": _fill}


def fill_triangles(
    res: np.ndarray, fwd: np.ndarray, back: np.ndarray, *, backend: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """The 3-cycles (rows i, k, j: i -> k -> j forward, j -> i back) that greedily fill the
    capacities `res` (upper triangle read; not modified) and their weights (all positive).
    Their load on every pair is at most its capacity, up to the rounding of one subtraction
    per cycle; the caller checks (`cyclepack` shaves any overload)."""
    R = np.array(np.triu(res, 1), dtype=np.float64, order="C")  # a copy the loop empties
    size = int(np.count_nonzero(R > 0.0))
    tri = np.zeros((size, 3), dtype=np.int64)
    weight = np.zeros(size)
    count = pick(_PLAIN, "fill", backend)(
        R,
        np.ascontiguousarray(fwd, dtype=np.bool_),
        np.ascontiguousarray(back, dtype=np.bool_),
        tri,
        weight,
    )
    return tri[:count], weight[:count]
