"""The policy DP over job states against independent oracles."""

from __future__ import annotations

import math

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance
from schedlab.theory.sojourn.policy_dp import (
    PolicySolver,
    brute_force_preemptive,
    evaluate_policy_exact,
    literal_value_B,
    optimal_policy,
    order_margin,
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
        optimal_policy(inst, "C")
    with pytest.raises(InvalidInput, match="k: give K"):
        optimal_policy(inst, "TK")
    with pytest.raises(InvalidInput, match="k: give K"):
        optimal_policy(inst, "A", k=1)
    with pytest.raises(InvalidInput, match="k: must lie"):
        optimal_policy(inst, "DK", k=3)
    big = generate(9, 1, max_checkpoints=3)
    with pytest.raises(InvalidInput, match="policy-DP limit"):
        optimal_policy(big, "B")


# ---- TK and DK: the first K successes ------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["TK", "DK"])
@pytest.mark.parametrize("k", [1, 2])
def test_tk_dk_dp_optimum_equals_brute_force_over_policies(seed, kind, k):
    inst = generate(2, 100 + seed, max_checkpoints=2)
    dp = optimal_policy(inst, kind, "preemptive", k=k).value
    assert math.isclose(dp, brute_force_preemptive(inst, kind, k=k), rel_tol=REL)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["TK", "DK"])
def test_tk_dk_fixed_order_dp_matches_closed_form_and_enumeration(seed, kind):
    inst = generate(4, 300 + seed, max_checkpoints=3)
    order = list(range(inst.n))[::-1]
    for k in range(1, inst.n + 1):
        obj = Objective(kind, k)
        fixed = optimal_policy(inst, kind, "fixed", order, k=k)
        assert math.isclose(fixed.value, evaluate(inst, order, obj), rel_tol=REL)
        assert math.isclose(
            evaluate_policy_exact(inst, fixed.policy, kind, k), fixed.value, rel_tol=REL
        )
        pre = optimal_policy(inst, kind, "preemptive", k=k)
        ad = optimal_policy(inst, kind, "adaptive", k=k)
        assert pre.value <= ad.value * (1 + REL) <= fixed.value * (1 + REL) ** 2
        assert math.isclose(
            evaluate_policy_exact(inst, pre.policy, kind, k), pre.value, rel_tol=REL
        )


def test_hand_computed_tk_and_dk():
    # a: cancelled at 1 w.p. .5, else succeeds at 4; b: succeeds at 2 surely
    inst = Instance.from_arrays([[1, 4], [2]], [[0.5, 0.5], [1.0]])
    # K = 1, b first: T1 = 2; a first: .5 * 4 + .5 * (1 + 2) = 3.5 -> 2 (also D1 = 2)
    assert math.isclose(optimal_policy(inst, "TK", "preemptive", k=1).value, 2.0)
    assert math.isclose(optimal_policy(inst, "DK", "preemptive", k=1).value, 2.0)
    # K = 2, b first: .5 * 6 + .5 * 3 (only one success: makespan) = 4.5; a first: .5 * 6 +
    # .5 * 3 = 4.5 -> TK = 4.5; DK, b first: .5 * (2 + 6) + .5 * 2 = 5; a first: .5 * (4 + 6)
    # + .5 * 3 = 6.5 -> 5
    assert math.isclose(optimal_policy(inst, "TK", "preemptive", k=2).value, 4.5)
    assert math.isclose(optimal_policy(inst, "DK", "preemptive", k=2).value, 5.0)


def test_order_margin_sign_tells_whether_the_order_is_optimal():
    inst = Instance.from_arrays([[1, 4], [2]], [[0.5, 0.5], [1.0]])
    good, bad = [1, 0], [0, 1]
    # DK, K = 2: b first costs 5. a first, then b after a's outcome: 6.5 run to the end; with
    # a switch to b when a survives its checkpoint: .5 * 3 + .5 * (3 + 6) = 6 (preemptive)
    for mode, gap in (("preemptive", 1.0 / 5), ("adaptive", 1.5 / 5)):
        solver = PolicySolver(inst, "DK", mode, k=2)
        assert math.isclose(order_margin(solver, good), gap)
        assert math.isclose(order_margin(solver, bad), -gap)
    # TK with K = 2 ties both first steps (4.5 each): ties are left out, no margin is left
    assert order_margin(PolicySolver(inst, "TK", "preemptive", k=2), good) == float("inf")
