"""Heuristics and baselines: feasible plans, never cheaper than the proven optimum; the SLO split
never returns a plan that violates the SLO."""

from __future__ import annotations

import pytest

from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.problem import LAT_TOL
from schedlab.solvers.esg.slo_split import merged_segments, segments
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve

HEURISTICS = ("greedy", "static", "batch", "infless", "split")


@pytest.mark.parametrize("shape", ["chain", "dag"])
def test_heuristics_feasible_and_not_below_optimum(shape):
    for s in range(12):
        app = generate(5 + s % 3, 6, 40 + s, shape=shape)
        opt = solve(app, "milp")
        for m in HEURISTICS:
            r = solve(app, m)
            if r.solution is None:  # greedy: proven infeasible; a baseline: none in its space
                continue
            assert r.status is Status.FEASIBLE, (app.name, m)
            assert r.solution.latency_ms <= app.budget + LAT_TOL
            assert r.value >= opt.value * (1 - 1e-9), (app.name, m)


@pytest.mark.parametrize("rule", ["min_latency", "slack"])
def test_slo_split_never_violates_the_slo(rule):
    found = 0
    for s in range(40):
        app = generate(4 + s % 6, 5, 300 + s, shape="dag")
        if s % 3 == 0:
            app = app.with_budget(app.slo_ms * 0.7)
        opt = solve(app, "milp")
        r = solve(app, "split", options={"rule": rule})
        if opt.status is Status.INFEASIBLE:
            assert r.status is Status.INFEASIBLE
            continue
        found += 1
        assert r.status is Status.FEASIBLE
        assert r.solution.latency_ms <= app.budget + LAT_TOL, app.name
        assert r.value >= opt.value * (1 - 1e-9)
    assert found >= 20


def test_greedy_finds_a_plan_whenever_one_exists():
    for s in range(20):
        app = generate(4, 8, 700 + s, shape="dag" if s % 2 else "chain")
        app = app.with_budget(app.slo_ms * (0.5 + 0.05 * (s % 6)))
        opt, g = solve(app, "brute", options={"backend": "numpy"}), solve(app, "greedy")
        assert (opt.status is Status.INFEASIBLE) == (g.status is Status.INFEASIBLE)


def test_dominator_segments_partition_the_dag():
    for s in range(15):
        app = generate(7, 3, 60 + s, shape="dag")
        segs = segments(app)
        flat = [i for seg in segs for i in seg]
        assert sorted(flat) == list(range(7))
        merged = [i for seg, _ in merged_segments(app) for i in seg]
        assert sorted(merged) == list(range(7))


def test_segments_of_a_diamond():
    from schedlab.solvers.esg.problem import App

    cfg = [{"batch": 1, "vcpus": 1, "gpu_share": 1.0, "latency_ms": 1.0}]
    app = App.from_dict(
        {
            "slo_ms": 10,
            "functions": [{"id": x, "configs": cfg} for x in "abcd"],
            "edges": [["a", "b"], ["a", "c"], ["b", "d"], ["c", "d"]],
        }
    )
    assert segments(app) == [[0], [1, 2], [3]]
