"""A* (default switches) equals brute force, the MILP and CP-SAT on random chains (every
pruning switch combination: test_exact_astar.py); the exact methods agree on small DAGs;
statuses come from `certify`."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.solvers.esg import plan
from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.pareto import path_count
from schedlab.solvers.esg.problem import App, Config, Function, Prices
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve
from tests.esg import status_cases

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


# every pruning switch combination against brute force: test_exact_astar.py


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


def test_cpsat_with_any_time_unit_tells_the_truth_about_the_real_data():
    # a unit the latencies are no multiples of: the rounded-down relaxation gives the bound and
    # proves infeasibility, its plans are re-checked on the real data (cut when they miss)
    statuses = set()
    for s in range(6):
        app = generate(3, 6, 3 + s)
        for budget in (app.slo_ms, app.slo_ms * 0.7, app.slo_ms * 0.5):
            ref = solve(app.with_budget(budget), "brute")
            for unit in (0.7, 0.0003, 5.0):
                r = solve(app.with_budget(budget), "cpsat", options={"time_unit_ms": unit})
                assert _same(r, ref) and r.status is ref.status, (app.name, budget, unit, r)
                statuses.add(r.status)
    assert statuses == {Status.OPTIMAL, Status.INFEASIBLE}


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


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.data())
def test_astar_on_a_dag_is_infeasible_exactly_when_no_plan_fits(data):
    # on a DAG A* runs the SLO split (a heuristic): `feasible` with a plan that fits, or
    # `infeasible` only when the enumeration oracle finds no plan (budgets at the tolerance edge)
    app = data.draw(status_cases.apps())
    want, _ = status_cases.oracle(app)
    r = solve(app, "astar")
    if want is Status.INFEASIBLE:
        assert r.status is Status.INFEASIBLE, r
    else:
        assert r.status in (Status.FEASIBLE, Status.OPTIMAL), r
        status_cases.recheck(app, r)


@pytest.mark.parametrize("method", ["milp", "cpsat"])
def test_a_relaxed_plan_that_misses_is_cut_then_the_restriction_answers(method, monkeypatch):
    # the cheap configuration misses the 10 ms budget by 2e-9 ms (more than LAT_TOL), inside
    # the band both relaxations add: it is re-checked, cut, and the dear one is proven optimal
    cheap = Config(batch=1, vcpus=1.0, gpu_share=0.1, latency_ms=10.000000002)
    dear = Config(batch=1, vcpus=8.0, gpu_share=1.0, latency_ms=5.0)
    app = App("band", 10.0, (Function("f0", (cheap, dear)),), (), Prices())
    r = solve(app, method)
    assert r.status is Status.OPTIMAL and r.solution.configs == {"f0": 1}, r
    assert r.stats["cuts"] == 1 and "restricted" not in r.stats
    # with no cut allowed past the first, the restriction gives the plan, the relaxation the
    # (unproving) bound: feasible, never a plan that misses
    monkeypatch.setattr(plan, "MAX_CUTS", 1)
    r = solve(app, method)
    assert r.status is Status.FEASIBLE and r.solution.configs == {"f0": 1}, r
    assert r.stats["restricted"] and r.bound is not None and r.bound < r.value
