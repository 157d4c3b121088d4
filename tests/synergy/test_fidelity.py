"""The authors' simulator rules as switches, their job stream, and the side-by-side studies.

Pinned reference values come from the authors' own code (msr-fiddle/synergy @1bb2bed), run
outside the project: their generator functions for the stream, their simulator for the
JCT numbers (shared/data/synergy/authors_simulator.md and its README's printed point).
"""

from __future__ import annotations

import json
import math
from itertools import islice

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.synergy.authors_stream import AuthorsStream
from schedlab.experiments.synergy.cells import sim_cell
from schedlab.experiments.synergy.fidelity import CHOICES, Fidelity
from schedlab.experiments.synergy.simulator import SimConfig, simulate
from schedlab.experiments.synergy.traces import builtin_trace
from schedlab.experiments.synergy.workloads import JobSpec, Workload, philly_derived
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.synergy.profiles import named_profiles

AUTHORS = Fidelity.as_authors()


def test_stream_matches_the_authors_generator():
    # (job, arrival s, model, duration s) printed by their helpers/utils.py + model_zoo.py
    # with random.seed(42) at 9 jobs/h (two fresh seeds: the cached job list, then the run)
    expect = {
        0: (409.0, "alexnet", 2068.5564791406746),
        1: (951.0, "gnmt", 4101.732724304978),
        2: (1053.0, "transformer", 19642.668237323694),
        999: (412899.0, "gnmt", 5380.1935946891745),
        4000: (1584299.0, "alexnet", 42811.572860821616),
        6999: (2807212.0, "gnmt", 51237.225999433096),
    }
    jobs = list(islice(iter(AuthorsStream(9.0, 42)), 7000))
    for k, (a, model, work) in expect.items():
        assert (jobs[k].arrival_s, jobs[k].model, jobs[k].work_s) == (a, model, work)
    assert all(j.gpus == 1 for j in jobs)


def test_as_authors_reproduces_the_readme_point_to_every_digit():
    # ae-readme.md prints: Mean = 21.876600555555555, 99th = 156.93307777777775,
    # 99.9th = 170.61199750000023
    res = simulate(
        philly_derived(9.0, 42, stream="authors"),
        SimConfig(policy="fifo", alloc="tune", fidelity=AUTHORS),
    )
    assert res.stats.mean_h == pytest.approx(21.876600555555555, rel=1e-12)
    assert res.stats.p99_h == pytest.approx(156.93307777777775, rel=1e-12)
    assert res.stats.p999_h == pytest.approx(170.61199750000023, rel=1e-12)


def test_without_the_rules_the_same_jobs_miss_the_reference():
    """The comparison can fail: the authors' jobs under schedlab's own rules are 1.5% off."""
    res = simulate(
        philly_derived(9.0, 42, stream="authors"), SimConfig(policy="fifo", alloc="tune")
    )
    assert abs(res.stats.mean_h / 21.876600555555555 - 1) > 0.01


def test_srtf_and_small_window_match_the_authors_simulator():
    # their simulator: SRTF+tune, window 4000-4999: mean 16.603100555555557;
    # FIFO+tune, window 400-599: mean 14.479898611111112, p99.9 161.89982638888924
    d = sim_cell(
        {"load": 9.0, "seed": 42, "policy": "srtf", "alloc": "tune", "stream": "authors",
         "switches": list(CHOICES)}
    )  # fmt: skip
    assert d["mean_jct_h"] == pytest.approx(16.603100555555557, rel=1e-12)
    d = sim_cell(
        {"load": 9.0, "seed": 42, "policy": "fifo", "alloc": "tune", "stream": "authors",
         "switches": list(CHOICES), "window": [400, 600]}
    )  # fmt: skip
    assert d["mean_jct_h"] == pytest.approx(14.479898611111112, rel=1e-12)
    assert d["p999_jct_h"] == pytest.approx(161.89982638888924, rel=1e-12)


@pytest.mark.parametrize(
    ("name", "policy", "alloc", "makespan_h", "mean_h"),
    [
        ("static-100job", "fifo", "proportional", 15.25, 5.631),
        ("static-100job", "fifo", "tune", 11.00, 5.082),
        ("dynamic-100job", "srtf", "tune", 13.25, 3.189),
        ("dynamic-100job", "srtf", "opt", 12.83, 3.093),
    ],
)
def test_traces_as_authors_within_one_percent(name, policy, alloc, makespan_h, mean_h):
    res = simulate(builtin_trace(name), SimConfig(policy=policy, alloc=alloc, fidelity=AUTHORS))
    assert res.makespan_s / 3600 == pytest.approx(makespan_h, rel=0.01)
    assert res.stats.mean_h == pytest.approx(mean_h, rel=0.01)


def _lone(work_s: float, arrival_s: float, model: str = "res18") -> Workload:
    return Workload("lone", [JobSpec(0, arrival_s, model, 1, work_s)], True, "one job")


def test_round_end_completion_and_whole_iterations_on_a_lone_job():
    # res18 at its ideal (9 CPUs, 62.5 GB) runs 2.4x; iteration 0.64 s at proportional share
    work, a, R = 10_000.0, 100.0, 300.0
    exact = simulate(_lone(work, a), SimConfig(policy="fifo", alloc="greedy", servers=1))
    assert exact.completion_s[0] == pytest.approx(R + work / 2.4, rel=1e-12)
    f = Fidelity(completion="round-end")
    end = simulate(_lone(work, a), SimConfig(policy="fifo", alloc="greedy", servers=1, fidelity=f))
    assert end.completion_s[0] == R + math.ceil(work / 2.4 / R) * R
    f = Fidelity(completion="round-end", iterations="integer")
    whole = simulate(
        _lone(work, a), SimConfig(policy="fifo", alloc="greedy", servers=1, fidelity=f)
    )
    iters, per_round = int(work / 0.64), math.floor(R / (0.64 / 2.4))
    assert whole.completion_s[0] == R + math.ceil(iters / per_round) * R


def test_binary_speed_runs_off_ideal_jobs_at_one():
    """alexnet at the proportional share: table 1.0 either way; OPT's phase-1 configurations
    keep the table (their OPT reads it too)."""
    wl = _lone(30_000.0, 0.0, "alexnet")
    cfg = {"policy": "fifo", "servers": 1}
    t = simulate(wl, SimConfig(alloc="greedy", **cfg))
    b = simulate(wl, SimConfig(alloc="greedy", fidelity=Fidelity(speed="binary"), **cfg))
    assert t.completion_s[0] == pytest.approx(b.completion_s[0])  # ideal: 2.94 both
    p = simulate(wl, SimConfig(alloc="proportional", fidelity=Fidelity(speed="binary"), **cfg))
    assert p.completion_s[0] == pytest.approx(30_000.0)


def test_authors_las_offers_greedy_only_the_proportional_prefix():
    """Their LAS tries only the jobs GPU-proportional admits: on one 8-GPU server with eight
    m5 jobs (187.5 GB each at the ideal: two fit) and a small gnmt job behind them, GREEDY
    back-fills gnmt in the first round under our rules; theirs offers it only in the second,
    when the two m5 jobs that ran have attained service and sort last."""
    jobs = [JobSpec(i, 0.0, "m5", 1, 50_000.0) for i in range(8)]
    jobs.append(JobSpec(8, 0.0, "gnmt", 1, 200.0))
    wl = Workload("w", jobs, True, "prefix")
    ours = simulate(wl, SimConfig(policy="las", alloc="greedy", servers=1))
    theirs = simulate(
        Workload("w", jobs, True, "prefix"),
        SimConfig(policy="las", alloc="greedy", servers=1, fidelity=Fidelity(policy="authors")),
    )
    assert ours.completion_s[8] == pytest.approx(200.0)
    assert theirs.completion_s[8] == pytest.approx(500.0)


@pytest.mark.parametrize("fid", [Fidelity(), AUTHORS])
def test_fast_forward_changes_nothing(fid):
    stream = "authors" if fid == AUTHORS else "numpy"
    out = []
    for ff in (False, True):
        cfg = SimConfig(policy="fifo", alloc="tune", window=(300, 600), fidelity=fid,
                        fast_forward=ff)  # fmt: skip
        out.append(simulate(philly_derived(1.0, 5, stream=stream), cfg))
    a, b = out
    assert np.array_equal(a.completion_s, b.completion_s, equal_nan=True)
    assert a.rounds == b.rounds
    assert np.array_equal(a.utilization.cpu, b.utilization.cpu)
    assert a.runtime_s > 0


def test_fidelity_rejects_unknown_values():
    with pytest.raises(InvalidInput, match="completion"):
        Fidelity(completion="sometimes")
    with pytest.raises(InvalidInput, match="unknown"):
        Fidelity().with_authors("placement")
    assert Fidelity.as_authors().authors_switches == list(CHOICES)


def test_ratio_profiles_are_one_at_their_own_share():
    for ratio in (4, 5, 6):
        pr = named_profiles(f"cpu-ratio-{ratio}")
        for k, m in enumerate(pr.models):
            assert pr.tput(k, float(ratio), 62.5) == pytest.approx(1.0, abs=1e-6), m.name
    assert named_profiles("cpu-ratio-4").models[0].speedup_at_ideal == 2.352  # models-4/alexnet
    with pytest.raises(InvalidInput, match="known"):
        named_profiles("cpu-ratio-9")


def test_cli_as_authors_and_bad_flags():
    from schedlab.experiments.cli import cli

    r = CliRunner().invoke(
        cli,
        ["synergy", "simulate", "--as-authors", "--seed", "42", "--policy", "fifo",
         "--alloc", "tune", "--window", "400:600", "--json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["stream"] == "authors" and d["fidelity"] == AUTHORS.to_dict()
    assert d["mean_jct_h"] == pytest.approx(14.479898611111112, rel=1e-12)
    r = CliRunner().invoke(
        cli, ["synergy", "simulate", "--policy", "fifo", "--alloc", "tune", "--class-split", "1,2"]
    )
    assert r.exit_code == 2 and "--class-split" in r.output
    r = CliRunner().invoke(
        cli,
        ["synergy", "simulate", "--workload", "multi-gpu", "--stream", "authors",
         "--policy", "fifo", "--alloc", "tune"],
    )  # fmt: skip
    assert r.exit_code == 2 and "--stream" in r.output
