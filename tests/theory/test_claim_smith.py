"""Claims 3 and 4, their sympy derivation, and broken rules that flip the verdicts."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from schedlab.solvers.sojourn.heuristics import order_by_index
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve
from schedlab.theory.claims import claims, run_claim
from schedlab.theory.sojourn.claim_smith import (
    rule_gap_all_ties,
    smallest_counterexample,
    two_job_b_difference,
)
from schedlab.theory.sojourn.exact_b import b_enumeration, rationalize


def sept(inst):
    return inst.mean


def test_claim3_holds(tmp_path):
    v = run_claim(claims()["3"], "small", 0, outdir=tmp_path)
    assert v.verdict == "holds"
    assert v.evidence["oracle_disagreements_dp_vs_brute"] == 0
    assert v.evidence["objective_values_checked"] > 100


def test_claim3_fails_for_a_non_optimal_rule(tmp_path):
    v = run_claim(claims()["3"], "small", 0, outdir=tmp_path, index_fn=sept)
    assert v.verdict == "fails"
    assert v.worst["value"] > 1e-6
    assert Instance.load(v.worst["instance"]).n == v.worst["n"]


def test_two_jobs_b_is_decided_by_the_index_at_one_half_not_smith():
    d = two_job_b_difference()
    assert d["equals_index_at_half"] is True
    assert d["equals_smith"] is False


def test_claim4_fails_with_the_smallest_counterexample_saved(tmp_path):
    v = run_claim(claims()["4"], "small", 0, outdir=tmp_path)
    assert v.verdict == "fails"
    inst = Instance.load(v.worst["instance"])
    assert inst.n == 2  # n = 2 already (the symbolic derivation says why)
    ex = v.evidence["smallest_counterexample"]
    # re-derive the gap in exact arithmetic from the saved file, independently of the claim
    rule = inst.order_from_ids(ex["rule_order"])
    opt = inst.order_from_ids(ex["optimal_order"])
    b_rule, b_opt = b_enumeration(inst, rule, rationalize), b_enumeration(inst, opt, rationalize)
    assert b_rule > b_opt
    assert str(b_rule) == ex["exact"]["B_rule_order"]
    dp = solve(SojournProblem(inst, Objective("B")), "dp")
    assert abs(float(b_opt) - dp.value) <= 1e-12 * dp.value
    assert v.evidence["random_by_n"]["5"]["rule"]["instances"] == 25


def test_hand_checked_counterexample():
    # job x: 3 surely; job y: 1 (cancel, 2/5) or 2 (success, 3/5). Smith runs y first.
    inst = Instance.from_arrays([[3], [1, 2]], [[1.0], [0.4, 0.6]])
    assert b_enumeration(inst, [1, 0], rationalize) == Fraction(37, 10)
    assert b_enumeration(inst, [0, 1], rationalize) == Fraction(18, 5)
    gap, rule, opt = rule_gap_all_ties(inst, lambda i: i.mean / i.pi)
    assert rule == [1, 0] and opt == [0, 1] and abs(gap - 1 / 36) < 1e-12


def test_claim4_holds_for_an_optimal_rule(tmp_path):
    def optimal_rank(inst):
        order = inst.order_from_ids(solve(SojournProblem(inst, Objective("B")), "dp").solution)
        rank = np.empty(inst.n)
        rank[list(order)] = np.arange(inst.n)
        return rank

    assert order_by_index(optimal_rank(Instance.from_arrays([[3], [1, 2]], [[1], [0.4, 0.6]]))) == [
        0,
        1,
    ]
    v = run_claim(
        claims()["4"], "small", 0, outdir=tmp_path, index_fn=optimal_rank, search_ns=[2],
        max_size=3, denominators=[2, 5], ns=[5], per_n=5,
    )  # fmt: skip
    assert v.verdict == "holds"
    assert v.files == []


def test_search_finds_nothing_where_there_is_nothing():
    # with integer sizes up to 2 and halves only, Smith's rule is B-optimal for n = 2
    found = smallest_counterexample([2], 2, [2], lambda i: i.mean / i.pi)
    assert found["instance"] is None and found["tried"] > 0
