"""Heuristics: feasible, deterministic, honest status, and local search never worse than Smith."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.heuristics import (
    local_search,
    neighbourhood,
    order_by_index,
    smith_key,
    u_index,
    u_star,
)
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import METHODS, solve
from schedlab.solvers.validate import Deadline
from tests.conftest import random_instances

#: every registered heuristic, read from the registry (a new one is tested with no edit here)
HEURISTICS = METHODS.names(scope="sojourn", tag="heuristic")
OBJECTIVES = [Objective("A"), Objective("B"), Objective("TK", 2), Objective("DK", 3)]


def test_the_baseline_heuristics_are_registered_heuristics():
    baselines = METHODS.names(scope="sojourn", tag="baseline")
    assert baselines and set(baselines) <= set(HEURISTICS)
    for name in HEURISTICS:
        assert not METHODS.get(name, scope="sojourn").meta["exact"]


@pytest.mark.parametrize("method", HEURISTICS)
def test_feasible_deterministic_and_honest(method):
    for inst in [i for i in random_instances(25, max_n=9, seed0=300) if i.n >= 3]:
        for obj in OBJECTIVES:
            r = solve(SojournProblem(inst, obj), method)
            assert r.status is Status.FEASIBLE and r.bound is None and r.method == method
            assert sorted(r.solution) == sorted(inst.ids)
            value = evaluate(inst, inst.order_from_ids(r.solution), obj)
            assert math.isclose(r.value, value, rel_tol=1e-12)
            again = solve(SojournProblem(inst, obj), method)
            assert again.solution == r.solution and again.value == r.value


def test_index_orders_match_their_definitions():
    inst = generate(12, 5)
    assert solve(SojournProblem(inst, Objective("A")), "fcfs").solution == inst.ids
    expect = {
        "sept": inst.mean,
        "ssf": inst.m,
        "maxpi": -inst.pi,
        "smith": inst.mean / inst.pi,
        "uindex": (inst.e + inst.m * inst.pi * u_star(inst)) / inst.pi,
    }
    for name, key in expect.items():
        got = solve(SojournProblem(inst, Objective("B")), name).solution
        assert got == inst.ids_of(list(np.argsort(key, kind="stable"))), name
    # the u-index at u = 1 is Smith's rule
    assert np.allclose(u_index(inst, 1.0), smith_key(inst))


def test_local_search_never_worse_than_its_smith_start_and_is_a_local_optimum():
    for inst in [i for i in random_instances(30, max_n=10, seed0=700) if i.n >= 2]:
        for obj in OBJECTIVES[:2] + [Objective("TK", 1)]:
            smith = solve(SojournProblem(inst, obj), "smith").value
            r = solve(SojournProblem(inst, obj), "local")
            assert r.value <= smith * (1 + 1e-12)
            order = np.array(inst.order_from_ids(r.solution))
            nb_values = [evaluate(inst, list(o), obj) for o in neighbourhood(order)]
            assert min(nb_values) >= r.value * (1 - 1e-9)


def test_local_search_improves_somewhere_for_b():
    # Smith is not optimal for B on every instance; local search must find some of those
    gains = 0
    for inst in random_instances(60, max_n=8, seed0=1200):
        smith = solve(SojournProblem(inst, Objective("B")), "smith").value
        gains += solve(SojournProblem(inst, Objective("B")), "local").value < smith * (1 - 1e-12)
    assert gains >= 1


def test_local_search_respects_its_time_limit():
    inst = generate(40, 2)
    order, value, stats = local_search(
        inst, Objective("B"), list(range(inst.n))[::-1], deadline=Deadline(time.perf_counter())
    )
    assert stats["stopped_by_time"] and sorted(order) == list(range(inst.n))


def test_zero_success_probability_goes_last_and_is_handled():
    inst = Instance.from_dict(
        {
            "jobs": [
                {"id": "never", "sizes": [1, 2], "probs": [1.0, 0.0]},
                {"id": "b", "sizes": [4], "probs": [1.0]},
                {"id": "c", "sizes": [1, 8], "probs": [0.5, 0.5]},
            ]
        }
    )
    assert inst.warnings() and "never" in inst.warnings()[0]
    for method in ("smith", "uindex", "maxpi", "local"):
        for obj in OBJECTIVES[:3]:
            r = solve(SojournProblem(inst, obj), method)
            assert r.status is Status.FEASIBLE and r.solution[-1] == "never", (method, obj)
            assert math.isfinite(r.value)
    assert order_by_index(smith_key(inst))[-1] == 0
