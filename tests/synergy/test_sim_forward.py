"""Fast-forward of the round loop: jumping rounds in bulk gives the round-by-round results
exactly (every float), under every policy, and does jump (a work count, not a timing)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from schedlab.experiments.synergy import simulator
from schedlab.experiments.synergy.fidelity import Fidelity
from schedlab.experiments.synergy.simulator import SimConfig, SimResult, simulate
from schedlab.experiments.synergy.workloads import JobSpec, Workload, multi_gpu, philly_derived

ONE_GPU = {"gpus_per_server": 1, "cpus_per_server": 3.0, "mem_gb_per_server": 62.5}


def _wl(jobs: list[JobSpec]) -> Workload:
    return Workload("hand", jobs, True, "hand-made", default_servers=1)


def _both(make_wl: Any, **cfg: Any) -> tuple[SimResult, SimResult]:
    """The same simulation round by round and fast-forwarded."""
    off = simulate(make_wl(), SimConfig(fast_forward=False, **cfg))
    on = simulate(make_wl(), SimConfig(fast_forward=True, **cfg))
    return off, on


def _assert_identical(a: SimResult, b: SimResult) -> None:
    da, db = a.to_dict(), b.to_dict()
    da.pop("runtime_s")
    db.pop("runtime_s")
    assert da.keys() == db.keys()
    for k in da:
        assert da[k] == db[k] or (da[k] != da[k] and db[k] != db[k]), k  # NaN == NaN
    for name in ("completion_s", "work_done_s"):
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True), name
    ua, ub = a.utilization, b.utilization
    for name in ("round_start_s", "gpu", "cpu", "mem", "cpu_used", "mem_used", "running_jobs"):
        assert np.array_equal(getattr(ua, name), getattr(ub, name)), name
    assert np.array_equal(ua.queued_jobs, ub.queued_jobs)


@pytest.mark.parametrize("policy", ["fifo", "srtf", "las", "ftf", "drf", "tetris"])
@pytest.mark.parametrize(("load", "alloc"), [(0.1, "tune"), (0.9, "greedy")])
def test_fast_forward_is_bit_identical_under_every_policy(
    policy: str, load: float, alloc: str
) -> None:
    """Light and heavy load on 2 servers, with starvation bumps (5 h) in play."""
    off, on = _both(
        lambda: philly_derived(load, 7),
        policy=policy,
        alloc=alloc,
        servers=2,
        window=(60, 120),
        starvation_h=5.0,
    )
    _assert_identical(off, on)


def test_las_alternation_is_never_jumped() -> None:
    """Two 900 s jobs on one GPU under LAS swap every round (the order changes each round):
    A runs rounds 0, 2, 4 and ends at 1500 s; B rounds 1, 3, 5 and ends at 1800 s."""
    jobs = [JobSpec(0, 0.0, "gnmt", 1, 900.0), JobSpec(1, 0.0, "gnmt", 1, 900.0)]
    off, on = _both(lambda: _wl(jobs), policy="las", **ONE_GPU)
    assert list(on.completion_s) == [1500.0, 1800.0]
    _assert_identical(off, on)


def test_starvation_bump_stops_a_jump() -> None:
    """SRTF on one GPU, bumps after 1 h: S (2 h) runs first; L (3 h) is bumped at 3900 s and
    runs; S, waiting since then, is bumped at 7800 s and (less work left) finishes at 11100 s;
    L at 18000 s. A jump past the first bump would end S at 7200 s."""
    jobs = [JobSpec(0, 0.0, "gnmt", 1, 7200.0), JobSpec(1, 0.0, "gnmt", 1, 10800.0)]
    off, on = _both(lambda: _wl(jobs), policy="srtf", starvation_h=1.0, **ONE_GPU)
    assert list(on.completion_s) == pytest.approx([11100.0, 18000.0], rel=1e-12)
    _assert_identical(off, on)


def test_fast_forward_runs_few_rounds_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """At light load under SRTF most rounds change nothing: the loop advances only a small
    share of them one by one (the rest are jumped)."""
    calls = {"advance": 0}
    advance = simulator._Run.advance

    def counting(self: Any, *args: Any) -> None:
        calls["advance"] += 1
        advance(self, *args)

    monkeypatch.setattr(simulator._Run, "advance", counting)
    res = simulate(philly_derived(0.1, 3), SimConfig(policy="srtf", servers=2, window=(60, 120)))
    assert res.rounds > 1000
    assert calls["advance"] * 3 < res.rounds


def test_fast_forward_keeps_allocator_counts_when_the_cache_cannot_hit() -> None:
    """The authors' OPT offers only a prefix of the order and its result holds for that exact
    order, so the round-by-round loop calls it every round: a jump must not skip those calls
    (allocator_calls and alloc_stats included in the equality)."""
    off, on = _both(
        lambda: multi_gpu(load_jobs_per_h=3.0, seed=2, max_jobs=150),
        policy="las",
        alloc="opt",
        servers=2,
        window=(40, 100),
        starvation_h=10.0,
        fidelity=Fidelity().with_authors("opt"),
    )
    _assert_identical(off, on)
