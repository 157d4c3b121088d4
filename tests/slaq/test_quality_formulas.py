"""The formulas behind SLAQ's comparison with the paper, pinned on hand-computed cases: the
quality improvement (time-averaged and "up to") and delay reduction of `fig_quality.table`, the
fallback totals it reports, and the simulator's interpolated time to 90% / 95% and completion."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.slaq import fig_quality as F
from schedlab.experiments.slaq import simulator as sim
from schedlab.solvers.slaq.curves import normalized_loss


def row(policy, seed, loss, mean_loss, t90, t95, **extra):
    return {
        "policy": policy,
        "seed": seed,
        "loss": loss,
        "mean_normalized_loss": mean_loss,
        "mean_time_to_90_s": t90,
        "mean_time_to_95_s": t95,
        "mean_completion_s": 100.0,
        "scheduler_ms_per_epoch": 1.0,
        "fits": extra.get("fits", 0),
        "fallbacks_too_few_points": extra.get("few", 0),
        "fallbacks_failed_fit": extra.get("failed", 0),
        "fallbacks_to": extra.get("to", {}),
    }


ROWS = [
    # seed 0: fair's loss 0.5, 0.4, 0.01 (the last epoch below 0.02: left out of "up to")
    row("fair", 0, [0.5, 0.4, 0.01], 0.2, 40.0, 50.0),
    row("slaq", 0, [0.25, 0.3, 0.0], 0.1, 30.0, 45.0, fits=7, few=2, to={"geometric": 2}),
    row("maxmin", 0, [0.5, 0.5, 0.5], 0.3, 40.0, 50.0, fits=5, failed=1, to={"naive": 1}),
    # seed 1: slaq's series is one epoch longer (compared on the common epochs)
    row("fair", 1, [0.8, 0.2], 0.4, 60.0, 70.0),
    row("slaq", 1, [0.4, 0.19, 0.1], 0.1, 20.0, 35.0, fits=3, few=1, to={"geometric": 1}),
    row("maxmin", 1, [0.8, 0.4], 0.5, 60.0, 70.0, fits=2),
]


@pytest.fixture(autouse=True)
def three_policies(monkeypatch):
    monkeypatch.setattr(F, "policies", lambda: ("slaq", "fair", "maxmin"))


def test_quality_improvement_and_delay_reduction_by_hand():
    tab = {r["policy"]: r for r in F.table(ROWS)}
    s, m, f = tab["slaq"], tab["maxmin"], tab["fair"]
    # time-averaged: 1 - mean(slaq's mean loss) / mean(fair's) = 1 - 0.1 / 0.3
    assert s["quality_improvement_pct"] == pytest.approx(100 * (1 - 0.1 / 0.3))
    assert m["quality_improvement_pct"] == pytest.approx(100 * (1 - 0.4 / 0.3))
    # up to: per seed the largest 1 - slaq/fair over epochs where fair >= 0.02, then the mean:
    # seed 0: max(50%, 25%) = 50%; seed 1: max(50%, 5%) = 50%
    assert s["quality_improvement_up_to_pct"] == pytest.approx(50.0)
    # maxmin: seed 0 max(0%, -25%) = 0%; seed 1 max(0%, -100%) = 0%
    assert m["quality_improvement_up_to_pct"] == pytest.approx(0.0)
    # delay: ratio of the means over seeds (not the mean of per-seed ratios, 45.8%)
    assert s["delay_reduction_90_pct"] == pytest.approx(100 * (1 - 25.0 / 50.0))
    assert s["delay_reduction_95_pct"] == pytest.approx(100 * (1 - 40.0 / 60.0))
    assert f["quality_improvement_pct"] == f["delay_reduction_90_pct"] == 0.0
    assert f["quality_improvement_up_to_pct"] == pytest.approx(0.0)
    assert (s["paper_quality_improvement_pct"], s["paper_delay_reduction_pct"]) == (73.0, 44.0)


def test_fallback_totals_in_the_policy_comparison():
    tab = {r["policy"]: r for r in F.table(ROWS)}
    s, m, f = tab["slaq"], tab["maxmin"], tab["fair"]
    assert (s["fits"], s["fallbacks_too_few_points"], s["fallbacks_failed_fit"]) == (10, 3, 0)
    assert s["fallbacks_to"] == "geometric=3" and m["fallbacks_to"] == "naive=1"
    assert (m["fits"], m["fallbacks_failed_fit"], f["fits"], f["fallbacks_to"]) == (7, 1, 0, "")


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
