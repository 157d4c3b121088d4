"""Gittins and Sevcik orders: hand-checked cases, each from its own definition, never below
the proven optimum of A, B, TK or DK."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.heuristics_gittins import gittins_key, sevcik_rank
from schedlab.solvers.sojourn.indices import gittins_index
from schedlab.solvers.sojourn.indices import sevcik_rank as scalar_rank
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve
from tests.conftest import random_instances

# a: cancelled at 1 w.p. .5, else succeeds at 10 (E[X] = 5.5); b: 3 surely
HAND = Instance.from_arrays([[1, 10], [3]], [[0.5, 0.5], [1.0]], ids=["a", "b"])


def test_hand_checked_indices_and_orders():
    # G_a = max(.5 / 1, 1 / 5.5) = .5 > G_b = 1/3; ranks 2 < 3: a first, unlike SEPT and Smith
    assert np.allclose(-gittins_key(HAND), [0.5, 1 / 3])
    assert np.allclose(sevcik_rank(HAND), [2.0, 3.0])
    for method in ("gittins", "sevcik"):
        assert solve(SojournProblem(HAND, Objective("A")), method).solution == ["a", "b"]
    assert solve(SojournProblem(HAND, Objective("A")), "sept").solution == ["b", "a"]
    # A(a, b) = .5 * 10 + (3 + 5.5) = 13.5 against the optimum A(b, a) = 3 + .5 * 13 = 9.5;
    # T1(a, b) = .5 * 10 + .5 * 4 = 7 against 3
    expect = {Objective("A"): (13.5, 9.5), Objective("TK", 1): (7.0, 3.0)}
    for obj, (ours, best) in expect.items():
        r = solve(SojournProblem(HAND, obj), "gittins")
        opt = solve(SojournProblem(HAND, obj), "dp")
        assert math.isclose(r.value, ours) and math.isclose(opt.value, best)


def test_three_jobs_by_hand_with_a_tie():
    # c: 2 w.p. .9 else 20 -> G = max(.9 / 2, 1 / 3.8) = .45; d and e: 3 surely -> 1/3 each
    inst = Instance.from_arrays([[3], [2, 20], [3]], [[1.0], [0.9, 0.1], [1.0]], ids="dce")
    assert math.isclose(sevcik_rank(inst)[1], 2 / 0.9)
    for method in ("gittins", "sevcik"):
        # c first; the tie between d and e keeps file order
        assert solve(SojournProblem(inst, Objective("B")), method).solution == ["c", "d", "e"]


def test_each_index_from_its_own_definition_agrees_with_the_other():
    # the rank computed here from the sizes vs the scalar rank of indices and 1 / Gittins
    for inst in random_instances(20, max_n=9, seed0=900):
        rank = sevcik_rank(inst)
        for i, j in enumerate(inst.jobs):
            assert math.isclose(rank[i], scalar_rank(j.sizes, j.probs), rel_tol=1e-12)
            assert math.isclose(rank[i] * gittins_index(j.sizes, j.probs), 1.0, rel_tol=1e-12)
        obj = Objective("A")
        g = solve(SojournProblem(inst, obj), "gittins").solution
        assert g == solve(SojournProblem(inst, obj), "sevcik").solution


def test_zero_probability_quanta_are_never_the_minimum():
    # sizes 1 (prob 0) and 4: only the quantum to 4 completes anything
    inst = Instance.from_arrays([[1, 4], [2]], [[0.0, 1.0], [1.0]])
    assert np.allclose(sevcik_rank(inst), [4.0, 2.0])
    assert np.allclose(-gittins_key(inst), [0.25, 0.5])


@pytest.mark.parametrize("method", ["gittins", "sevcik"])
def test_feasible_and_never_better_than_the_proven_optimum(method):
    misses = 0
    for s in range(12):
        inst = generate(3 + s % 5, 4000 + s, max_checkpoints=3)
        objs = [Objective("A"), Objective("B")]
        objs += [Objective(t, k) for t in ("TK", "DK") for k in range(1, inst.n + 1)]
        for obj in objs:
            r = solve(SojournProblem(inst, obj), method)
            opt = solve(SojournProblem(inst, obj), "dp")
            assert r.status is Status.FEASIBLE and opt.status is Status.OPTIMAL
            assert sorted(r.solution) == sorted(inst.ids)
            assert r.value >= opt.value * (1 - 1e-12)
            misses += r.value > opt.value * (1 + 1e-9)
    assert misses > 0  # the all-jobs index is not the successful-job optimum
