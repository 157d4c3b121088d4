"""Factor tables of A and B against the closed forms, with their certified error bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.solvers.kernels.linalg import HouseholderQR
from schedlab.solvers.kernels.quadrature import _legendre_newton, gauss_legendre_unit
from schedlab.solvers.kernels.tables import compress
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate, value_B
from schedlab.solvers.sojourn.tables import a_tables, b_node_tables, lop_tables
from tests.conftest import random_instances

B = Objective("B")


def table_value(t, order):
    o = np.asarray(order)
    prefix = np.cumsum(t.T2[o], axis=0) - t.T2[o]
    return t.c0 + float(np.sum(t.T1[o] * prefix))


def test_newton_nodes_match_numpy_and_integrate_monomials():
    x, w = _legendre_newton(300)
    x0, w0 = np.polynomial.legendre.leggauss(300)
    order = np.argsort(x)
    assert np.max(np.abs(x[order] - x0)) < 1e-14
    assert np.max(np.abs(w[order] - w0)) < 1e-13
    u, wu = gauss_legendre_unit(400)  # Newton branch; exact up to degree 799
    for k in (0, 1, 17, 399, 799):
        assert math.isclose(float(np.dot(wu, u**k)), 1 / (k + 1), rel_tol=1e-12)


@pytest.mark.parametrize("inst", random_instances(40, max_n=12, seed0=300), ids=lambda i: i.name)
def test_factor_tables_reproduce_closed_forms(inst):
    rng = np.random.default_rng(inst.n)
    order = rng.permutation(inst.n)
    assert math.isclose(
        table_value(a_tables(inst), order), evaluate(inst, order, Objective("A")), rel_tol=1e-12
    )
    exact = value_B(inst, order)
    for kind in ("nodes", "lowrank"):
        t = lop_tables(inst, B, kind)
        assert abs(table_value(t, order) - exact) <= t.error_bound + 1e-12 * exact, kind


@pytest.mark.parametrize("n", [60, 200])
def test_pruning_drops_nodes_within_the_bound(n):
    inst = generate(n, 5)
    rng = np.random.default_rng(1)
    orders = [rng.permutation(n) for _ in range(3)]
    full = b_node_tables(inst, tol=0.0)  # nothing dropped
    pruned = b_node_tables(inst)
    assert full.rank == full.nodes_total and pruned.rank < full.rank
    loose = b_node_tables(inst, tol=1e-3)  # drops much more; the bound must still hold
    assert loose.rank < pruned.rank
    for o in orders:
        exact = value_B(inst, o)
        for t in (full, pruned, loose):
            assert abs(table_value(t, o) - exact) <= t.error_bound + 1e-11 * exact
    # the loose bound is not vacuous: the loose tables are visibly off, by less than the bound
    errs = [abs(table_value(loose, o) - value_B(inst, o)) for o in orders]
    assert max(errs) > 1e-9 * value_B(inst, orders[0])


def test_lowrank_is_small_and_certified():
    inst = generate(150, 2)
    nodes = b_node_tables(inst)
    smith = np.argsort(inst.mean / inst.pi, kind="stable")
    low = compress(nodes, smith)
    assert low.rank < 10 < nodes.rank
    o = np.random.default_rng(3).permutation(150)
    exact = value_B(inst, o)
    assert abs(table_value(low, o) - exact) <= low.error_bound + 1e-11 * exact
    assert low.error_bound <= 1e-11 * exact
    # a bound that forces rank 1 is large, and honest about it
    one = compress(nodes, smith, tol=1.0)
    assert one.rank == 1
    assert abs(table_value(one, o) - exact) <= one.error_bound + 1e-11 * exact


def test_blocked_layout_round_trips():
    rng = np.random.default_rng(0)
    for r, (b16, b8) in {
        1: (0, 1),
        8: (0, 1),
        9: (1, 0),
        16: (1, 0),
        24: (1, 1),
        27: (2, 0),
    }.items():
        t = a_tables(generate(5, 1))
        t = type(t)(0.0, rng.random((5, r)), rng.random((5, r)), "x", 1, 0.0)
        Tw, Tn = t.blocked()
        assert Tw.shape == (b16, 5, 32) and Tn.shape == (b8, 5, 16)
        c1 = np.concatenate([*(B[:, :16] for B in Tw), *(B[:, :8] for B in Tn)], axis=1)
        c2 = np.concatenate([*(B[:, 16:] for B in Tw), *(B[:, 8:] for B in Tn)], axis=1)
        assert np.array_equal(c1[:, :r], t.T1) and not c1[:, r:].any()
        assert np.array_equal(c2[:, :r], t.T2) and not c2[:, r:].any()


def test_householder_qr():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((300, 25))
    qr = HouseholderQR(A)
    Q = qr.q_times(np.eye(25))
    assert np.max(np.abs(Q @ qr.R - A)) < 1e-12
    assert np.max(np.abs(Q.T @ Q - np.eye(25))) < 1e-13
    assert np.allclose(np.tril(qr.R, -1), 0.0)
