"""The cycle-packing certificate of lpcut: sound on any weights, exact on the cyclic family
(against the subset DP and brute force), both pricing modes reached, and the deadline kept."""

from __future__ import annotations

import itertools
import time
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from schedlab.solvers import validate
from schedlab.solvers.lop.core import (
    insertion_descent,
    lop_cost,
    pairwise_min_bound,
    preference_tournament,
)
from schedlab.solvers.lop.cyclepack import (
    DEFAULT_PACKING,
    Columns,
    CyclePacker,
    _incidence,
    _next_step,
    _stalled,
    cycle_columns,
)
from schedlab.solvers.lop.lpcut import model as exact_lpcut
from schedlab.solvers.lop.lpcut.model import block_close_abs
from schedlab.solvers.result import PROOF_TOL, Status
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve
from schedlab.solvers.validate import Deadline

B = Objective("B")


def _weights(n: int, seed: int) -> tuple[float, np.ndarray]:
    c, W = linear_ordering_weights(generate(n, seed, family="cyclic"), B)
    return float(c.sum()), W


def _orders(W: np.ndarray) -> dict[str, list[int]]:
    score = preference_tournament(W).sum(axis=1)
    return {"worst": [int(i) for i in np.argsort(score)],
            "preference": [int(i) for i in np.argsort(-score)]}  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_any_weights_on_any_cycles_bound_the_brute_force_optimum(seed):
    # random cycles from the pricing of random duals, random (overloaded) weights: the shaved
    # packing never exceeds the best order's pair cost
    _, W = _weights(7, seed)
    opt = min(lop_cost(W, p) for p in itertools.permutations(range(7)))
    cp = CyclePacker(W)
    rng = np.random.default_rng(seed)
    cols = cp._price_general(rng.random(len(cp.cap)) * 0.3, 0.0, 1000)
    assert cols, "a cyclic instance has cycles"
    for _ in range(20):
        mu = rng.random(len(cols)) * rng.choice([0.01, 1.0, 10.0])
        assert cp.bound_of(cols, mu) <= opt + 1e-12 * abs(opt)
    assert cp.bound_of([], np.zeros(0)) == cp.pair_min <= opt


@pytest.mark.parametrize("seed", range(3))
def test_the_fill_only_adds_to_a_sound_bound(seed):
    # random weights on the pricing's columns (none, small, or overloaded), shaved, then
    # filled by 3-cycles that reverse one arc of an order: the bound never drops and never
    # exceeds the brute-force optimum, and each fill column is a directed 3-cycle of T
    _, W = _weights(7, seed)
    opt = min(lop_cost(W, p) for p in itertools.permutations(range(7)))
    cp = CyclePacker(W)
    order = _orders(W)["worst"]  # the order that reverses the most arcs
    cols = cp._price(order, cp._first_lengths(), 1e-4)
    rng = np.random.default_rng(seed)
    sizes = []
    for scale in (0.0, 0.01, 0.3, 3.0):  # 0: the fill alone, a greedy packing of 3-cycles
        mu = rng.random(len(cols)) * scale
        shaved, fill, weight = cp._filled(order, cols, mu)
        sizes.append(len(fill))
        filled = cp.bound_of(cols + fill, np.concatenate([shaved, weight]))
        assert cp.bound_of(cols, mu) - 1e-12 * abs(opt) <= filled <= opt + 1e-12 * abs(opt)
        for j in range(len(fill)):
            ids = fill.ids[fill.ptr[j] : fill.ptr[j + 1]]
            on = np.isin(cp.pid, ids) & cp.pref  # the arcs of T on the cycle's pairs
            heads = {int(a): int(b) for a, b in zip(*np.nonzero(on), strict=True)}
            assert len(ids) == 3 and len(heads) == 3  # each node leaves by one arc of T
            a = next(iter(heads))
            assert heads[heads[heads[a]]] == a
    assert sizes[0] > 0  # an empty packing leaves room: the checks above ran on real cycles


def test_flat_columns_hold_the_same_cycles_as_a_list():
    # the flat form (one id array and offsets) against the list it came from: joined, filtered,
    # and the master's arc-by-column matrix; a node cycle closes from its last node to its first
    rng = np.random.default_rng(0)
    cols = [rng.choice(30, size=k, replace=False) for k in rng.integers(3, 7, size=25)]
    flat = Columns.of(cols[:10]) + Columns.of(cols[10:])
    assert len(flat) == 25 and flat.lens().tolist() == [len(c) for c in cols]
    keep = rng.random(25) < 0.5
    kept = flat.select(keep)
    want = [c for c, k in zip(cols, keep, strict=True) if k]
    assert [kept.ids[kept.ptr[j] : kept.ptr[j + 1]].tolist() for j in range(len(kept))] == [
        c.tolist() for c in want
    ]
    used, A = _incidence(flat)
    dense = np.zeros((30, 25))
    for j, c in enumerate(cols):
        dense[c, j] = 1.0
    unused = np.setdiff1d(np.arange(30), used)
    assert np.array_equal(A.toarray(), dense[used]) and not dense[unused].any()
    pid = np.arange(16).reshape(4, 4)
    tri = cycle_columns(pid, np.array([0, 1, 2, 3, 1]), np.array([0, 3, 5]))
    assert tri.ids.tolist() == [pid[0, 1], pid[1, 2], pid[2, 0], pid[3, 1], pid[1, 3]]


@pytest.mark.parametrize(("n", "seed"), [(12, 1), (14, 2), (16, 3), (20, 12_000)])
def test_certificate_closes_at_the_dp_optimum_from_insertion_descent(n, seed):
    inst = generate(n, seed, family="cyclic")
    const, W = _weights(n, seed)
    ref = solve(SojournProblem(inst, B), "dp").value - const
    start = insertion_descent(W, _orders(W)["preference"])
    out = CyclePacker(W, seed=0).certify(start, block_close_abs(W))
    assert out.closed and out.stats["packing_rounds"] >= 1
    assert abs(out.cost - ref) <= 1e-9 * ref and out.bound <= ref + 1e-12 * ref


@pytest.mark.parametrize(
    ("n", "seed", "start", "fill"),
    [(16, 1, "worst", True), (16, 1, "worst", False), (16, 5, "worst", False)],
)
def test_stalled_restricted_pricing_gives_way_to_every_cycle_then_exact_masters(
    n, seed, start, fill
):
    # from these orders the loose (PDLP) masters stall short of the optimum; pricing over every
    # cycle of T finds nothing at their duals, and the tight (interior point) master, priced
    # without the tie-break, closes the block (searched over seeds 0-29, both starting orders,
    # after the first pricing took the widest paths and before the fill: only these two reached
    # both fallbacks; with the fill, searched over n = 16, 20, seeds 0-39, only the first)
    inst = generate(n, seed, family="cyclic")
    const, W = _weights(n, seed)
    ref = solve(SojournProblem(inst, B), "dp").value - const
    out = CyclePacker(W, seed=0, fill=fill).certify(_orders(W)[start], block_close_abs(W))
    assert "packing_general_from_round" in out.stats and "packing_exact_from_round" in out.stats
    assert out.closed and abs(out.cost - ref) <= 1e-9 * ref


def test_a_stall_at_the_loose_tolerance_tightens_the_master_before_pricing_every_cycle():
    # the first masters run at LOOSE_TOL; this start stalls there, goes on at FINE_TOL, and
    # only then prices every cycle of T; the proof is still the subset DP's optimum (without
    # the fill, with which this start never stalls at LOOSE_TOL: the ladder's order is tested)
    inst = generate(16, 1, family="cyclic")
    const, W = _weights(16, 1)
    ref = solve(SojournProblem(inst, B), "dp").value - const
    out = CyclePacker(W, seed=0, fill=False).certify(_orders(W)["worst"], block_close_abs(W))
    assert out.stats["packing_fine_from_round"] <= out.stats["packing_general_from_round"]
    assert out.closed and abs(out.cost - ref) <= 1e-9 * ref and out.bound <= ref + 1e-12 * ref


def test_with_the_fill_a_stall_at_the_loose_tolerance_still_tightens_the_master():
    # with the fill on, this start stalls at LOOSE_TOL in round 6 (searched over n = 24, 30,
    # seeds 0-29: the only stall found) and closes at FINE_TOL; the reference is the LP rounds
    # and MIP with no packing, an independent method
    inst = generate(30, 27, family="cyclic")
    const, W = _weights(30, 27)
    ref = solve(SojournProblem(inst, B), "lpcut", seed=0, options={"route": "lp"})
    assert ref.status is Status.OPTIMAL
    out = CyclePacker(W, seed=0).certify(_orders(W)["preference"], block_close_abs(W))
    assert out.stats["packing_fine_from_round"] == 6 and out.stats["packing_fill_columns"] > 0
    assert out.closed and abs(out.cost + const - ref.value) <= 1e-9 * ref.value
    assert out.bound <= ref.value - const + 1e-9 * ref.value


def test_an_expired_deadline_runs_nothing_and_keeps_a_sound_bound():
    _, W = _weights(30, 4)
    start = _orders(W)["preference"]
    out = CyclePacker(W, seed=0).certify(start, block_close_abs(W), Deadline(time.perf_counter()))
    assert not out.closed and out.stats["packing_rounds"] == 0
    assert out.bound == CyclePacker(W).pair_min <= out.cost == lop_cost(W, start)


@pytest.mark.parametrize("seed", range(4))
def test_lpcut_with_and_without_packing_and_with_either_master_equal_brute_force(seed):
    inst = generate(8, seed, family="cyclic")
    ref = solve(SojournProblem(inst, B), "brute").value
    for packing, master in ((True, "pdlp"), (True, "ipm"), (False, "pdlp")):
        r = solve(
            SojournProblem(inst, B),
            "lpcut",
            seed=0,
            options={"packing": packing, "packing_master": master},
        )
        assert r.status is Status.OPTIMAL and abs(r.value - ref) <= 1e-9 * ref
        assert r.stats["packing"] is packing and r.stats["packing_master"] == master


def test_lpcut_closes_a_60_job_block_by_the_packing():
    inst = generate(60, 16_000, family="cyclic")
    r = solve(SojournProblem(inst, B), "lpcut", seed=0)
    ref = solve(SojournProblem(inst, B), "lpcut", seed=0, options={"packing": False})
    assert r.status is Status.OPTIMAL and ref.status is Status.OPTIMAL
    assert r.stats["closed_by_packing"] == 1 and r.stats["largest_block"] >= 48
    assert abs(r.value - ref.value) <= 1e-9 * ref.value
    two = solve(SojournProblem(inst, B), "lpcut", seed=0, options={"threads": 2})
    assert (r.stats["threads"], two.stats["threads"]) == (1, 2)
    assert (two.value, two.bound, two.solution) == (r.value, r.bound, r.solution)


def test_pdlp_threads_change_no_round_of_the_packing():
    # PDLP works over PDLP_SHARDS fixed shards, so its iterates, and every round after them,
    # are the same on one thread or two (with its default shards, which follow the threads,
    # the bounds differ here in the last digits): only the time differs
    _, W = _weights(100, 20_000)
    start = insertion_descent(W, _orders(W)["worst"])
    slack = block_close_abs(W)
    one, two = (CyclePacker(W, seed=0, threads=t).certify(start, slack) for t in (1, 2))
    assert one.closed and one.stats["packing_rounds"] >= 3
    counts = [{k: v for k, v in r.stats.items() if not k.endswith("_s")} for r in (one, two)]
    assert (one.bound, one.order, counts[0]) == (two.bound, two.order, counts[1])  # not the times


def test_a_stopped_packing_leaves_no_mip_to_overrun_the_limit(monkeypatch):
    # the packing is cut short by the limit and no LP round runs after it, so nothing sizes the
    # MIP's root: it is skipped (a MIP started in the time left once overran by 0.9 s). On a
    # fake clock, whatever the machine's speed, the LP phase's share of the limit passes right
    # after the packing's first master round, with time still left for a MIP
    LIMIT = 600.0
    clock = [0.0]
    monkeypatch.setattr(validate, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    real_master = CyclePacker._master

    def master_then_expire(self: CyclePacker, *args: Any) -> Any:
        solved = real_master(self, *args)
        clock[0] = LIMIT - 10.0  # past the LP share (95 %), 10 s before the limit
        return solved

    def no_mip(self: Any, deadline: Any) -> Any:
        raise AssertionError("a MIP was started after a packing stopped by the limit")

    monkeypatch.setattr(CyclePacker, "_master", master_then_expire)
    monkeypatch.setattr(exact_lpcut.HighsCutModel, "_run_mip", no_mip)
    inst = generate(300, 40_001, family="cyclic")  # 12.6 s of CPU to prove
    r = solve(SojournProblem(inst, B), "lpcut", time_limit=LIMIT, seed=0)
    assert r.status is Status.FEASIBLE and r.bound is not None and r.bound <= r.value
    assert r.stats["packing_rounds"] == 1 and r.stats["mip_skipped_for_time"] == 1


def test_both_master_solvers_close_the_same_block_at_the_dp_optimum():
    # the loose rounds by PDLP (default) and by HiGHS's interior point reach the same proof
    const, W = _weights(20, 2)
    ref = solve(SojournProblem(generate(20, 2, family="cyclic"), B), "dp").value - const
    start = insertion_descent(W, _orders(W)["preference"])
    for master in ("pdlp", "ipm"):
        out = CyclePacker(W, seed=0, master=master).certify(start, block_close_abs(W))
        assert out.closed and abs(out.cost - ref) <= 1e-9 * ref and out.bound <= ref


def test_a_stall_of_every_cycle_pricing_tightens_the_master_then_goes_exact():
    # this start stalls at LOOSE_TOL, at FINE_TOL, then with every cycle of T priced at FINE_TOL
    # and at TIGHT_TOL; the exact master closes it (searched over n = 16, 20, 24, seeds 0-29,
    # both starts: before the TIGHT_TOL and exact steps existed, it ran its 100 rounds open).
    # The reference is the LP-and-MIP route with no packing, an independent method. The slack
    # is the one the search used: half the proof tolerance of the pair cost (the blocks' slacks
    # are wider now, `lop.block_slacks`, and this start closes before the exact step with them).
    # Without the fill, as in that search: with it this start never stalls
    inst = generate(20, 10, family="cyclic")
    const, W = _weights(20, 10)
    ref = solve(SojournProblem(inst, B), "lpcut", seed=0, options={"route": "lp"})
    assert ref.status is Status.OPTIMAL
    slack = 0.5 * PROOF_TOL * pairwise_min_bound(W)
    out = CyclePacker(W, seed=0, fill=False).certify(_orders(W)["worst"], slack)
    steps = [out.stats[f"packing_{k}_from_round"] for k in ("fine", "general", "tight", "exact")]
    assert steps == sorted(steps)
    assert out.closed and abs(out.cost + const - ref.value) <= 1e-9 * ref.value
    assert out.bound <= ref.value - const + 1e-9 * ref.value


@pytest.mark.parametrize(
    ("loose", "general", "step"),
    [
        (DEFAULT_PACKING.loose_tol, False, "fine"),
        (DEFAULT_PACKING.fine_tol, False, "general"),
        (DEFAULT_PACKING.fine_tol, True, "tight"),
        (DEFAULT_PACKING.tight_tol, True, "exact"),
    ],  # fmt: skip
)
def test_the_stall_ladder(loose, general, step):
    assert _next_step(loose, general, DEFAULT_PACKING) == step


@pytest.mark.parametrize(
    ("gaps", "general", "stalled"),
    [
        ([3.0, 2.5, 2.1], False, True),  # 0.9 slacks gained, 2 to go
        ([3.0, 2.0, 1.9], False, False),  # 1.1 slacks gained: as before
        ([1.73, 1.31, 1.02], False, False),  # 0.71 gained, 0.73 to go (a stall before)
        ([1.5, 1.4, 1.3], False, True),  # 0.2 gained, 0.5 to go
        ([1.06, 1.05, 1.03], False, True),  # creeping: below TAIL_GAIN of a slack
        ([1.09, 1.05, 1.03], False, False),  # 0.06 gained, 0.09 to go
        ([1.5, 1.48, 1.46], True, True),  # every cycle priced: TAIL_GAIN of the slack
        ([1.5, 1.47, 1.44], True, False),
        ([2.0, 1.0], False, False),  # too few rounds to tell
    ],  # fmt: skip
)
def test_a_stall_is_judged_against_the_slack_and_what_is_left_to_close(gaps, general, stalled):
    # gaps in closing slacks below a cost of 100, slack 1e-3 (one slack left is closed)
    cost, slack = 100.0, 1e-3
    history = [cost - g * slack for g in gaps]
    t = DEFAULT_PACKING
    assert t.stall_rounds == 2 and t.stall_need == 0.5 and t.tail_gain == 0.05
    assert _stalled(history, slack, cost - slack, general, t) is stalled


def test_early_masters_are_as_coarse_as_a_tenth_of_the_gap_allows():
    _, W = _weights(12, 0)
    cp = CyclePacker(W)
    t = cp.tuning
    deficit = 1.0
    cost = cp.pair_min + deficit
    assert cp._early_tol(t.loose_tol, cost, cp.pair_min) == t.early_tol  # gap = the whole deficit
    assert cp._early_tol(t.loose_tol, cost, cost - 0.05) == pytest.approx(t.gap_share * 0.05)
    assert cp._early_tol(t.loose_tol, cost, cost - 1e-4) == t.loose_tol  # never finer than loose
    assert cp._early_tol(t.fine_tol, cost, cp.pair_min) == t.fine_tol  # tightened: left alone
