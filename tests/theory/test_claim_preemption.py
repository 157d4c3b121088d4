"""Claims 1, 2, 2a at small size, and a broken input that must make claim 1 fail."""

from __future__ import annotations

import json

from schedlab.solvers.sojourn.heuristics import order_by_index, smith_key
from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.claims import claims, run_claim

SMALL = {"ns": [2, 3, 4], "per_n": 4}


def test_claim1_holds(tmp_path):
    v = run_claim(claims()["1"], "small", 0, outdir=tmp_path)
    assert v.verdict == "holds"
    assert v.instances == 18
    assert v.evidence["inconsistencies"] == []
    assert v.worst["value"] <= 1e-9 and v.files == []


def test_claim1_fails_when_a_non_optimal_order_is_declared_optimal(tmp_path):
    def reversed_smith(inst, kind):
        return order_by_index(smith_key(inst))[::-1]

    v = run_claim(claims()["1"], "small", 0, outdir=tmp_path, best_order=reversed_smith, **SMALL)
    assert v.verdict == "fails"
    assert v.worst["value"] > 1e-3
    saved = Instance.load(v.worst["instance"])
    assert saved.n == v.worst["n"]


def test_claim2_and_2a_report_evidence(tmp_path):
    v2 = run_claim(claims()["2"], "small", 0, outdir=tmp_path)
    assert v2.verdict in ("holds", "fails")
    ev = v2.evidence
    assert ev["inconsistencies"] == []
    # the split of the gain: preemption proper + adaptivity account for the total
    assert ev["gain_preemptive_over_fixed"]["max"] >= ev["gain_adaptive_over_fixed"]["max"] - 1e-12
    if v2.verdict == "fails":
        assert json.loads(open(v2.worst["instance"]).read())["meta"]["claim"] == "2"
    v2a = run_claim(claims()["2a"], "small", 0, outdir=tmp_path)
    assert v2a.verdict in ("holds", "fails")
    assert v2a.evidence["gain_preemptive_over_adaptive"]["max"] == v2a.worst["value"]


def test_claim2a_does_not_depend_on_the_declared_best_order(tmp_path):
    # 2a compares preemptive vs adaptive DP values only: a wrong "best order" must not matter
    def fcfs(inst, kind):
        return list(range(inst.n))

    v = run_claim(claims()["2a"], "small", 0, outdir=tmp_path, best_order=fcfs, **SMALL)
    base = run_claim(claims()["2a"], "small", 0, outdir=tmp_path, **SMALL)
    assert v.verdict == base.verdict
    assert v.worst["value"] == base.worst["value"]


def test_claim2a_fails_when_a_row_shows_a_preemption_gain(tmp_path, monkeypatch):
    import schedlab.theory.sojourn.claim_preemption as cp

    real = cp.compare_policies

    def with_gain(inst, kind, best):
        row = real(inst, kind, best)
        if inst.n == 3:  # pretend preemption helped on the 3-job instances
            row["gain_preemptive_over_adaptive"] = 1e-3
        return row

    monkeypatch.setattr(cp, "compare_policies", with_gain)
    v = run_claim(claims()["2a"], "small", 0, outdir=tmp_path, **SMALL)
    assert v.verdict == "fails"
    assert v.worst["n"] == 3 and Instance.load(v.worst["instance"]).n == 3
