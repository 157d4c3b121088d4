"""Closed forms against the enumeration oracle and Monte Carlo coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import (
    Objective,
    b_weights,
    evaluate,
    quadrature_nodes,
    value_B,
)
from schedlab.solvers.sojourn.outcomes import enumerate_value, monte_carlo_value
from tests.conftest import random_instances

REL = 1e-9


def all_objectives(n: int) -> list[Objective]:
    ks = range(1, n + 1)
    return [Objective("A"), Objective("B")] + [Objective(t, k) for t in ("TK", "DK") for k in ks]


@pytest.mark.parametrize("inst", random_instances(200), ids=lambda i: i.name)
def test_closed_forms_equal_enumeration(inst):
    rng = np.random.default_rng(len(inst.name))
    order = [int(i) for i in rng.permutation(inst.n)]
    for obj in all_objectives(inst.n):
        exact = enumerate_value(inst, order, obj)
        assert math.isclose(evaluate(inst, order, obj), exact, rel_tol=REL, abs_tol=1e-12), obj
        batch = evaluate_orders(inst, np.array([order]), obj)[0]
        assert math.isclose(batch, exact, rel_tol=REL, abs_tol=1e-12), obj


def test_hand_computed_values(tiny_instance):
    # a: sizes 3/10 probs .4/.6 (E[X]=7.2); b: 5 surely; c: 1/2/8 probs .2/.3/.5 (E[X]=4.8)
    order = [0, 1, 2]
    assert math.isclose(
        evaluate(tiny_instance, order, Objective("A")),
        0.6 * 10 + 1.0 * (7.2 + 5) + 0.5 * (7.2 + 5 + 8),
    )
    # T1: first success: a succeeds (0.6) at 10; else b at 3+5=8
    assert math.isclose(evaluate(tiny_instance, order, Objective("TK", 1)), 0.6 * 10 + 0.4 * 8)


def test_linear_ordering_weights_reproduce_b():
    for inst in random_instances(30, max_n=7, seed0=500):
        c, W = b_weights(inst)
        order = list(range(inst.n))[::-1]
        n = inst.n
        lop = c.sum() + sum(W[order[x], order[y]] for x in range(n) for y in range(x + 1, n))
        assert math.isclose(lop, evaluate(inst, order, Objective("B")), rel_tol=REL)


def test_too_few_quadrature_nodes_is_wrong():
    # the exactness of ceil(n/2)+1 nodes is not vacuous: one node is visibly wrong
    inst = generate(8, 11, max_checkpoints=2)
    order = list(range(8))
    exact = enumerate_value(inst, order, Objective("B"))
    assert math.isclose(value_B(inst, order, quadrature_nodes(8)), exact, rel_tol=REL)
    assert not math.isclose(value_B(inst, order, 1), exact, rel_tol=1e-6)


def test_monte_carlo_covers_at_stated_rate():
    inst = generate(5, 21)
    order = list(range(5))
    for obj in (Objective("A"), Objective("B"), Objective("TK", 2), Objective("DK", 3)):
        exact = evaluate(inst, order, obj)
        hits = sum(
            monte_carlo_value(inst, order, obj, samples=2000, seed=s).covers(exact)
            for s in range(200)
        )
        # 95% intervals: 200 runs cover 190 on average; [178, 199] holds with prob. > 0.999
        assert 178 <= hits <= 199, (obj, hits)


def test_monte_carlo_is_seeded(tiny_instance):
    a = monte_carlo_value(tiny_instance, [0, 1, 2], Objective("B"), samples=500, seed=3)
    b = monte_carlo_value(tiny_instance, [0, 1, 2], Objective("B"), samples=500, seed=3)
    assert a == b


@pytest.mark.parametrize(
    "kind, k, needle",
    [
        ("X", None, "unknown"),
        ("TK", None, "needs K"),
        ("DK", 0, "positive integer"),
        ("A", 2, "takes no K"),
    ],
)
def test_bad_objective(kind, k, needle):
    with pytest.raises(InvalidInput, match=needle):
        Objective(kind, k)


def test_k_larger_than_n(tiny_instance):
    with pytest.raises(InvalidInput, match="at most the number of jobs"):
        evaluate(tiny_instance, [0, 1, 2], Objective("TK", 4))


def test_bad_order(tiny_instance):
    with pytest.raises(InvalidInput, match="exactly once"):
        evaluate(tiny_instance, [0, 0, 1], Objective("A"))
    with pytest.raises(InvalidInput, match="unknown job id"):
        tiny_instance.order_from_ids(["a", "b", "zz"])
