"""Exact methods against the enumeration oracle, MILP against CP-SAT, heuristics feasible and
never better than a proven optimum, greedy exact when every Q_j is concave."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.result import PROOF_TOL, Status
from schedlab.solvers.slaq.exact_enum import best_by_dp, best_by_enumeration, compositions
from schedlab.solvers.slaq.exact_model import window
from schedlab.solvers.slaq.generate import (
    generate_snapshot,
    random_concave_tables,
    random_snapshot,
)
from schedlab.solvers.slaq.heuristics import greedy_extra
from schedlab.solvers.slaq.problem import Job, Snapshot
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
        assert rel(r.value, oracle.value) <= PROOF_TOL, method
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
    assert rel(a.value, b.value) <= PROOF_TOL
    assert rel(a.value, solve(snap, "dp").value) <= PROOF_TOL


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


@pytest.mark.parametrize("objective", ["sum", "maxmin"])
def test_cpsat_coarse_resolution_is_feasible_with_a_sound_bound(objective):
    # `schedlab slaq snapshot --jobs 8 --cores 64 --seed 1`: at resolution 1 every quality
    # rounds to a few integers; CP-SAT once called the rounded model's optimum (6.06, where dp
    # proves 7.68) optimal
    snap = generate_snapshot(8, 64, 1, objective=objective)
    best = solve(snap, "dp")
    coarse = solve(snap, "cpsat", options={"resolution": 1.0})
    assert coarse.bound is not None and coarse.bound >= best.value
    assert coarse.value <= best.value
    if coarse.status is Status.OPTIMAL:  # max-min: the rounded window can still prove it
        assert objective == "maxmin" and rel(coarse.value, best.value) <= PROOF_TOL
    else:
        assert coarse.status is Status.FEASIBLE
    fine = solve(snap, "cpsat")
    assert fine.status is Status.OPTIMAL and rel(fine.value, best.value) <= PROOF_TOL


# Found by tests/core/test_exact_status.py: a rising loss extrapolated by the exponential family
# gives qualities from -2e87 to 11.9 in one snapshot; HiGHS then proved a wrong optimum (or PuLP
# crashed reading it back) and CP-SAT's scale could not tell the relevant values apart.
WILD = Snapshot(
    (
        Job("j4", (1.6105184647850106, 1.5889091068799048, 1.7209659166629874), 0.00093788512185),
        Job("j3", (1.7561624782957867e-06, 9.735640055717035e-07), 0.14798198605116586),
        Job("j0", (9.673794622429044, 9.217935606979857, 8.500808146235226), 0.00068399834293),
        Job(
            "j1", (1.13641575696e-06, 1.18049920705e-06, 1.27843348529e-06, 9.7172651607e-07), 9.98
        ),
        Job("j2", (1.6105184647850106, 1.5889091068799048, 1.7209659166629874), 0.00093788512118),
    ),
    19,
    epoch_s=0.33,
    min_cores=4,
    objective="maxmin",
    model="exponential",
)


@pytest.mark.parametrize("objective", ["sum", "maxmin"])
@pytest.mark.parametrize(
    "method,opts", [("milp", None), ("milp", {"solver": "cbc"}), ("cpsat", None)]
)
def test_exact_methods_agree_on_qualities_of_wild_magnitudes(objective, method, opts):
    snap = WILD.with_objective(objective)
    tables = quality_model(snap).tables()
    assert max(float(abs(t).max()) for t in tables) > 1e80  # the case is still wild
    best = solve(snap, "enum")
    r = solve(snap, method, options=opts)
    assert r.status is Status.OPTIMAL, r.stats
    assert rel(r.value, best.value) <= PROOF_TOL


def test_window_only_raises_qualities_and_keeps_the_optimum():
    rng = np.random.default_rng(5)
    for objective in ("sum", "maxmin"):
        for _ in range(50):
            n, free = int(rng.integers(1, 4)), int(rng.integers(0, 5))
            tables = [rng.normal(size=free + 1) * 10.0 ** rng.uniform(-3, 30) for _ in range(n)]
            win = window(tables, free, objective)
            best, arg = best_by_enumeration(tables, free, objective)
            wbest, warg = best_by_enumeration(win.tables, free, objective)
            for comp in compositions(free, n):
                real = [float(t[k]) for t, k in zip(tables, comp, strict=True)]
                w = [float(t[k]) for t, k in zip(win.tables, comp, strict=True)]
                v = sum(real) if objective == "sum" else min(real)
                wv = sum(w) if objective == "sum" else min(w)
                assert win.real(wv) >= v - 1e-9 * max(1.0, abs(v))  # a relaxation
            real_at = [float(t[k]) for t, k in zip(tables, warg, strict=True)]
            v = sum(real_at) if objective == "sum" else min(real_at)
            assert rel(v, best) <= 1e-9  # the window's optimum is a real optimum
