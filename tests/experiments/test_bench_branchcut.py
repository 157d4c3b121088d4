"""bench_branchcut: the branch-and-cut proves the optimum a subset DP computes on matrices
whose root LP has a gap (so it branches), a search stopped early keeps a sound bound, and bad
input is refused."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from schedlab.experiments.bench.bench_branchcut import instances, solve_block
from schedlab.experiments.bench.bench_ladders import uniform_matrix
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.lop import lop_cost


def subset_dp(W: np.ndarray) -> float:
    """The least linear-ordering cost by dynamic programming over subsets, a layer of equal
    size at a time (v placed last of S pays W[u, v] for every u in S - v): independent of
    every solver."""
    n = W.shape[0]
    full = 1 << n
    S = np.arange(full)
    into = np.zeros((n, full))  # into[v, S] = sum over u in S of W[u, v]
    low = (S & -S)[1:]
    for v in range(n):
        for s, b in zip(S[1:].tolist(), low.tolist(), strict=True):
            into[v, s] = into[v, s & (s - 1)] + W[b.bit_length() - 1, v]
    f = np.full(full, np.inf)
    f[0] = 0.0
    size = np.array([bin(s).count("1") for s in range(full)])
    for k in range(1, n + 1):
        layer = S[size == k]
        best = np.full(len(layer), np.inf)
        for v in range(n):
            has = (layer >> v) & 1 == 1
            rest = layer[has] & ~(1 << v)
            best[has] = np.minimum(best[has], f[rest] + into[v, rest])
        f[layer] = best
    return float(f[-1])


def test_the_subset_dp_agrees_with_enumeration_on_a_small_matrix():
    import itertools

    W = uniform_matrix(7, 3)
    brute = min(lop_cost(W, list(p)) for p in itertools.permutations(range(7)))
    assert subset_dp(W) == brute


@pytest.mark.parametrize(("n", "seed", "opt"), [(16, 5, 4686.0), (16, 26, 5197.0), (14, 6, 3928.0)])
def test_the_branch_and_cut_proves_the_subset_dp_optimum_where_the_root_has_a_gap(n, seed, opt):
    W = uniform_matrix(n, seed)
    run = solve_block("u", W, np.zeros(W.shape, dtype=bool), time_limit=120, log=lambda _: None)
    assert subset_dp(W) == opt
    assert run.root_bound < opt - 1.0  # the root LP's bound alone does not prove it
    assert run.nodes >= 3 and run.max_depth >= 1  # it branched
    assert (run.status, run.value, run.bound) == ("optimal", opt, opt)


def test_a_search_stopped_after_one_node_reports_a_sound_bound_and_feasible():
    W = uniform_matrix(16, 26)
    run = solve_block("u", W, np.zeros(W.shape, dtype=bool), time_limit=120, max_nodes=1,
                      log=lambda _: None)  # fmt: skip
    assert run.nodes == 1 and run.status == "feasible"
    assert run.bound <= 5197.0 <= run.value and run.bound >= np.ceil(run.root_bound - 0.25)


def test_inner_crossings_are_added_to_value_and_bounds():
    W = uniform_matrix(14, 6)
    run = solve_block("u", W, np.zeros(W.shape, dtype=bool), 7.0, 120, log=lambda _: None)
    assert (run.value, run.bound) == (3935.0, 3935.0)


def test_a_folder_without_graphs_is_refused_with_the_flag_named(tmp_path):
    with pytest.raises(InvalidInput, match="--lop-dir: no .gr file"):
        instances(False, str(tmp_path))


def test_the_time_limit_flag_is_refused_for_a_benchmark_that_does_not_take_it():
    cmd = [sys.executable, "-m", "schedlab.experiments.bench", "bench_ladders", "--time-limit", "5"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert (
        out.returncode == 2
        and "--time-limit: benchmark bench_ladders does not take it" in out.stderr
    )


def test_the_cost_branching_rule_proves_the_same_optimum():
    W = uniform_matrix(16, 26)
    run = solve_block("u", W, np.zeros(W.shape, dtype=bool), time_limit=120, branching="cost",
                      log=lambda _: None)  # fmt: skip
    assert (run.status, run.value, run.bound) == ("optimal", 5197.0, 5197.0) and run.nodes >= 3


def test_an_unknown_branching_rule_is_refused_with_the_flag_named():
    from schedlab.experiments.bench.bench_branchcut import run

    with pytest.raises(InvalidInput, match="--branching: one of fractional, cost"):
        run(quick=True, branching="random")


def constrained_dp(W: np.ndarray, pairs: dict[int, int]) -> float:
    """`subset_dp` over the orders that respect `pairs` (column j of the upper triangle's pairs
    (u, v), u < v, in row order -> 1: u before v, 0: v before u), by a penalty above every
    order's cost on the other order of each."""
    iu = np.triu_indices(W.shape[0], 1)
    Wc, big = W.copy(), float(W.sum()) + 1.0
    for j, v in pairs.items():
        u, w = int(iu[0][j]), int(iu[1][j])
        Wc[(w, u) if v == 1 else (u, w)] += big  # the order the pair may not take pays `big`
    return subset_dp(Wc)


def test_every_reduced_cost_fixing_rests_on_a_bound_the_subset_dp_confirms():
    W = uniform_matrix(14, 6)
    log: list = []
    run = solve_block("u", W, np.zeros(W.shape, dtype=bool), time_limit=120, log=lambda _: None,
                      rc_log=log)  # fmt: skip
    assert (run.status, run.bound) == ("optimal", 3928.0) and run.rc_fixed == len(log) == 25
    # the orders a fixing removes (its node's pairs kept, its own pair reversed) cost at least
    # the bound it claims, and for some of them exactly that: the check is sharp
    slack = [constrained_dp(W, {**prev, j: 1 - v}) - b for prev, j, v, b in log]
    assert min(slack) == 0.0 and all(s >= 0.0 for s in slack)


def test_reduced_cost_fixing_saves_nodes_and_proves_the_same_optimum():
    W = uniform_matrix(16, 5)
    runs = [solve_block("u", W, np.zeros(W.shape, dtype=bool), time_limit=120, rc_fixing=rc,
                        log=lambda _: None) for rc in (False, True)]  # fmt: skip
    assert [(r.status, r.bound, r.rc_fixed > 0) for r in runs] == [
        ("optimal", 4686.0, False), ("optimal", 4686.0, True)]  # fmt: skip
    assert runs[1].nodes < runs[0].nodes


@pytest.mark.parametrize("bad", [0.0, -5.0, float("nan")])
def test_a_time_limit_that_is_not_positive_seconds_is_refused_with_the_flag_named(bad):
    from schedlab.experiments.bench.bench_branchcut import run

    with pytest.raises(InvalidInput, match="--time-limit"):
        run(quick=True, time_limit=bad)
