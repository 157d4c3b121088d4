"""Exact methods against the enumeration oracle, MILP against CP-SAT, heuristics feasible and
never better than a proven optimum, greedy exact when every Q_j is concave."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.result import Status
from schedlab.solvers.slaq.exact_enum import best_by_dp, best_by_enumeration, compositions
from schedlab.solvers.slaq.generate import random_concave_tables, random_snapshot
from schedlab.solvers.slaq.heuristics import greedy_extra
from schedlab.solvers.slaq.quality import quality_model
from schedlab.solvers.solve import solve

CASES = [(n, c, s) for s, (n, c) in enumerate([(2, 12), (3, 16), (4, 20), (3, 11), (5, 22)])]
CPSAT = {"max_deterministic_time": 5.0, "num_workers": 1}


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def test_compositions_count():
    comps = list(compositions(5, 3))
    assert len(comps) == 21 and len(set(comps)) == 21 and all(sum(c) == 5 for c in comps)


@pytest.mark.parametrize("objective", ["sum", "maxmin"])
@pytest.mark.parametrize("n,cores,seed", CASES)
def test_exact_methods_match_enumeration(n, cores, seed, objective):
    snap = random_snapshot(n, cores, seed, objective=objective)
    oracle = solve(snap, "enum")
    assert oracle.status is Status.OPTIMAL
    qm = quality_model(snap)
    for method, opts in (("dp", None), ("milp", None), ("cpsat", CPSAT)):
        r = solve(snap, method, options=opts)
        assert r.status is Status.OPTIMAL, (method, r.stats)
        tol = 1e-7 if method != "cpsat" else 2 * r.stats["rounding_slack"] + 1e-9
        assert rel(r.value, oracle.value) <= tol, method
        assert qm.feasible(r.solution.cores)
    for h in ("greedy", "maxmin", "fair"):
        r = solve(snap, h)
        assert r.status is Status.FEASIBLE and qm.feasible(r.solution.cores)
        assert r.value <= oracle.value + 1e-9 * max(1.0, abs(oracle.value))


@pytest.mark.parametrize("seed", range(3))
def test_milp_equals_cpsat_larger(seed):
    snap = random_snapshot(8, 60, 100 + seed, noise=0.01)
    a, b = solve(snap, "milp"), solve(snap, "cpsat", options=CPSAT)
    assert a.is_optimal and b.is_optimal
    assert rel(a.value, b.value) <= 2 * b.stats["rounding_slack"] + 1e-7
    assert rel(a.value, solve(snap, "dp").value) <= 1e-9


@pytest.mark.parametrize("seed", range(30))
def test_greedy_exact_on_concave_tables(seed):
    rng = np.random.default_rng(seed)
    n, free = int(rng.integers(1, 5)), int(rng.integers(0, 9))
    tables = random_concave_tables(rng, n, free, ties=seed % 2 == 0)
    qs = [lambda c, t=t: np.take(t, np.asarray(c, dtype=int), mode="clip") for t in tables]
    extra = greedy_extra(qs, [0] * n, free)
    value = sum(t[e] for t, e in zip(tables, extra, strict=True))
    best, _ = best_by_enumeration(tables, free, "sum")
    assert sum(extra) == free and value == pytest.approx(best, rel=1e-12)
    assert best_by_dp(tables, free, "sum")[0] == pytest.approx(best, rel=1e-12)


def test_greedy_can_lose_on_a_non_concave_table():
    # job 0 gains nothing for 1 core but 10 for 2; job 1 gains 1 per core: greedy picks job 1
    tables = [np.array([0.0, 0.0, 10.0]), np.array([0.0, 1.0, 2.0])]
    qs = [lambda c, t=t: np.take(t, np.asarray(c, dtype=int), mode="clip") for t in tables]
    extra = greedy_extra(qs, [0, 0], 2)
    assert (
        sum(t[e] for t, e in zip(tables, extra, strict=True))
        < best_by_enumeration(tables, 2, "sum")[0]
    )


def test_all_new_jobs_and_timeout_statuses():
    snap = random_snapshot(1, 10, 0)
    d = snap.to_dict()
    d["jobs"][0]["losses"] = [1.0]
    from schedlab.solvers.slaq.problem import Snapshot

    s = Snapshot.from_dict(d)
    for m in ("enum", "dp", "milp", "cpsat", "greedy"):
        r = solve(s, m)
        assert r.value == 0.0 and r.solution.cores == (10,)
