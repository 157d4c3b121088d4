"""The greedy 3-cycle fill: numba against the plain loop, and what it promises checked by brute
force (shape of each cycle, capacities kept, no 3-cycle left with capacity on all three pairs)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from schedlab.solvers.kernels.triangle_fill import fill_triangles


def _case(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Capacities (some pairs empty), and each pair's arc forward or back at random."""
    rng = np.random.default_rng(seed)
    res = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.8), 1)
    fwd = np.triu(rng.random((n, n)) < 0.6, 1)
    back = np.triu(~fwd, 1)
    return res, fwd, back


def _loads(n: int, tri: np.ndarray, weight: np.ndarray) -> np.ndarray:
    load = np.zeros((n, n))
    for (i, k, j), x in zip(tri, weight, strict=True):
        load[i, k] += x
        load[k, j] += x
        load[i, j] += x
    return load


@pytest.mark.parametrize(("n", "seed"), [(6, 0), (12, 1), (25, 2), (40, 3)])
def test_the_fill_keeps_its_promises_and_backends_agree(n, seed):
    res, fwd, back = _case(n, seed)
    tri, weight = fill_triangles(res, fwd, back)
    tri_py, weight_py = fill_triangles(res, fwd, back, backend="numpy")
    assert np.array_equal(tri, tri_py) and np.array_equal(weight, weight_py)
    assert len(tri) > 0 and (weight > 0).all()
    assert len(tri) <= np.count_nonzero(res > 0)  # each cycle empties one pair
    i, k, j = tri.T
    assert ((i < k) & (k < j)).all()
    assert fwd[i, k].all() and fwd[k, j].all() and back[i, j].all()
    left = res - _loads(n, tri, weight)
    assert left.min() >= -1e-12
    for a, b, c in itertools.combinations(range(n), 3):  # maximal: no such 3-cycle has room
        if back[a, c] and fwd[a, b] and fwd[b, c]:
            assert min(left[a, b], left[b, c], left[a, c]) <= 1e-12


def test_a_small_fill_by_hand():
    # pairs (0,1) = 2 and (1,2) = 1 forward, (0,2) = 3 back: one 3-cycle of weight 1; then
    # (0,3) back, closed by 0 -> 1 -> 3 with the 1 left on (0,1) (0 -> 2 is not forward)
    res = np.zeros((4, 4))
    res[0, 1], res[1, 2], res[0, 2] = 2.0, 1.0, 3.0
    res[1, 3], res[2, 3], res[0, 3] = 5.0, 5.0, 4.0
    fwd = np.zeros((4, 4), dtype=bool)
    fwd[0, 1] = fwd[1, 2] = fwd[1, 3] = fwd[2, 3] = True
    back = np.zeros((4, 4), dtype=bool)
    back[0, 2] = back[0, 3] = True
    tri, weight = fill_triangles(res, fwd, back)
    assert tri.tolist() == [[0, 1, 2], [0, 1, 3]]
    assert weight.tolist() == [1.0, 1.0]  # (0,1) had 2, the first cycle took 1
    assert res[0, 1] == 2.0  # the input is not modified


def test_nothing_to_fill():
    res, fwd, back = _case(10, 4)
    tri, weight = fill_triangles(np.zeros_like(res), fwd, back)
    assert tri.shape == (0, 3) and weight.shape == (0,)
    tri, weight = fill_triangles(res, np.triu(np.ones_like(fwd), 1), np.zeros_like(back))
    assert len(tri) == 0
