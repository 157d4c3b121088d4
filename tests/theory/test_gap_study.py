"""Claim 7's computation: rows against the exact optimum, statistics, slope, verdict rules."""

from __future__ import annotations

import math

import pytest

from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve
from schedlab.theory.claims import claims, run_claim
from schedlab.theory.sojourn.claim_gap import gap_verdict
from schedlab.theory.sojourn.gap_study import GAP_CONFIGS, ZERO_TOL, fit_slope, gap_rows, summarize


def test_rows_are_gaps_to_a_proven_optimum():
    rows = gap_rows(GAP_CONFIGS["tiny"], seed=3)
    assert len(rows) == len(GAP_CONFIGS["tiny"]["ns"]) * GAP_CONFIGS["tiny"]["count"]
    for r in rows:
        assert r["status"] == "optimal" and r["method"] == "dp"
        for h in ("smith", "uindex"):
            # a heuristic is never better than the proven optimum
            assert r[f"v_{h}"] >= r["opt"] * (1 - 1e-12)
            assert math.isclose(r[f"gap_{h}"], (r[f"v_{h}"] - r["opt"]) / r["opt"])


def _row(n, gap_s, gap_u, status="optimal"):
    proven = status == "optimal"
    return {
        "n": n, "status": status, "method": "x", "solve_s": 1.0,
        "gap_smith": gap_s if proven else None, "gap_uindex": gap_u if proven else None,
        "gap_smith_vs_bound": None if proven else 0.5, "gap_uindex_vs_bound": None,
    }  # fmt: skip


def test_fit_slope_recovers_a_power_law_and_skips_zeros():
    ns = [5, 10, 20, 40]
    assert math.isclose(fit_slope(ns, [3 * n**-2 for n in ns]), -2.0, rel_tol=1e-9)
    assert math.isclose(fit_slope(ns + [80], [n**-1.5 for n in ns] + [0.0]), -1.5, rel_tol=1e-9)
    assert fit_slope([5, 10], [0.0, 1e-3]) is None


def test_summary_handles_zero_gaps_and_unproven_rows():
    rows = []
    for n, g in ((5, 1e-2), (10, 2.5e-3), (20, 6.25e-4)):
        rows += [_row(n, g, g / 10), _row(n, 0.0, 0.0), _row(n, 1e-13, 0.0)]
    rows.append(_row(20, None, None, status="feasible"))
    s = summarize(rows)
    by_n = {e["n"]: e for e in s["per_n"]}
    assert by_n[20]["not_proven"] == 1 and by_n[20]["smith"]["count"] == 3
    assert by_n[20]["smith"]["max_gap_vs_bound_unproven"] == 0.5
    assert by_n[5]["smith"]["share_zero"] == pytest.approx(2 / 3)  # 1e-13 <= ZERO_TOL
    assert 1e-13 <= ZERO_TOL
    assert math.isclose(s["slopes"]["smith_mean"], -2.0, rel_tol=1e-9)
    assert gap_verdict({**s, "per_n": s["per_n"]})[0] == "inconclusive"  # 5..20: short range


def test_verdict_rules():
    def summary(means, ns=(5, 10, 20, 50, 100)):
        rows = [_row(n, m, m) for n, m in zip(ns, means, strict=True)]
        return summarize(rows)

    assert gap_verdict(summary([1e-2, 5e-3, 2e-3, 1e-3, 1e-4]))[0] == "holds"
    assert gap_verdict(summary([1e-4, 1e-3, 2e-3, 5e-3, 1e-2]))[0] == "fails"
    assert gap_verdict(summary([0.0, 0.0, 0.0, 1e-3, 1e-4]))[0] == "inconclusive"
    thin = summarize([_row(5, 1e-2, 1e-2), _row(100, None, None, "timeout")])
    assert gap_verdict(thin)[0] == "inconclusive"


def test_claim7_small_returns_a_verdict_with_evidence(tmp_path):
    v = run_claim(claims()["7"], "small", 0, outdir=tmp_path)
    assert v.verdict in ("holds", "fails", "inconclusive")
    assert set(v.evidence["by_n"]) == {"4", "6", "8", "10", "12"}
    assert v.evidence["not_proven_excluded"] == 0
    # the large-n exact method was checked against the DP on the n >= 10 rows
    check = v.evidence["exact_solver_checks"]["large_n_method_vs_dp"]
    assert check["instances"] == 24 and check["max_rel_diff"] <= 1e-9
    assert v.instances == 60


def test_best_insertion_gain_equals_one_round_of_local_search():
    import numpy as np

    from schedlab.solvers.sojourn.generate import generate
    from schedlab.solvers.sojourn.heuristics import local_search
    from schedlab.solvers.sojourn.objectives import Objective, evaluate
    from schedlab.theory.sojourn.gap_study import best_insertion_gain

    obj = Objective("B")
    for s in range(4):
        inst = generate(8, 70 + s)
        order = [int(i) for i in np.random.default_rng(s).permutation(8)]
        _, best, _ = local_search(inst, obj, order, max_rounds=1)
        expected = evaluate(inst, order, obj) - best
        assert math.isclose(best_insertion_gain(inst, order), expected, rel_tol=1e-9, abs_tol=1e-12)
        dp = solve(SojournProblem(inst, obj), "dp")
        assert best_insertion_gain(inst, inst.order_from_ids(dp.solution)) <= 1e-12 * dp.value


def test_suspect_exact_solver_makes_the_verdict_inconclusive():
    rows = [_row(n, 10.0 / n**2, 1.0 / n**3) for n in (5, 10, 20, 50, 100)]
    s = summarize(rows)
    assert gap_verdict(s)[0] == "holds"
    s["per_n"][-1]["max_insertion_improvement"] = 1e-4  # its "optimum" could be improved
    assert gap_verdict(s)[0] == "inconclusive"
