"""ESG's evaluation engine: sequential seeds per paired comparison (stop when decided, else at
the cap), pairing by seed, arms left out where a scenario lacks their configurations, the
paper-vs-ours verdicts from the catalogue, and one real cell."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from schedlab.experiments.esg import eval_report as rep
from schedlab.experiments.esg import evaluation as ev
from schedlab.experiments.esg.eval_studies import contention_study, main_study, measured_study

#: Per arm, hit rate by seed: greedy far below ESG (decided at once), infless the same mean
#: with noise (never decided: reaches the cap), static 2 points below, steadily (narrow).
NOISE = [0.3, -0.3, 0.25, -0.25, 0.2, -0.2, 0.3, -0.3, 0.1, -0.1, 0.3, -0.3]


def fake_cell(key: dict[str, Any], spec: dict[str, Any], seed: int) -> dict[str, Any]:
    s = key["seed"]
    hit = {"esg": 0.6, "greedy": 0.1, "infless": 0.6 + NOISE[s], "static": 0.58,
           "no-gpu-sharing": 0.1}[key["arm"]]  # fmt: skip
    cost = {"esg": 1.0, "greedy": 1.1, "infless": 2.0, "static": 3.0,
            "no-gpu-sharing": 2.2}[key["arm"]] * (1 + 0.1 * s)  # fmt: skip
    return {"slo_hit_rate": hit, "slo_hits": int(100 * hit), "measured_requests": 100,
            "cost": cost, "p50_latency_ms": 1.0, "p99_latency_ms": 2.0, "decision_ms_p50": 0.1,
            "decision_ms_p99": 0.2, "decision_cpu_ms_p50": 0.1, "decision_cpu_ms_p99": 0.2,
            "cold_starts": 0, "local_transfer_share": 0.5,
            "per_app_hit": [hit], "per_app_cost": [cost]}  # fmt: skip


def _study(cap: int = 8) -> ev.Study:
    return ev.Study("t", {"a": ev.scenario(["chain3"])}, (0.3,),
                    ("esg", "greedy", "infless", "static"), seeds0=2, seed_step=2,
                    seed_cap=cap)  # fmt: skip


def test_seeds_are_added_until_decided_or_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(ev, "run_cell", fake_cell)
    rows, status = ev.run_study(_study(), 0, tmp_path / "j.jsonl")
    assert status[("a", 0.3, "greedy")] == {"seeds": 2, "decided": True, "capped": False}
    assert status[("a", 0.3, "infless")] == {"seeds": 8, "decided": False, "capped": True}
    assert status[("a", 0.3, "static")]["decided"] and status[("a", 0.3, "static")]["seeds"] == 2
    count = {a: sum(r["arm"] == a for r in rows) for a in ("esg", "greedy", "infless")}
    assert count == {"esg": 8, "greedy": 2, "infless": 8}  # ESG on the most seeds any needs
    # a rerun recomputes nothing (the journal holds every row)
    monkeypatch.setattr(ev, "run_cell", lambda *a, **k: pytest.fail("recomputed"))
    again, _ = ev.run_study(_study(), 0, tmp_path / "j.jsonl")
    assert len(again) == len(rows)


def test_paired_tables_pair_by_seed(tmp_path, monkeypatch):
    monkeypatch.setattr(ev, "run_cell", fake_cell)
    study = _study(cap=4)
    rows, status = ev.run_study(study, 0, tmp_path / "j.jsonl")
    paired = {r["arm"]: r for r in rep.paired_rows(study, rows, status)}
    g = paired["greedy"]
    assert g["gain_pts"] == pytest.approx(50.0) and g["rel_gain_pct"] == pytest.approx(500.0)
    assert g["cost_saving_pct"] == pytest.approx(10.0)  # the same seeds: exactly 1.1x
    assert g["cost_saving_alt_pct"] == pytest.approx(100 * (1 - 1 / 1.1))
    cells = rep.cell_rows(study, rows)
    assert all(0.0 <= c["hit_lo"] <= c["hit"] <= c["hit_hi"] <= 1.0 for c in cells)
    paper = {r["baseline"]: r for r in rep.paper_rows(list(paired.values()))}
    assert paper["greedy"]["hit_verdict"] == "does not match"  # 500 % >> 61-80 %
    assert paper["static"]["cost_verdict"] == "consistent in magnitude"  # 200 % > 187 + 5


def test_verdicts_follow_the_catalogue_and_can_flip():
    band = rep.claim_band(rep.HIT_CLAIM)
    assert (band["low"], band["high"]) == (61.0, 80.0)
    assert rep.band_verdict(70.0, 65.0, 75.0, rep.HIT_CLAIM) == "matches"
    tol = band["tol"]
    edge = band["high"] + tol
    assert rep.band_verdict(edge + 1, edge + 0.01, edge + 2, rep.HIT_CLAIM) != "matches"
    assert rep.band_verdict(edge + 1, edge - 0.01, edge + 2, rep.HIT_CLAIM) == "matches"
    assert rep.band_verdict(150.0, 140.0, 160.0, rep.HIT_CLAIM) == "consistent in magnitude"
    assert rep.band_verdict(170.0, 165.0, 175.0, rep.HIT_CLAIM) == "does not match"
    assert rep.band_verdict(float("inf"), np.nan, np.nan, rep.HIT_CLAIM) == "does not match"
    assert rep.claim_band(rep.COST_CLAIM)["high"] == 187.0


def test_cpu_arms_are_left_out_of_gpu_only_scenarios():
    m = measured_study("full")
    assert "batch" in m.arms
    assert all("batch" not in m.arms_of(s) for s in m.scenarios)
    assert m.left_out() == {s: ["batch"] for s in m.scenarios}
    assert "batch" in main_study("full").arms_of("chain3")
    c = contention_study("full")
    assert [sc["arrivals"] for sc in c.scenarios.values()] == ["poisson", "bursty", "azure"]
    assert all(len(sc["apps"]) == 4 for sc in c.scenarios.values())


def test_one_real_cell_is_paired_by_seed():
    """Two arms on the same seed see the same arrivals and apps: a policy-independent
    quantity (the measured request count) agrees, and the same arm twice is identical."""
    study = main_study("tiny")
    from dataclasses import asdict

    spec = asdict(study)
    a = ev.run_cell({"scenario": "chain3", "load": 0.3, "arm": "esg", "seed": 0}, spec, 0)
    b = ev.run_cell({"scenario": "chain3", "load": 0.3, "arm": "greedy", "seed": 0}, spec, 0)
    a2 = ev.run_cell({"scenario": "chain3", "load": 0.3, "arm": "esg", "seed": 0}, spec, 0)
    assert a["measured_requests"] == b["measured_requests"] == 120
    drop = ("decision_ms_p50", "decision_ms_p99", "decision_cpu_ms_p50", "decision_cpu_ms_p99")
    assert {k: v for k, v in a.items() if k not in drop} == {
        k: v for k, v in a2.items() if k not in drop
    }


def test_attribution_names_where_the_advantage_comes_from(tmp_path, monkeypatch):
    monkeypatch.setattr(ev, "run_cell", fake_cell)
    study = ev.Study("t", {"a": ev.scenario(["chain3"])}, (0.3,),
                     ("esg", "greedy", "no-gpu-sharing"), seeds0=3, seed_cap=3)  # fmt: skip
    rows, _ = ev.run_study(study, 0, tmp_path / "j.jsonl")
    attr = {r["arm"]: r for r in rep.attribution_rows(study, rows) if r["baseline"] == "greedy"}
    assert attr["esg"]["gain_pts"] == pytest.approx(50.0)
    assert attr["esg"]["cost_saving_pct"] == pytest.approx(10.0)
    assert attr["no-gpu-sharing"]["gain_pts"] == pytest.approx(0.0)  # the advantage is gone
    assert attr["no-gpu-sharing"]["cost_saving_pct"] == pytest.approx(-50.0)
    table = "\n".join(rep.attribution_md(list(rep.attribution_rows(study, rows))))
    assert "ESG no-gpu-sharing" in table
