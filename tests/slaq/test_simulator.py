"""Simulator: seed determinism, conservation of cores and iterations, policy ordering."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from schedlab.experiments.registry import POLICIES
from schedlab.experiments.slaq import simulator as sim
from schedlab.experiments.slaq.simulator import SimConfig, simulate, summarize

SMALL = SimConfig(jobs=5, cores=16, arrival_mean_s=6.0, seed=3)


def test_same_seed_same_result_and_different_seed_differs():
    a = summarize(simulate(SMALL, "slaq"))
    b = summarize(simulate(SMALL, "slaq"))
    c = summarize(simulate(dataclasses.replace(SMALL, seed=4), "slaq"))
    a.pop("scheduler_ms_per_epoch"), b.pop("scheduler_ms_per_epoch")
    assert a == b and c["mean_normalized_loss"] != a["mean_normalized_loss"]


#: More jobs than cores (issue 23): 10 jobs arriving within seconds on 4 cores.
CROWDED = SimConfig(jobs=10, cores=4, arrival_mean_s=1.0, seed=1)


@pytest.mark.parametrize("cfg", [SMALL, CROWDED], ids=["J<=C", "J>C"])
def test_cores_conserved_each_epoch(monkeypatch, cfg):
    """Every epoch: at most C jobs run, each holds at least one core, and all C cores are
    handed out once some running job is old (all new: the fair share floor(C/J) each)."""
    seen = []
    real = sim.allocate

    def spy(running, cfg, policy):
        cores = real(running, cfg, policy)
        old = any(j.points() > 1 for j in running)
        seen.append((len(running), sum(cores), min(cores), old))
        return cores

    monkeypatch.setattr(sim, "allocate", spy)
    for p in POLICIES.names(scope="slaq"):
        simulate(cfg, p)
    assert seen
    for n, total, low, old in seen:
        assert n <= cfg.cores and low >= 1
        assert total == (cfg.cores if old else n * (cfg.cores // n))
    assert max(n for n, *_ in seen) == min(cfg.jobs, cfg.cores)


@pytest.mark.parametrize("policy", ["slaq", "fair", "maxmin", "maxmin-gain"])
def test_more_jobs_than_cores_every_job_progresses_and_finishes(monkeypatch, policy):
    """J > C: jobs are admitted in arrival order (FIFO), no running job is left without a core,
    and every job runs all its iterations (before issue 23 the run stalled: exit 2)."""
    order: list[int] = []
    real = sim.allocate

    def spy(running, cfg, pol):
        for j in running:
            if j.id not in order:
                order.append(j.id)
        return real(running, cfg, pol)

    monkeypatch.setattr(sim, "allocate", spy)
    run = simulate(CROWDED, policy)
    s = summarize(run)
    assert s["finished_jobs"] == CROWDED.jobs and s["max_queued_jobs"] > 0
    assert order == sorted(order, key=lambda i: run["jobs"][i].arrival_s) == list(range(10))
    for j in run["jobs"]:
        assert j.progress == j.last and j.done_s is not None
        assert j.t90_s is not None and j.t95_s is not None
    waits = [j.queued_epochs for j in run["jobs"]]
    assert waits[: CROWDED.cores] == [0] * CROWDED.cores and max(waits) > 0
    assert s["mean_queue_wait_s"] == pytest.approx(np.mean(waits) * CROWDED.epoch_s)


def test_fifo_wait_is_bounded_by_the_jobs_ahead():
    """A queued job is admitted no later than the epoch in which the (C)-th job ahead of it
    finishes (no job waits forever): admission epoch <= that completion rounded up."""
    run = simulate(CROWDED, "slaq")
    jobs = run["jobs"]
    T = CROWDED.epoch_s
    for j in jobs[CROWDED.cores :]:
        ahead = sorted(k.done_s for k in jobs if k.arrival_s < j.arrival_s)
        freed = ahead[len(ahead) - CROWDED.cores]  # a slot is free once this many finished
        start_epoch = math.ceil(j.arrival_s / T - 1e-9) + j.queued_epochs
        assert start_epoch * T <= math.ceil(freed / T - 1e-9) * T + 1e-9


def test_every_job_runs_all_iterations_and_times_are_ordered():
    run = simulate(SMALL, "slaq")
    for j in run["jobs"]:
        assert j.progress == j.last and j.done_s is not None
        assert 0 <= j.t90_s <= j.t95_s <= j.done_s - j.arrival_s + 1e-9


def test_perfect_scaling_fair_single_job_time():
    cfg = SimConfig(jobs=1, cores=10, seed=0)
    run = simulate(cfg, "fair")
    j = run["jobs"][0]
    assert np.isclose(j.done_s, j.last * j.w / 10, rtol=1e-9)  # W / c per iteration


def test_slaq_beats_fair_on_mean_normalized_loss():
    cfg = SimConfig(jobs=10, cores=24, arrival_mean_s=8.0, seed=1)
    s, f = (summarize(simulate(cfg, p)) for p in ("slaq", "fair"))
    assert s["mean_normalized_loss"] < f["mean_normalized_loss"]


def test_policies_registered():
    assert set(POLICIES.names(scope="slaq")) == {"slaq", "fair", "maxmin", "maxmin-gain"}


def test_quality_arrays_are_each_jobs_own_fit_and_largest_drop():
    """`qualities` (one batched refit, arrays, cached between epochs) gives every job the Q_j
    of its own `fit` and `largest_drop` on the points observed so far."""
    from schedlab.solvers.slaq.predict import fit
    from schedlab.solvers.slaq.quality import JobQuality, largest_drop

    cfg = SimConfig(jobs=12, cores=64, seed=2)
    jobs = sim.make_jobs(cfg)
    rng = np.random.default_rng(0)
    for step in range(3):
        for j in jobs:
            j.progress = float(rng.integers(1, j.last)) if step == 0 else j.progress
        stale = jobs[: 6 + 3 * step]  # some jobs unchanged between calls: cached fits
        for j in stale[:4]:
            j.progress = min(j.last, j.progress + 3)
        batch = sim.qualities(jobs, cfg)
        cores = np.arange(1.0, 40.0)
        for i, j in enumerate(jobs):
            h = j.curve[: j.points()]
            own = JobQuality(fit(h), cfg.epoch_s / j.w, largest_drop(h))
            np.testing.assert_array_equal(batch[i](cores), own(cores))
            assert batch.norm[i] == own.norm


def test_warm_fits_conserve_cores_and_stay_close_to_cold():
    cold = summarize(simulate(SMALL, "slaq"))
    warm = summarize(simulate(dataclasses.replace(SMALL, warm_fits=True), "slaq"))
    assert warm["finished_jobs"] == cold["finished_jobs"] == SMALL.jobs
    rel = abs(warm["mean_normalized_loss"] / cold["mean_normalized_loss"] - 1)
    assert rel < 0.1  # warm starts change fits within their residual tolerance


def test_fallback_kinds_name_the_cause_and_the_predictor_used():
    """Too few points -> geometric; a loss of 0 (no family can fit, geometric neither) -> naive;
    an ordinary history -> no fallback; a simple rule asked for is not a fallback."""
    from schedlab.solvers.slaq.predict import fit_many

    ok = 0.9 ** np.arange(20) + 0.1
    hs = [ok[:3], np.concatenate([ok[:8], [0.0]]), ok]
    kinds = sim.fallback_kinds(fit_many(hs, "auto"), hs, "auto")
    assert kinds == [("too-few-points", "to:geometric"), ("failed-fit", "to:naive"), ()]
    assert sim.fallback_kinds(fit_many(hs, "naive"), hs, "naive") == [(), (), ()]
    one = [ok[:1]]
    assert sim.fallback_kinds(fit_many(one, "naive"), one, "naive") == [
        ("too-few-points", "to:constant")
    ]


def test_summary_counts_every_refit_and_its_fallbacks(monkeypatch):
    """`fits` is the number of histories refit, `fallbacks_too_few_points` those with 2..4
    points (counted here from what `fit_many` was given), and the per-predictor counts add up."""
    given: list[int] = []
    real = sim.fit_many

    def spy(hs, *a, **k):
        given.extend(len(h) for h in hs)
        return real(hs, *a, **k)

    monkeypatch.setattr(sim, "fit_many", spy)
    s = summarize(simulate(SMALL, "slaq"))
    few = sum(n < 5 for n in given)
    assert s["fits"] == len(given) > 0 and s["fallbacks_too_few_points"] == few > 0
    assert s["fallbacks_failed_fit"] == 0
    assert sum(s["fallbacks_to"].values()) == few and set(s["fallbacks_to"]) <= {
        "geometric",
        "naive",
        "constant",
    }
    f = summarize(simulate(SMALL, "fair"))  # fair predicts nothing
    assert f["fits"] == f["fallbacks_too_few_points"] == 0 and f["fallbacks_to"] == {}
