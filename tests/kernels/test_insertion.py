"""Insertion-move deltas from the pairwise weights, checked against full re-evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels import (
    apply_moves,
    best_insertion_moves,
    insertion_deltas,
    insertion_sweeps,
)
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.heuristics import neighbourhood
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.tables import lop_tables

LOP = [Objective("A"), Objective("B")]


def all_moves(order):
    n = len(order)
    frm, to = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    keep = frm != to
    return frm[keep], to[keep]


def test_apply_moves_gives_the_insertion_neighbourhood():
    order = np.array([3, 0, 4, 1, 2])
    frm, to = all_moves(order)
    moved = apply_moves(np.repeat(order[None], len(frm), axis=0), frm, to)
    assert {tuple(r) for r in moved} == {tuple(r) for r in neighbourhood(order)}
    assert tuple(apply_moves(order[None], np.array([1]), np.array([3]))[0]) == (3, 4, 1, 0, 2)
    assert tuple(apply_moves(order[None], np.array([3]), np.array([0]))[0]) == (1, 3, 0, 4, 2)
    assert tuple(apply_moves(order[None], np.array([2]), np.array([2]))[0]) == tuple(order)


@pytest.mark.parametrize("obj", LOP, ids=lambda o: o.kind)
@pytest.mark.parametrize("n", [2, 5, 13])
def test_delta_matrix_equals_reevaluation(obj, n):
    inst = generate(n, 40 + n)
    order = np.random.default_rng(n).permutation(n)
    base = evaluate_orders(inst, order[None], obj, backend="numpy")[0]
    frm, to = all_moves(order)
    moved = apply_moves(np.repeat(order[None], len(frm), axis=0), frm, to)
    full = evaluate_orders(inst, moved, obj, backend="numpy") - base
    for kind in ("nodes", "lowrank"):
        t = lop_tables(inst, obj, kind)
        d = insertion_deltas(t, order)
        assert np.all(np.diag(d) == 0)
        np.testing.assert_allclose(d[frm, to], full, rtol=1e-9, atol=1e-9 * abs(base))


@pytest.mark.parametrize("backend", ["numpy", "cpu"])
def test_best_move_per_order(backend):
    inst = generate(12, 3)
    rng = np.random.default_rng(0)
    orders = np.array([rng.permutation(12) for _ in range(9)])
    for obj in LOP:
        t = lop_tables(inst, obj, "nodes")
        best = best_insertion_moves(t, orders, backend=backend)
        vals = evaluate_orders(inst, orders, obj, backend="numpy")
        for k, o in enumerate(orders):
            d = insertion_deltas(t, o)
            assert best[k, 0] == pytest.approx(min(d.min(), 0.0), rel=1e-9, abs=1e-12)
            moved = apply_moves(o[None], best[k, 1:2].astype(int), best[k, 2:3].astype(int))
            after = evaluate_orders(inst, moved, obj, backend="numpy")[0]
            assert after - vals[k] == pytest.approx(best[k, 0], rel=1e-9, abs=1e-9 * vals[k])


def test_sweeps_reach_an_insertion_local_optimum():
    inst = generate(30, 8)
    rng = np.random.default_rng(1)
    orders = np.array([rng.permutation(30) for _ in range(5)], dtype=np.int64)
    obj = Objective("B")
    t = lop_tables(inst, obj, "nodes")
    vals = evaluate_orders(inst, orders, obj, backend="numpy")
    for _ in range(50):
        before = orders.copy()
        res = insertion_sweeps(t, orders, 1e-12 * vals, backend="cpu")
        after = evaluate_orders(inst, orders, obj, backend="numpy")  # rows stay permutations
        np.testing.assert_allclose(after - vals, res[:, 0], rtol=1e-9, atol=1e-9 * vals.max())
        assert np.all(res[:, 0] <= 0) and np.all((res[:, 1] > 0) == (after < vals))
        assert np.all((res[:, 1] == 0) == np.all(before == orders, axis=1))
        vals = after
        if not res[:, 1].any():
            break
    assert not res[:, 1].any()
    for o, v in zip(orders, vals, strict=True):
        assert insertion_deltas(t, o).min() >= -1e-11 * v


def test_sweeps_need_a_compiled_backend():
    t = lop_tables(generate(4, 1), Objective("A"))
    with pytest.raises(InvalidInput, match="sweeps run on the compiled backends"):
        insertion_sweeps(t, np.array([[0, 1, 2, 3]]), np.zeros(1), backend="numpy")
