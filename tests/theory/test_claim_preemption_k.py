"""Claims 3a (TK) and 3b (DK) at small size, and inputs that must make them fail."""

from __future__ import annotations

import pytest

from schedlab.solvers.sojourn.heuristics import order_by_index, smith_key
from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.claims import claims, run_claim

TINY = {"ns": [2, 3], "per_n": 2, "climb_ns": [3], "climb_steps": 2}


@pytest.mark.parametrize("cid", ["3a", "3b"])
def test_claim_holds_at_small_size_with_search(cid, tmp_path):
    v = run_claim(claims()[cid], "small", 0, outdir=tmp_path)
    assert v.verdict == "holds"
    # 3 per (n, K): n = 2, 3, 4 give 2 + 3 + 4 K values; one 7-instance descent per K at n = 4,
    # but none for TK at K = n, where every order gives the makespan (all orders tie)
    searches = 3 if cid == "3a" else 4
    assert v.instances == 3 * 9 + 7 * searches
    ev = v.evidence
    assert ev["inconsistencies"] == []
    assert ev["gain_preemptive_over_fixed"]["count_above_tol"] == 0
    assert ev["gain_adaptive_over_fixed"]["count_above_tol"] == 0
    assert len(ev["search"]) == searches
    # the descent lowers the margin (never raises it) and the closest call is saved
    for c in ev["search"]:
        assert c["best_margin"] <= c["start_margin"]
    assert 0 <= ev["min_margin_searched"] <= ev["min_margin_random"]
    saved = Instance.load(v.worst["closest_call"]["file"])
    assert saved.n == 4 and saved.meta["claim"] == cid


@pytest.mark.parametrize("cid", ["3a", "3b"])
def test_claim_fails_when_a_non_optimal_order_is_declared_best(cid, tmp_path):
    def reversed_smith(inst, obj):
        return order_by_index(smith_key(inst))[::-1]

    v = run_claim(claims()[cid], "small", 0, outdir=tmp_path, best_order=reversed_smith, **TINY)
    assert v.verdict == "fails"
    assert v.worst["value"] > 1e-3
    assert v.worst["margin_preemptive"] < 0
    saved = Instance.load(v.worst["instance"])
    assert saved.n == v.worst["n"] and saved.meta["claim"] == cid


def test_claim_fails_when_a_row_shows_a_gain(tmp_path, monkeypatch):
    import schedlab.theory.sojourn.claim_preemption_k as ck

    real = ck.compare_k

    def with_gain(inst, kind, k, best):
        row = real(inst, kind, k, best)
        if inst.n == 3 and k == 2:  # pretend adaptivity helped there
            row["gain_adaptive_over_fixed"] = 1e-3
        return row

    monkeypatch.setattr(ck, "compare_k", with_gain)
    v = run_claim(claims()["3a"], "small", 0, outdir=tmp_path, **{**TINY, "climb_steps": 0})
    assert v.verdict == "fails"
    assert v.evidence["gain_adaptive_over_fixed"]["count_above_tol"] == 2


def test_claim_fails_when_the_search_finds_a_negative_margin(tmp_path, monkeypatch):
    import schedlab.theory.sojourn.claim_preemption_k as ck

    real = ck.order_margin
    calls = {"n": 0}

    def shifted(solver, order, tie=1e-12):
        calls["n"] += 1
        return real(solver, order, tie) - 10.0  # every margin far below zero

    monkeypatch.setattr(ck, "order_margin", shifted)
    v = run_claim(claims()["3b"], "small", 0, outdir=tmp_path, **TINY)
    assert calls["n"] > 0
    assert v.verdict == "fails"
    assert v.evidence["gain_preemptive_over_fixed"]["count_above_tol"] == 0  # gains untouched
