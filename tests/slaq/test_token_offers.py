"""Token model "offers" (`experiments/slaq/token_offers.py`), the authors' iteration counts
(`--iterations`), the flags' refusals and the starved-job count."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.slaq import workload_authors as wa
from schedlab.experiments.slaq.simulator import SimConfig, SimJob, simulate, starvation, summarize
from schedlab.experiments.slaq.token_offers import offer_cores

T = 3.0


def test_a_low_token_pool_gets_the_cores_pools_ahead_cannot_use():
    """Pool 0 has the most tokens but 2 tasks per iteration and one iteration left: it can use
    2 of 4 cores, so the other 2 flow to pool 1 (1 token); the fluid limit gives pool 1 none."""
    got = offer_cores([10.0, 1.0], w=[2.0, 100.0], tasks_per_iter=[2, 1000], iters_left=[1.0, 5.0],
                      capacity=4, epoch_s=T)  # fmt: skip
    # pool 0: 2 tasks of 1 s, then done; pool 1 gets 2 cores for 1 s, then 4 for 2 s
    np.testing.assert_allclose(got, [2.0 / T, (2.0 + 8.0) / T], rtol=1e-12)
    assert wa.token_shares([10.0, 1.0], 4)[1] == 0.0  # fluid: the low pool waits


def test_saturated_pools_follow_token_order():
    """Every pool has more pending tasks than cores: the pool with the most tokens takes every
    core while it stays ahead (3 T tokens never fall below 1 T on 2 cores in one epoch)."""
    got = offer_cores([3.0, 1.0, 0.5], w=[1.0] * 3, tasks_per_iter=[100] * 3,
                      iters_left=[50.0] * 3, capacity=2, epoch_s=T)  # fmt: skip
    np.testing.assert_allclose(got, [2.0, 0.0, 0.0], rtol=1e-12)


def test_saturated_offers_drain_tokens_like_the_fluid_limit():
    """Tokens [2, 1] on 2 cores: pool 0 takes both until its tokens meet pool 1's at T / 2,
    then they alternate: 1.5 and 0.5 cores, the fluid limit, to within one task."""
    got = offer_cores([2.0, 1.0], w=[1.0, 1.0], tasks_per_iter=[100, 100],
                      iters_left=[50.0, 50.0], capacity=2, epoch_s=T)  # fmt: skip
    np.testing.assert_allclose(got, wa.token_shares([2.0, 1.0], 2), atol=2 * 0.01 / T)
    assert got.sum() == pytest.approx(2.0, rel=1e-9)  # work-conserving


def test_ties_go_to_the_earlier_pool_and_a_finished_job_frees_its_cores():
    got = offer_cores([1.0, 1.0], w=[1.0, 1.0], tasks_per_iter=[4, 4], iters_left=[0.5, 100.0],
                      capacity=4, epoch_s=T)  # fmt: skip
    # pool 0 (first on the tie) runs its 2 last tasks of 0.25 s, pool 1 two of its 4; at 0.25 s
    # pool 1 has 2 tasks of that iteration left (the barrier: 2 cores idle), then 4 cores
    np.testing.assert_allclose(got, [0.5 / T, (0.5 + 0.5 + 4 * (T - 0.5)) / T], rtol=1e-12)


def test_iterations_option_changes_the_authors_workload():
    lengths = {}
    for it in ("driver", "curves"):
        jobs = wa.authors_jobs(SimConfig(jobs=4, iterations=it))
        lengths[it] = {j.family: len(j.curve) for j in jobs}
    assert lengths["driver"] == {"svm": 100, "logreg": 100, "linreg": 100, "mlpc": 60}
    assert lengths["curves"] == {"svm": 200, "logreg": 100, "linreg": 128, "mlpc": 210}
    jobs = wa.authors_jobs(SimConfig(jobs=4, iterations="driver"))
    assert [j.tasks for j in jobs] == [180, 180, 100, 500]  # thread 1 samples 0.5


def test_token_model_changes_the_run_and_is_named_in_the_output():
    base = dict(jobs=12, cores=8, arrival_mean_s=3.0, seed=0)
    out = {}
    for tm in ("fluid", "offers"):
        s = summarize(simulate(SimConfig(**base, token_model=tm), "slaq", "authors"))
        assert (s["config"]["token_model"], s["config"]["iterations"]) == (tm, "driver")
        assert s["finished_jobs"] == 12
        out[tm] = s
    assert out["fluid"]["mean_normalized_loss"] != out["offers"]["mean_normalized_loss"]


@pytest.mark.parametrize("flag", ["--token-model", "--iterations"])
def test_bad_values_and_other_workloads_are_refused_with_exit_2(flag):
    base = ["slaq", "simulate", "--jobs", "4", "--cores", "8", "--json"]
    r = CliRunner().invoke(cli, [*base, "--workload", "authors", flag, "bogus"])
    assert r.exit_code == 2 and flag in r.output and "Traceback" not in r.output
    good = "offers" if flag == "--token-model" else "curves"
    r = CliRunner().invoke(cli, [*base, flag, good])  # default workload: shipped-curves
    assert r.exit_code == 2 and f"{flag} applies to the authors' workloads" in r.output
    r = CliRunner().invoke(cli, [*base, "--workload", "authors", flag, good])
    assert r.exit_code == 0, r.output


def test_starved_jobs_by_hand():
    jobs = [SimJob(i, 0.0, np.array([2.0, 1.0]), 1.0) for i in range(4)]
    for j, wait in zip(jobs, [0.0, 29.0, 30.0, None], strict=True):
        j.first_core_s = wait
    s = starvation(jobs)
    assert (s["starved_jobs"], s["starved_share"]) == (2, 0.5)  # 30 s and never
    assert s["mean_first_core_wait_s"] == pytest.approx(59.0 / 3, rel=1e-12)
