"""The authors' workload and scheduler model (`experiments/slaq/workload_authors.py`): pinned
arrivals and fractions, their predictor and iteration estimate by hand, the heap against brute
force, the token order against a task-by-task simulation, and the over-commitment rule."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from schedlab.experiments.registry import POLICIES, WORKLOADS, register_workload
from schedlab.experiments.slaq import workload_authors as wa
from schedlab.experiments.slaq.simulator import SimConfig, SimJob, simulate, summarize


def test_arrivals_pinned_for_seed_0():
    cfg = SimConfig(jobs=8, arrival_mean_s=30.0, seed=0)
    # numpy default_rng(0).poisson(30, 8) = 32 16 32 36 37 34 37 27; start, then sleep a gap
    assert wa.arrivals_s(cfg).tolist() == [0.0, 32.0, 48.0, 80.0, 116.0, 153.0, 187.0, 224.0]
    gaps = np.diff(wa.arrivals_s(SimConfig(jobs=400, arrival_mean_s=7.0, seed=3)))
    assert np.all(gaps == np.round(gaps)) and abs(gaps.mean() - 7.0) < 0.5  # integer, mean sleep


def test_families_fractions_and_work_in_the_drivers_order():
    jobs = wa.authors_jobs(SimConfig(jobs=12, w_max=8.0))
    assert [j.family for j in jobs] == ["svm", "logreg", "linreg", "mlpc"] * 3
    # threads 1, 2, 3 sample 0.5, 1.0, 0.1 of the data (sizes(i % 3)); linreg its full data
    want = [0.5, 0.5, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 1.0, 0.1]
    assert [j.w for j in jobs] == pytest.approx([8.0 * f for f in want], rel=1e-12)
    assert jobs[1].curve[0] == pytest.approx(math.log(10), rel=1e-9)  # the logreg caveat
    assert {"authors", "authors-fit"} <= set(WORKLOADS.names(scope="slaq"))


def _job(curve: list[float], points: int, w: float) -> SimJob:
    c = np.asarray(curve, dtype=float)
    j = SimJob(0, 0.0, c, w, progress=float(points - 1))
    j.drops = np.maximum.accumulate(-np.diff(c))
    return j


def test_geometric_quality_and_iteration_estimate_by_hand():
    cfg = SimConfig(epoch_s=3.0)
    j = _job([4.0, 2.0, 1.0, 0.9, 0.8], points=3, w=2.0)  # L = 1, L_prev = 2, largest drop 2
    # their estimate: 3 windows, durations of windows 2..3 (2000 ms each) summed, divided by 3
    avg_ms = (2000.0 + 2000.0) / 3
    assert wa.iters_per_core(3.0, 2.0, 3) == pytest.approx(3.0 * 1000 / avg_ms, rel=1e-12)
    assert wa.iters_per_core(3.0, 2.0, 3) == pytest.approx(2.25, rel=1e-12)
    assert wa.iters_per_core(3.0, 2.0, 3, quirk=False) == pytest.approx(1.5, rel=1e-12)
    q = wa.geometric_batch([j], cfg)[0]
    # 2 cores: 4.5 iterations; predicted 1 * 0.5^4.5; Q = (1 - that) / 2
    assert float(q(2.0)) == pytest.approx((1 - 0.5**4.5) / 2, rel=1e-12)
    q0 = wa.geometric_batch([j], cfg, quirk=False)[0]
    assert float(q0(2.0)) == pytest.approx((1 - 0.5**3) / 2, rel=1e-12)


def _q_by_hand(j: SimJob, cores: float, epoch_s: float) -> float:
    n = j.points()
    last, prev = j.curve[n - 1], j.curve[n - 2]
    iters = cores * epoch_s / j.w * n / (n - 1)
    drop = max(0.0, float(np.max(-np.diff(j.curve[:n]))))
    return (last - last * (last / prev) ** iters) / (drop or 1.0)


@pytest.mark.parametrize("seed", range(6))
def test_heap_allocation_is_the_brute_force_optimum_on_tiny_cases(seed):
    rng = np.random.default_rng(seed)
    cores = int(rng.integers(7, 13))
    running = []
    for k in range(3):
        r1, r2 = rng.uniform(0.3, 0.95, 2)
        curve = [5.0, 5.0 * r1, 5.0 * r1 * r2, 1.0]
        running.append(_job(curve, points=int(rng.integers(2, 4)), w=float(rng.uniform(1, 6))))
        running[-1].id = k
    cfg = SimConfig(cores=cores, min_cores=2, epoch_s=3.0)
    got = wa.authors_allocate(
        running, cfg, POLICIES.get("slaq", scope="slaq"), predictor="geometric"
    )
    assert sum(got) == pytest.approx(cores, rel=1e-12)
    free = cores - 3 * 2
    best = max(
        sum(_q_by_hand(j, 2 + e, 3.0) for j, e in zip(running, extra, strict=True))
        for extra in itertools.product(range(free + 1), repeat=3)
        if sum(extra) == free
    )
    mine = sum(_q_by_hand(j, c, 3.0) for j, c in zip(running, got, strict=True))
    assert mine == pytest.approx(best, rel=1e-9)
    assert all(float(c).is_integer() and c >= 2 for c in got)


def _served(tokens: list[float], capacity: float, quantum: float = 1e-3) -> np.ndarray:
    """Oracle: hand capacity out task by task (quantum core-epochs) to the pool with the most
    tokens left, as their comparator orders task offers."""
    left = np.asarray(tokens, dtype=float).copy()
    got = np.zeros(len(left))
    for _ in range(round(capacity / quantum)):
        i = int(np.argmax(left))
        left[i] -= quantum
        got[i] += quantum
    return got


@pytest.mark.parametrize(
    ("tokens", "capacity"),
    [([3, 3, 3], 9), ([5, 3, 1], 6), ([2, 2], 6), ([3, 3, 3, 3, 1], 8), ([7, 1, 1], 4)],
)
def test_token_shares_match_task_by_task_serving(tokens, capacity):
    got = wa.token_shares(tokens, capacity)
    assert got.sum() == pytest.approx(capacity, rel=1e-12)
    np.testing.assert_allclose(got, _served(tokens, capacity, 1e-3), atol=2e-3)


def test_token_shares_by_hand():
    np.testing.assert_allclose(wa.token_shares([5, 3, 1], 6), [4, 2, 0], rtol=1e-12)
    np.testing.assert_allclose(wa.token_shares([2, 2], 6), [3, 3], rtol=1e-12)


def test_over_commitment_and_fair_tokens():
    cfg = SimConfig(cores=8, min_cores=3)
    old = [_job([4.0, 2.0, 1.0, 0.5], points=3, w=2.0) for _ in range(4)]
    new = _job([4.0, 2.0, 1.0, 0.5], points=1, w=2.0)
    slaq = POLICIES.get("slaq", scope="slaq")
    assert wa.authors_base([*old, new], cfg) == [3, 3, 3, 3, 1]  # 13 > 8: over-committed
    got = wa.authors_allocate([*old, new], cfg, slaq, predictor="geometric")
    assert got == pytest.approx([2.0, 2.0, 2.0, 2.0, 0.0], rel=1e-12)  # new waits this epoch
    fair = POLICIES.get("fair", scope="slaq")
    assert wa.authors_allocate([*old, new], cfg, fair, predictor="geometric") == pytest.approx(
        [1.6] * 5, rel=1e-12
    )


@pytest.mark.parametrize("workload", ["authors", "authors-fit"])
def test_more_jobs_than_cores_all_finish(workload):
    cfg = SimConfig(jobs=12, cores=4, arrival_mean_s=1.0, seed=1, w_min=1.0, w_max=1.0)
    for policy in ("slaq", "fair"):
        s = summarize(simulate(cfg, policy, workload))
        assert s["finished_jobs"] == 12


def test_cli_predictor_picks_the_authors_workload_and_is_refused_elsewhere():
    from click.testing import CliRunner

    from schedlab.experiments.cli import cli

    base = ["slaq", "simulate", "--jobs", "8", "--cores", "16", "--arrival-mean", "10", "--json"]
    outs = {}
    for extra in (["--workload", "authors"], ["--workload", "authors", "--predictor", "fit"]):
        r = CliRunner().invoke(cli, base + extra)
        assert r.exit_code == 0, r.output
        outs[len(extra)] = json.loads(r.stdout)
    want = summarize(
        simulate(SimConfig(jobs=8, cores=16, arrival_mean_s=10.0), "slaq", "authors-fit")
    )
    assert outs[4]["mean_time_to_90_s"] == want["mean_time_to_90_s"]
    assert outs[4]["mean_time_to_90_s"] != outs[2]["mean_time_to_90_s"]
    r = CliRunner().invoke(cli, [*base, "--predictor", "geometric"])
    assert r.exit_code == 2 and "--predictor applies to the authors' workloads" in r.output


def test_idle_job_epochs_counted_where_the_authors_minimums_overcommit(monkeypatch):
    """Their base rule with minimums above C leaves new jobs at 0 cores (the fluid level lambda
    exceeds floor(C/P)): `idle_job_epochs` counts them, recounted here from the allocations;
    fair tokens and our own scheduler never leave an admitted job without a core. Pinned for
    8 cores, 12 jobs, sleep 3 s, seed 0, the curves' iteration counts (the regime of the
    full-size authors' row at sleep 10 before the driver's counts)."""
    cfg = SimConfig(jobs=12, cores=8, arrival_mean_s=3.0, seed=0, iterations="curves")
    entry = WORKLOADS.get("authors", scope="slaq")
    real, zeros = entry.meta["allocate"], []

    def spy(running, c, policy):
        cores = real(running, c, policy)
        zeros.append(sum(1 for x in cores if x <= 0))
        return cores

    WORKLOADS.load()  # the same jobs and scheduler, registered under a test name
    monkeypatch.setattr(WORKLOADS, "_entries", dict(WORKLOADS._entries))  # undone after the test
    register_workload("slaq", "authors-spied", allocate=spy)(entry.obj)
    slaq = summarize(simulate(cfg, "slaq", "authors-spied"))
    assert slaq["idle_job_epochs"] == sum(zeros) == 765 and slaq["job_epochs"] == 2351
    zeros.clear()
    fair = summarize(simulate(cfg, "fair", "authors-spied"))
    assert fair["idle_job_epochs"] == sum(zeros) == 0 and fair["job_epochs"] > 0
    ours = summarize(simulate(cfg, "slaq"))  # our scheduler: at most C running, >= 1 core each
    assert ours["idle_job_epochs"] == 0 and ours["idle_share"] == 0.0
