"""The optimal SLO split (`solvers/esg/split_opt.py`): its plans fit on every path, it is never
cheaper than the MILP optimum, equal to brute force where its exactness condition holds, and its
lower bound is sound where it does not; the frontier operations against enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.plan import longest_path
from schedlab.solvers.esg.problem import LAT_TOL, App
from schedlab.solvers.esg.slo_split import merged_segments, seg_latency
from schedlab.solvers.esg.split_opt import Front, optimize, parallel, pareto_keep, series
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve

REL = 1e-9


def all_paths(app: App) -> list[list[int]]:
    """Every source-to-sink path, by a plain depth-first walk (independent of the methods)."""
    preds = app.preds()
    succ = [[j for j in range(len(preds)) if i in preds[j]] for i in range(len(preds))]
    out, stack = [], [[i] for i in range(len(preds)) if not preds[i]]
    while stack:
        p = stack.pop()
        if succ[p[-1]]:
            stack.extend(p + [j] for j in succ[p[-1]])
        else:
            out.append(p)
    return out


def enumerate_optimum(app: App) -> float | None:
    """Cheapest plan whose every path fits, over every configuration combination (tiny apps)."""
    lats, costs, paths = app.stage_latency(), app.stage_cost(), all_paths(app)
    best = None
    for ks in itertools.product(*(range(len(a)) for a in lats)):
        if all(sum(lats[i][ks[i]] for i in p) <= app.budget + LAT_TOL for p in paths):
            c = sum(costs[i][ks[i]] for i in range(len(ks)))
            best = c if best is None or c < best else best
    return best


def _choice(app: App, configs: dict[str, int]) -> list[int]:
    return [configs[f.id] for f in app.functions]


@pytest.mark.parametrize("stages", [5, 7, 9, 11])
def test_every_path_fits_and_never_below_the_milp(stages):
    checked = 0
    for s in range(8):
        app = generate(stages, 10, 500 + 10 * stages + s, shape="dag")
        app = app.with_budget(app.slo_ms * (0.6 + 0.1 * (s % 5)))
        r, m = solve(app, "split_opt"), solve(app, "milp")
        if m.status is Status.INFEASIBLE:
            assert r.status is Status.INFEASIBLE, app.name
            continue
        assert r.status in (Status.OPTIMAL, Status.FEASIBLE), app.name
        choice = _choice(app, r.solution.configs)
        lats = app.stage_latency()
        for p in all_paths(app):  # every source-to-sink path within the budget
            assert sum(lats[i][choice[i]] for i in p) <= app.budget + LAT_TOL + 1e-9, app.name
        assert r.value >= m.value * (1 - REL), app.name  # never better than the optimum
        assert r.bound <= m.value * (1 + REL), app.name  # the bound is a lower bound
        if r.stats["exact_frontiers"]:  # the exactness condition: equal to the optimum
            assert r.status is Status.OPTIMAL and math.isclose(r.value, m.value, rel_tol=REL)
        checked += 1
    assert checked >= 5


def test_equal_to_enumeration_on_tiny_dags():
    exact = 0
    for s in range(30):
        app = generate(3 + s % 4, 3, 900 + s, shape="dag")
        if s % 3 == 0:
            app = app.with_budget(app.slo_ms * 0.8)
        want = enumerate_optimum(app)
        r = solve(app, "split_opt")
        if want is None:
            assert r.status is Status.INFEASIBLE, app.name
            continue
        assert r.stats["exact_frontiers"], app.name  # tiny regions are always enumerable
        assert r.status is Status.OPTIMAL and math.isclose(r.value, want, rel_tol=REL), app.name
        exact += 1
    assert exact >= 15


def _app(edges: list[tuple[str, str]], configs: dict[str, list[tuple[float, float]]], slo: float):
    """An app whose configurations have the given (latency_ms, cost) (vCPU price 1 per s)."""
    fns = [
        {
            "id": f,
            "configs": [
                {"batch": 1, "vcpus": 1000.0 * c / lat, "gpu_share": 1.0, "latency_ms": lat}
                for lat, c in cs
            ],
        }
        for f, cs in configs.items()
    ]
    return App.from_dict(
        {
            "slo_ms": slo,
            "prices": {"vcpu_s": 1.0, "gpu_s": 0.0},
            "functions": fns,
            "edges": [list(e) for e in edges],
        }  # fmt: skip
    )


def n_shaped(slo: float) -> App:
    """s -> {a, b}; a -> {c, d}; b -> d; {c, d} -> t: a region that is not series-parallel."""
    rng = np.random.default_rng(3)
    cs = {f: [(float(x), float(1.0 / x + rng.uniform(0, 0.05))) for x in (2, 4, 6, 9)]
          for f in "sabcdt"}  # fmt: skip
    edges = [("s", "a"), ("s", "b"), ("a", "c"), ("a", "d"), ("b", "d"), ("c", "t"), ("d", "t")]
    return _app(edges, cs, slo)


def test_a_region_that_is_not_series_parallel():
    for slo in (14.0, 18.0, 22.0, 30.0):
        app = n_shaped(slo)
        want = enumerate_optimum(app)
        enum = solve(app, "split_opt")
        assert "enumerated" in enum.stats["kinds"]
        assert enum.status is Status.OPTIMAL and math.isclose(enum.value, want, rel_tol=REL)
        relaxed = solve(app, "split_opt", options={"brute_cap": 1})  # the path relaxation
        assert "relaxed" in relaxed.stats["kinds"] and not relaxed.stats["exact_frontiers"]
        assert relaxed.value >= want * (1 - REL) and relaxed.bound <= want * (1 + REL)
        assert relaxed.solution.latency_ms <= app.budget + LAT_TOL


def test_segment_latencies_sum_to_the_plan_latency_and_budgets_are_the_plan():
    rng = np.random.default_rng(0)
    for s in range(10):
        app = generate(8, 6, 40 + s, shape="dag")
        segs = [seg for seg, _ in merged_segments(app)]
        lats = app.stage_latency()
        for _ in range(5):
            per = [float(a[rng.integers(len(a))]) for a in lats]
            total = sum(seg_latency(app.preds(), seg, per) for seg in segs)
            assert math.isclose(total, longest_path(app, per), rel_tol=1e-12)
        sp = optimize(app)
        if sp.choice is None:
            continue
        per = [float(lats[i][k]) for i, k in enumerate(sp.choice)]
        assert sp.budgets == [seg_latency(app.preds(), seg, per) for seg in segs]
        assert sum(sp.budgets) <= app.budget + 1e-9


def _brute_front(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Non-dominated points by increasing latency, by pairwise comparison."""
    keep = [
        (lat, c)
        for lat, c in points
        if not any((l2 <= lat and c2 < c) or (l2 < lat and c2 <= c) for l2, c2 in points)
    ]
    return sorted(set(keep))


def _rand_front(rng: np.random.Generator, n: int) -> Front:
    lat = rng.integers(1, 20, size=n).astype(float)
    cost = rng.integers(1, 20, size=n).astype(float)
    k = pareto_keep(lat, cost)
    return Front(lat[k], cost[k], np.zeros((len(k), 0), dtype=np.int64))


def test_series_and_parallel_against_enumeration():
    rng = np.random.default_rng(1)
    for _ in range(50):
        a, b = _rand_front(rng, 6), _rand_front(rng, 5)
        limit = float(rng.integers(5, 40))
        pairs = [
            (la + lb, ca + cb) for la, ca in zip(a.lat, a.cost) for lb, cb in zip(b.lat, b.cost)
        ]
        want = _brute_front([p for p in pairs if p[0] <= limit])
        got = series(a, b, limit)
        assert list(zip(got.lat.tolist(), got.cost.tolist())) == want
        pairs = [
            (max(la, lb), ca + cb) for la, ca in zip(a.lat, a.cost) for lb, cb in zip(b.lat, b.cost)
        ]
        want = _brute_front([p for p in pairs if p[0] <= limit])
        got = parallel(a, b, limit)
        assert list(zip(got.lat.tolist(), got.cost.tolist())) == want
