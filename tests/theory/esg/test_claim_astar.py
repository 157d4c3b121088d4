"""Claim 14 (ESG's A* = the cheapest path within the SLO): holds, and fails when broken."""

from __future__ import annotations

from schedlab.solvers.solve import solve
from schedlab.theory.claims import claims, run_claim
from schedlab.theory.esg.claim_astar import PAPER, check_plan, draw_chain

SMALL = {"chains": 12, "milp_every": 4}


def greedy_plans(app):
    """The stage-wise greedy baseline in place of A*."""
    return {"greedy": solve(app, "greedy")}


def relaxed_plans(app):
    """A* searched under a budget 20% looser than the application's (plans may not fit)."""
    return {"relaxed": solve(app.with_budget(1.2 * app.budget), "astar", options=PAPER)}


def test_claim14_holds_in_both_settings(tmp_path):
    v = run_claim(claims()["14"], "small", 0, outdir=tmp_path, **SMALL)
    assert v.verdict == "holds" and v.worst["value"] == 0.0
    ev = v.evidence
    assert ev["feasible"] > 0 and ev["infeasible"] > 0  # both kinds of budget were drawn
    assert set(ev["median_nodes_expanded"]) == {"paper", "schedlab"}
    assert ev["milp_checked"] == 3 and ev["brute_milp_disagreements"] == 0


def test_claim14_fails_for_greedy(tmp_path):
    v = run_claim(claims()["14"], "small", 0, outdir=tmp_path, plan_fn=greedy_plans, **SMALL)
    assert v.verdict == "fails" and v.worst["value"] > 0.0
    assert (tmp_path / "theory" / "claim14-worst.json").exists()


def test_claim14_fails_when_plans_break_the_budget(tmp_path):
    v = run_claim(claims()["14"], "small", 0, outdir=tmp_path, plan_fn=relaxed_plans, **SMALL)
    assert v.verdict == "fails" and v.evidence["wrong_by_reason"]["over_budget"] > 0


def test_check_plan_catches_a_wrong_status():
    app = draw_chain(3, 4, 6)
    res = solve(app, "brute", options={"backend": "numpy"})
    if res.value is None:
        assert check_plan(app, res, None) is None
        assert check_plan(app, res, 1.0) is not None
    else:
        assert check_plan(app, res, res.value) is None
        assert check_plan(app, res, None) is not None
        assert check_plan(app, res, res.value * 0.5) is not None
