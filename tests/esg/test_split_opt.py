"""The optimal SLO split (`solvers/esg/split_opt.py`): its plans fit on every path, it is never
cheaper than the MILP optimum, equal to brute force where its exactness condition holds, and its
lower bound is sound where it does not; the frontier operations against enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.plan import longest_path
from schedlab.solvers.esg.problem import LAT_TOL, App
from schedlab.solvers.esg.slo_split import merged_segments, seg_latency
from schedlab.solvers.esg.split_opt import Front, optimize, parallel, series
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
        assert r.stats["exact_frontiers"], app.name  # tiny regions are always swept
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
        assert "swept" in enum.stats["kinds"]
        assert enum.status is Status.OPTIMAL and math.isclose(enum.value, want, rel_tol=REL)
        relaxed = solve(app, "split_opt", options={"max_states": 1})  # the path relaxation
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
    k = pareto_indices(lat, cost)
    return Front(lat[k], cost[k], np.zeros((len(k), 0), dtype=np.int64))


def _points(f: Front) -> list[tuple[float, float]]:
    return list(zip(f.lat.tolist(), f.cost.tolist(), strict=True))


def test_series_and_parallel_against_enumeration():
    rng = np.random.default_rng(1)
    for _ in range(50):
        a, b = _rand_front(rng, 6), _rand_front(rng, 5)
        limit = float(rng.integers(5, 40))
        pairs = list(itertools.product(_points(a), _points(b)))
        want = _brute_front([(x[0] + y[0], x[1] + y[1]) for x, y in pairs if x[0] + y[0] <= limit])
        assert _points(series(a, b, limit)) == want
        both = [(max(x[0], y[0]), x[1] + y[1]) for x, y in pairs]
        want = _brute_front([p for p in both if p[0] <= limit])
        assert _points(parallel(a, b, limit)) == want


def test_dominated_against_pairwise_comparison():
    from schedlab.solvers.esg.split_opt import dominated

    rng = np.random.default_rng(4)
    for d in (1, 2, 4):
        keys = rng.integers(0, 6, size=(300, d)).astype(float)
        cost = rng.integers(0, 6, size=300).astype(float)
        got = dominated(keys, cost)
        pts = {(tuple(k), c) for k, c in zip(keys.tolist(), cost.tolist(), strict=True)}
        for i in range(300):  # dominated by a different point, or a duplicate kept elsewhere
            k, c = tuple(keys[i]), cost[i]
            strictly = any(
                all(a <= b for a, b in zip(k2, k, strict=True)) and c2 <= c and (k2, c2) != (k, c)
                for k2, c2 in pts
            )
            if strictly:
                assert got[i]
        # exactly one copy of each non-dominated point is kept
        kept = {(tuple(keys[i]), cost[i]) for i in np.flatnonzero(~got)}
        assert len(kept) == int((~got).sum())


@pytest.mark.parametrize(("depth", "width"), [(2, 3), (4, 2), (5, 2), (2, 4)])
def test_wide_regions_are_swept_exactly(depth, width):
    from schedlab.experiments.esg.bench_split import layered

    for s in range(2):
        app = layered(depth, width, 7 + s)
        r, m = solve(app, "split_opt"), solve(app, "milp")
        assert r.stats["exact_frontiers"], r.stats["kinds"]
        assert r.status is m.status
        if m.status is Status.OPTIMAL:
            assert math.isclose(r.value, m.value, rel_tol=REL), app.name
