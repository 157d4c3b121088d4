"""The formulas behind SLAQ's comparison with the paper, pinned on hand-computed cases: the
quality improvement (time-averaged and "up to") and delay reduction of `fig_quality.table`, the
fallback totals it reports, and the simulator's interpolated time to 90% / 95% and completion."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.slaq import fig_quality as F
from schedlab.experiments.slaq import simulator as sim
from schedlab.solvers.slaq.curves import normalized_loss


def row(policy, seed, times, loss, delays, fits=0, few=0, to=None, idle=0.0, starved=0.0):
    """One journaled run of the figure (the keys `fig_quality.table` reads)."""
    return {
        "workload": "w",
        "sleep": 5.0,
        "policy": policy,
        "seed": seed,
        "offered_load": 1.0,
        "times_s": times,
        "loss": loss,
        "family_loss": {"a": loss, "b": loss},
        "job_delays": delays,
        "fits": fits,
        "fallbacks_too_few_points": few,
        "fallbacks_failed_fit": 0,
        "fallbacks_to": to or {},
        "idle_share": idle,
        "starved_share": starved,
        "token_model": "fluid",
        "iterations": "driver",
    }


SLAQ_DELAYS = [["a", 10.0, 20.0], ["b", 100.0, None]]
FAIR_DELAYS = [["a", 20.0, 30.0], ["b", 110.0, 120.0]]
ROWS = [
    # seed 0: fair's loss 0.5, 0.4, 0.01 (the last epoch below 0.02: left out)
    row("fair", 0, [0, 3, 6], [0.5, 0.4, 0.01], FAIR_DELAYS),
    row("slaq", 0, [0, 3, 6], [0.25, 0.3, 0.0], SLAQ_DELAYS, 7, 2, {"geometric": 2}, 0.25, 0.5),
    # seed 1: slaq's series is one epoch longer (compared on the common epochs)
    row("fair", 1, [0, 3], [0.8, 0.2], FAIR_DELAYS),
    row("slaq", 1, [0, 3, 6], [0.4, 0.19, 0.1], SLAQ_DELAYS, 3, 1, {"geometric": 1}, 0.05),
]


def test_quality_improvement_and_delay_reduction_by_hand():
    tab = {r["family"]: r for r in F.table(ROWS)}
    assert set(tab) == {"all", "a", "b"}
    s = tab["all"]
    # up to: per seed the largest 1 - slaq/fair where fair >= 0.02: seed 0 max(50%, 25%),
    # seed 1 max(50%, 5%); the same both seeds, so a zero-width interval
    assert (s["quality_up_to_pct"], s["quality_up_to_ci95_pct"]) == (50.0, 0.0)
    # time-averaged: 1 - sum slaq / sum fair: seed 0 1 - 0.55 / 0.9, seed 1 1 - 0.59 / 1.0
    per = [1 - 0.55 / 0.9, 1 - 0.59 / 1.0]
    half = 12.706205 * np.std(per, ddof=1) / np.sqrt(2)
    assert s["quality_time_avg_pct"] == pytest.approx(100 * np.mean(per), abs=0.005)
    assert s["quality_time_avg_ci95_pct"] == pytest.approx(100 * half, abs=0.005)
    # delay to 90%: ratio of means 1 - 55 / 65; mean of ratios mean(1/2, 1 - 100/110)
    assert s["delay90_ratio_of_means_pct"] == pytest.approx(100 * (1 - 55 / 65), abs=0.005)
    assert s["delay90_mean_of_ratios_pct"] == pytest.approx(
        100 * np.mean([0.5, 1 - 100 / 110]), abs=0.005
    )
    # to 95%: job b never reaches it under slaq, so only job a pairs: 1 - 20 / 30 both ways
    assert s["delay95_ratio_of_means_pct"] == pytest.approx(100 / 3, abs=0.005)
    assert s["delay95_mean_of_ratios_pct"] == pytest.approx(100 / 3, abs=0.005)
    assert (s["slaq_time_to_90_s"], s["fair_time_to_90_s"]) == (55.0, 65.0)
    assert tab["a"]["delay90_ratio_of_means_pct"] == 50.0  # one family: job a alone
    assert (s["paper_quality_up_to_pct"], s["paper_delay_reduction_pct"]) == (73.0, 44.0)


def test_fallback_totals_in_the_comparison_table():
    tab = {r["family"]: r for r in F.table(ROWS)}
    s = tab["all"]
    assert (s["slaq_fits"], s["slaq_fallbacks_too_few_points"], s["slaq_fallbacks_failed_fit"]) == (
        10,
        3,
        0,
    )
    assert s["slaq_fallbacks_to"] == "geometric=3"
    assert (s["fair_fits"], s["fair_fallbacks_to"]) == (0, "")
    assert tab["a"]["slaq_fits"] is None  # run totals sit on the "all" row only
    # admitted jobs left without a core: the mean share over seeds, in %, on the "all" row
    assert (s["slaq_idle_pct"], s["fair_idle_pct"], tab["a"]["slaq_idle_pct"]) == (15.0, 0.0, None)
    # starved share: the mean over seeds (0.5, 0), on the "all" row only
    assert (s["slaq_starved_pct"], s["fair_starved_pct"], tab["a"]["slaq_starved_pct"]) == (
        25.0,
        0.0,
        None,
    )
    assert (s["token_model"], s["iterations"]) == ("fluid", "driver")
    assert "| 15 / 0 |" in F.markdown(F.table(ROWS), "caption")


def job(curve, w, arrival=0.0):
    c = np.asarray(curve, dtype=float)
    j = sim.SimJob(0, arrival, c, w)
    j.norm = normalized_loss(c)
    return j


def test_time_to_90_95_and_completion_are_interpolated_inside_the_epoch():
    """Losses 10, 6, 1.8, 1: normalized 1, 5/9, 0.8/9, 0, so 90% is reached at iteration 2
    and 95% at iteration 3. W = 2 on 1 core (perfect scaling): 0.5 iteration/s, epochs of 3 s:
    1.5 iterations per epoch; iteration 2 at 4 s, iteration 3 (the last) at 6 s."""
    cfg = sim.SimConfig(epoch_s=3.0)
    j = job([10.0, 6.0, 1.8, 1.0], w=2.0)
    np.testing.assert_allclose(j.norm, [1.0, 5 / 9, 0.8 / 9, 0.0])
    sim.advance(j, 1, 0.0, cfg)
    assert j.progress == pytest.approx(1.5) and j.t90_s is None and j.done_s is None
    sim.advance(j, 1, 3.0, cfg)
    assert (j.t90_s, j.t95_s, j.done_s) == pytest.approx((4.0, 6.0, 6.0))


def test_times_count_from_arrival_and_scale_with_cores():
    """The same job arriving at 1 s and started at 3 s with 2 cores: 1 iteration/s, iteration 2
    at 5 s and 3 at 6 s, i.e. 4 s and 5 s after arrival (completion: the absolute 6 s); fixed
    scaling alpha W / c + beta: 1.5 s per iteration, iteration 2 at 3 s."""
    j = job([10.0, 6.0, 1.8, 1.0], w=2.0, arrival=1.0)
    cfg = sim.SimConfig(epoch_s=3.0)
    sim.advance(j, 2, 3.0, cfg)
    assert (j.t90_s, j.t95_s, j.done_s) == pytest.approx((4.0, 5.0, 6.0))
    fixed = sim.SimConfig(epoch_s=3.0, scaling="fixed", alpha=1.0, beta_s=0.5)
    k = job([10.0, 6.0, 1.8, 1.0], w=2.0)
    sim.advance(k, 2, 0.0, fixed)
    assert k.t90_s == pytest.approx(3.0) and k.progress == pytest.approx(2.0)
