"""The policy DP over job states against independent oracles."""

from __future__ import annotations

import math

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.sojourn.policy_dp import (
    brute_force_preemptive,
    evaluate_policy_exact,
    literal_value_B,
    optimal_policy,
)

REL = 1e-9


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["A", "B"])
def test_dp_optimum_equals_brute_force_over_policies(seed, kind):
    # every deterministic Markov preemptive policy of a 2-job instance, evaluated by enumeration
    inst = generate(2, 100 + seed, max_checkpoints=2)
    dp = optimal_policy(inst, kind, "preemptive").value
    assert math.isclose(dp, brute_force_preemptive(inst, kind), rel_tol=REL)


@pytest.mark.parametrize("seed", range(8))
def test_affine_reduction_equals_literal_state_sum_dp(seed):
    inst = generate(3, 200 + seed, max_checkpoints=2)
    for mode in ("preemptive", "adaptive"):
        assert math.isclose(
            optimal_policy(inst, "B", mode).value, literal_value_B(inst, mode), rel_tol=REL
        )


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("kind", ["A", "B"])
def test_fixed_order_dp_matches_closed_form_and_policies_nest(seed, kind):
    inst = generate(4, 300 + seed, max_checkpoints=3)
    order = list(range(inst.n))[::-1]
    fixed = optimal_policy(inst, kind, "fixed", order)
    assert math.isclose(fixed.value, evaluate(inst, order, Objective(kind)), rel_tol=REL)
    pre = optimal_policy(inst, kind, "preemptive")
    ad = optimal_policy(inst, kind, "adaptive")
    assert pre.value <= ad.value * (1 + REL) <= fixed.value * (1 + REL) ** 2
    # the optimal policy's value re-evaluated by enumerating every joint outcome
    assert math.isclose(evaluate_policy_exact(inst, pre.policy, kind), pre.value, rel_tol=REL)


def test_hand_computed_adaptive_policy_value():
    # a: 1 w.p. .5 (cancel) or 4 (success); b: 2 surely. A = E[sum of successful completions]
    inst = Instance.from_arrays([[1, 4], [2]], [[0.5, 0.5], [1.0]])
    # b first: 2 + .5 * 6 = 5; a first: .5 * 4 + (.5 * 6 + .5 * 3) = 6.5
    assert math.isclose(optimal_policy(inst, "A", "adaptive").value, 5.0)
    # B, b first: .5 * (2 + 6) / 2 + .5 * 2 = 3; a first: .5 * (4 + 6) / 2 + .5 * 3 = 4
    assert math.isclose(optimal_policy(inst, "B", "adaptive").value, 3.0)


def test_bad_arguments():
    inst = generate(2, 1)
    with pytest.raises(InvalidInput, match="mode"):
        optimal_policy(inst, "A", "sometimes")
    with pytest.raises(InvalidInput, match="order"):
        optimal_policy(inst, "A", "fixed")
    with pytest.raises(InvalidInput, match="objective"):
        optimal_policy(inst, "TK")
    big = generate(9, 1, max_checkpoints=3)
    with pytest.raises(InvalidInput, match="policy-DP limit"):
        optimal_policy(big, "B")
