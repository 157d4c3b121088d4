"""A* (both blades, every pruning switch) equals brute force, the MILP and CP-SAT on random
chains; the exact methods agree on small DAGs; statuses come from `certify`."""

from __future__ import annotations

import math

import pytest

from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.pareto import path_count
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve

EXACT = ("astar", "brute", "milp", "cpsat")


def _chains(count: int):
    out = []
    for s in range(count):
        app = generate(2 + s % 4, 3 + (7 * s) % 13, 100 + s)
        # every fourth one with a tight budget (some infeasible)
        if s % 4 == 3:
            app = app.with_budget(app.slo_ms * 0.55)
        out.append(app)
    return out


def _same(a, b) -> bool:
    if a.status is Status.INFEASIBLE or b.status is Status.INFEASIBLE:
        return a.status is b.status
    return math.isclose(a.value, b.value, rel_tol=1e-9)


def test_astar_equals_brute_milp_cpsat_on_random_chains():
    apps = _chains(40)
    statuses = set()
    for app in apps:
        res = {m: solve(app, m) for m in EXACT}
        for m, r in res.items():
            assert r.status in (Status.OPTIMAL, Status.INFEASIBLE), (app.name, m, r.status)
        statuses |= {r.status for r in res.values()}
        for m in EXACT[1:]:
            assert _same(res["astar"], res[m]), (app.name, m, res["astar"].value, res[m].value)
    assert statuses == {Status.OPTIMAL, Status.INFEASIBLE}  # both cases were exercised


@pytest.mark.parametrize(
    "opts",
    [
        {"latency_blade": False},
        {"cost_blade": False},
        {"pareto": False},
        {"dominance": False},
        {"dp_buckets": 0},
        {"dp_buckets": 3},
        {"latency_blade": False, "cost_blade": False, "pareto": False, "dominance": False},
        {
            "latency_blade": False,
            "cost_blade": False,
            "pareto": False,
            "dominance": False,
            "dp_buckets": 0,
        },
    ],
)
def test_astar_pruning_switches_keep_the_optimum(opts):
    for s in range(12):
        app = generate(2 + s % 3, 3 + s % 5, 500 + s)
        ref = solve(app, "brute", options={"backend": "numpy"})
        got = solve(app, "astar", options=opts)
        assert _same(got, ref), (app.name, opts)


def test_pruning_expands_fewer_nodes():
    app = generate(4, 12, 7)
    full = solve(app, "astar")
    bare = solve(
        app,
        "astar",
        options={
            "latency_blade": False,
            "cost_blade": False,
            "pareto": False,
            "dominance": False,
            "dp_buckets": 0,
        },
    )
    assert math.isclose(full.value, bare.value, rel_tol=1e-9)
    assert full.stats["nodes_expanded"] < bare.stats["nodes_expanded"]


def test_exact_methods_agree_on_small_dags():
    seen = 0
    for s in range(10):
        app = generate(5, 4 + s % 3, 900 + s, shape="dag")
        seen += app.kind == "dag"
        res = {m: solve(app, m) for m in ("brute", "milp", "cpsat")}
        assert _same(res["brute"], res["milp"]) and _same(res["brute"], res["cpsat"]), app.name
    assert seen >= 5


def test_cpsat_with_inexact_time_unit_is_not_called_optimal():
    app = generate(3, 6, 3)
    r = solve(app, "cpsat", options={"time_unit_ms": 0.7})
    assert r.status in (Status.FEASIBLE, Status.ERROR, Status.INFEASIBLE, Status.TIMEOUT)
    assert r.status is not Status.OPTIMAL


@pytest.mark.slow
def test_astar_equals_the_path_kernel_on_1e8_paths():
    for s in range(3):
        app = generate(4, 100, 50 + s)  # 100**4 = 1e8 configuration paths
        brute = solve(app, "brute", options={"backend": "cpu"})
        assert brute.stats["paths"] == 1e8
        assert _same(solve(app, "astar"), brute)


def test_path_count_is_the_exact_product_and_inf_past_float_range():
    assert path_count([3, 5, 7]) == 105.0
    assert path_count([10] * 300) == 1e300
    assert path_count([10] * 400) == math.inf  # np.prod of floats warned of an overflow here
