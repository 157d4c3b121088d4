"""Linear-ordering helpers: blocks, 3-cycle detection, bound conversion, CBC log parsing."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from schedlab.solvers.kit.mip import cbc_log_bound
from schedlab.solvers.lop.core import (
    SLACK_SHARE,
    RoundResult,
    before_matrix,
    block_slacks,
    lop_cost,
    order_from_before,
    pairwise_min_bound,
    preference_blocks,
    three_cycles,
    triangles_all,
)
from schedlab.solvers.result import PROOF_TOL, Status
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.exact_cpsat import CpSatBlockModel, scale_costs
from schedlab.solvers.sojourn.exact_milp import PulpBlockModel
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.lop import solve_lop
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve
from schedlab.solvers.validate import NO_DEADLINE, Deadline


def brute_min(W: np.ndarray) -> float:
    """min over all orders of sum_{a before b} W[a, b], vectorized over the orders."""
    n = W.shape[0]
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)
    cost = np.zeros(len(perms))
    for x, y in itertools.combinations(range(n), 2):
        cost += W[perms[:, x], perms[:, y]]
    return float(cost.min())


def test_three_cycles_certify_transitivity():
    rng = np.random.default_rng(0)
    for n in range(1, 7):
        for _ in range(30):
            upper = np.triu(rng.random((n, n)) < 0.5, 1)
            before = upper | np.tril(~upper.T, -1)  # a random tournament
            transitive = any(
                np.array_equal(before, before_matrix(p, n))
                for p in itertools.permutations(range(n))
            )
            assert (not three_cycles(before)) == transitive
            if transitive:
                assert np.array_equal(before_matrix(order_from_before(before), n), before)


def test_blocks_cut_only_strictly_preferred_pairs_and_keep_the_optimum():
    rng = np.random.default_rng(1)
    for trial in range(40):
        n = 7
        W = rng.random((n, n))
        if trial % 2:  # plant an order with a few reversed (cyclic) pairs
            pos = rng.permutation(n)
            W = np.where(pos[:, None] < pos[None, :], 0.2, 1.0) * W
        np.fill_diagonal(W, 0.0)
        blocks = preference_blocks(W)
        assert sorted(np.concatenate(blocks).tolist()) == list(range(n))
        for p, bp in enumerate(blocks):
            for bq in blocks[p + 1 :]:
                assert (W[np.ix_(bp, bq)] < W[np.ix_(bq, bp)].T).all()
        # the optimum is the sum of block optima plus the fixed cross-block cost
        total = sum(brute_min(W[np.ix_(b, b)]) for b in blocks)
        total += sum(
            W[np.ix_(bp, bq)].sum() for p, bp in enumerate(blocks) for bq in blocks[p + 1 :]
        )
        assert math.isclose(total, brute_min(W), rel_tol=1e-12)
        assert pairwise_min_bound(W) <= brute_min(W) + 1e-12


def test_ties_within_tolerance_are_never_cut():
    W = np.array([[0.0, 1.0, 1.0], [1.0 + 1e-14, 0.0, 2.0], [3.0, 1.0, 0.0]])
    blocks = preference_blocks(W)
    together = [b for b in blocks if 0 in b][0]
    assert 1 in together  # |W01 - W10| is rounding-sized: a tie, same block


def test_scaled_bound_is_sound_for_every_assignment():
    rng = np.random.default_rng(2)
    for bits in (8, 12, 40):
        d = rng.normal(size=200) * 10.0 ** rng.uniform(-6, 2, size=200)
        w, flip, s, shift = scale_costs(d, bits)
        assert (w >= 0).all() and (w / s <= np.abs(d)).all()
        for _ in range(200):
            x = rng.random(200) < 0.5
            lit = np.where(flip, ~x, x)
            scaled = shift + w[lit].sum() / s
            assert d[x].sum() >= scaled - 1e-12 * np.abs(d).sum()  # a relaxation: no slack
            # off by at most 1/s per pair placed against its preference
            assert d[x].sum() - scaled <= lit.sum() / s + 1e-12 * np.abs(d).sum()


def test_scaled_bound_has_no_cancellation_against_a_large_constant():
    # pairs strongly ordered both ways (d = -74, -3700): the order that respects them costs
    # exactly its scaled cost, so a value of ~1 is proven although max |d| = 3700
    d = np.array([-74.0, -3700.0, 0.0])
    w, flip, s, shift = scale_costs(d, 40)
    x = np.array([True, True, True])
    lit = np.where(flip, ~x, x)
    assert d[x].sum() == shift + w[lit].sum() / s


def test_block_models_prove_random_lops():
    rng = np.random.default_rng(3)
    W = rng.random((7, 7))
    np.fill_diagonal(W, 0.0)
    best = brute_min(W)
    models = [PulpBlockModel(W, "highs", 1e-12, 0), PulpBlockModel(W, "cbc", 1e-12, 0)]
    models.append(
        CpSatBlockModel(W, num_workers=1, seed=0, max_deterministic_time=None, scale_bits=None)
    )
    for m in models:
        m.add_triangles(triangles_all(7))
        r = m.solve(Deadline.after(30.0), None)
        assert r.proven and r.before is not None
        assert math.isclose(lop_cost(W, order_from_before(r.before)), best, rel_tol=1e-9)
        assert r.bound is not None and r.bound <= best + 1e-9
        assert r.bound >= best - 1e-8


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        (
            "Result - Stopped on time limit\n\nObjective value: -50.1\nLower bound:  -52.733\n",
            -52.734,
        ),
        ("Cbc0010I After 100 nodes, best possible -52.733116 (1.2 seconds)\n", -52.733117),
        ("Cbc0010I best possible 1.5e+02 (1 s)\nCbc0010I best possible 1.6e+02 (2 s)\n", 150.0),
        ("Result - Stopped on time limit\nNo feasible solution found\n", None),
    ],
)
def test_cbc_log_bound_rounds_down(log, expected):
    got = cbc_log_bound(log)
    if expected is None:
        assert got is None
    else:
        assert got is not None and math.isclose(got, expected, rel_tol=1e-12)


class CrossingModel:
    """A fake back end: returns `order` as proven optimal with a bound `excess` above its cost.

    HiGHS and CBC stop within their own tolerances, so a real MIP dual bound can sit a hair
    above the value of the order it returns (seen at n = 80 and 100 with large blocks).
    """

    def __init__(self, Wb: np.ndarray, order: list[int], excess: float) -> None:
        self.Wb, self.order, self.excess = Wb, order, excess

    def add_triangles(self, triples) -> None:
        pass

    def solve(self, deadline, hint) -> RoundResult:
        n = self.Wb.shape[0]
        bound = lop_cost(self.Wb, self.order) + self.excess
        return RoundResult(before_matrix(self.order, n), True, bound, {})


@pytest.mark.parametrize("triangles", ["lazy", "all"])
def test_a_bound_crossing_the_value_within_tolerance_is_clamped_not_raised(triangles):
    # generate(8, 1863, max_checkpoints=2) has a cyclic B tournament (theory.sojourn.lop)
    inst = generate(8, 1863, max_checkpoints=2)
    obj = Objective("B")
    ref = solve(SojournProblem(inst, obj), "dp")
    order = inst.order_from_ids(ref.solution)
    value = evaluate(inst, order, obj)
    excess = 1e-8 * value  # above the 1e-9 proof tolerance (the old RuntimeError), below 1e-6
    res = solve_lop(
        inst, obj, "fake", lambda Wb, _dl, _slack: CrossingModel(Wb, list(order), excess),
        deadline=NO_DEADLINE, triangles=triangles, decompose=False,
    )  # fmt: skip
    assert res.status is Status.OPTIMAL
    assert res.bound == res.value and math.isclose(res.value, value, rel_tol=1e-12)
    assert math.isclose(res.stats["bound_clamped"], excess, rel_tol=1e-3)
    assert res.stats["all_blocks_closed"] is True


def test_a_bound_far_above_the_value_is_an_error_status_not_a_crash():
    inst = generate(8, 1863, max_checkpoints=2)
    obj = Objective("B")
    order = list(range(inst.n))
    excess = 1e-3 * evaluate(inst, order, obj)
    res = solve_lop(
        inst, obj, "fake", lambda Wb, _dl, _slack: CrossingModel(Wb, order, excess),
        deadline=NO_DEADLINE, decompose=False,
    )  # fmt: skip
    assert res.status is Status.ERROR and res.bound is None
    assert "crosses value" in res.stats["error"]
    assert sorted(res.solution) == sorted(inst.ids)


@pytest.mark.parametrize("seed", range(3))
def test_block_slacks_stay_within_the_proof_tolerance_of_every_order(seed):
    """The blocks' slacks, B's constant term counted, sum to at most SLACK_SHARE of PROOF_TOL of the
    value of every order (brute force over the orders of n = 6), each in its block's share."""
    rng = np.random.default_rng(seed)
    W = rng.random((6, 6)) * np.triu(np.full((6, 6), 3.0), 1) + rng.random((6, 6))
    np.fill_diagonal(W, 0.0)
    blocks = [np.array([0, 1, 2]), np.array([3, 4, 5])]
    offset = 2.0 + seed
    slacks = block_slacks(W, blocks, offset)
    assert min(slacks) > 0
    assert SLACK_SHARE < 1
    assert sum(slacks) <= SLACK_SHARE * PROOF_TOL * (offset + brute_min(W)) * (1 + 1e-12)
    mins = [pairwise_min_bound(W[np.ix_(b, b)]) for b in blocks]
    assert math.isclose(slacks[0] / slacks[1], mins[0] / mins[1], rel_tol=1e-12)
    alone = block_slacks(W, [np.arange(6)], offset)[0]  # one block: the whole reserve
    want = SLACK_SHARE * PROOF_TOL * (offset + pairwise_min_bound(W))
    assert math.isclose(alone, want, rel_tol=1e-12)


def test_solve_lop_gives_the_block_its_slack_with_b_s_constant_term():
    """The factory receives SLACK_SHARE of PROOF_TOL of the constant term plus the pairwise minimum
    (about twice the slack of the pair costs alone on B), so a block closes as soon as the
    status rule of the whole value allows."""
    inst = generate(8, 1863, max_checkpoints=2)
    obj = Objective("B")
    c, W = linear_ordering_weights(inst, obj)
    order = list(range(inst.n))
    got: list[float] = []

    def factory(Wb, _dl, slack):
        got.append(slack)
        return CrossingModel(Wb, order, 0.0)

    solve_lop(inst, obj, "fake", factory, deadline=NO_DEADLINE, decompose=False)
    want = SLACK_SHARE * PROOF_TOL * (float(c.sum()) + pairwise_min_bound(W))
    assert len(got) == 1 and math.isclose(got[0], want, rel_tol=1e-12)
    assert float(c.sum()) > 0.5 * pairwise_min_bound(W)  # the constant counts: wider slack
