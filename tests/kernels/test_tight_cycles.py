"""kernels.tight_cycles: numba against the plain-Python loops (the same rows in the same order),
both against a brute force over every triple, and against the whole-array form lpcut used
before the kernel (the same scores picked for every reversed pair)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from schedlab.solvers.kernels.tight_cycles import TIE_WEIGHT, tight_cycles

TOL = 1e-9


def _tournament(n: int, seed: int, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """A fractional tournament with values on a grid of `levels` steps (ties among the
    violations are then common, as in LP solutions) and integer cost differences."""
    rng = np.random.default_rng(seed)
    Y = np.round(rng.random((n, n)) * levels) / levels
    Y = np.triu(Y, 1) + np.tril(1.0 - Y.T, -1)
    np.fill_diagonal(Y, 0.0)
    C = rng.integers(-5, 6, (n, n)).astype(float)
    D = np.triu(C, 1) - np.triu(C, 1).T
    return Y, D


def _brute(Yp: np.ndarray, Dp: np.ndarray, per_pair: int) -> dict[tuple[int, int], list[float]]:
    """Per reversed pair (p, r): the sorted scores of its `per_pair` best violated middles."""
    n = len(Yp)
    out: dict[tuple[int, int], list[float]] = {}
    for p in range(n):
        for r in range(p + 2, n):
            if Yp[r, p] <= TOL:
                continue
            scores = []
            for q in range(p + 1, r):
                v = Yp[p, q] + Yp[q, r] + Yp[r, p]
                if v > 2.0 + TOL:
                    scores.append(v - TIE_WEIGHT * (Dp[p, q] + Dp[q, r]))
            if scores:
                out[p, r] = sorted(scores, reverse=True)[:per_pair]
    return out


def _picked(Yp: np.ndarray, Dp: np.ndarray, rows: np.ndarray) -> dict[tuple[int, int], list]:
    got: dict[tuple[int, int], list[float]] = defaultdict(list)
    for p, q, r in rows.tolist():
        v = Yp[p, q] + Yp[q, r] + Yp[r, p]
        got[p, r].append(v - TIE_WEIGHT * (Dp[p, q] + Dp[q, r]))
    return {k: sorted(v, reverse=True) for k, v in got.items()}


def _whole_array(Yp: np.ndarray, Dp: np.ndarray, per_pair: int) -> np.ndarray:
    """lpcut's form (`exact_lpcut.incumbent_cycles`, one n x |reversed| slice per position)
    with a stable sort in place of its `np.argpartition`, whose choice and order among equal
    scores is unspecified: so the kernel's row order can be compared row for row."""
    n = len(Yp)
    out = []
    for p in range(n - 2):
        rs = np.nonzero(Yp[p + 2 :, p] > TOL)[0] + p + 2
        if not len(rs):
            continue
        q = np.arange(p + 1, n)[:, None]
        V = Yp[p, p + 1 :][:, None] + Yp[p + 1 :][:, rs] + Yp[rs, p][None, :]
        score = V - TIE_WEIGHT * (Dp[p, p + 1 :][:, None] + Dp[p + 1 :][:, rs])
        score = np.where((q < rs[None, :]) & (V > 2.0 + TOL), score, -np.inf)
        k = min(per_pair, score.shape[0])
        top = np.argsort(-score, axis=0, kind="stable")[:k]
        cols = np.broadcast_to(np.arange(len(rs)), top.shape)
        ok = np.isfinite(score[top, cols])
        out.append(np.stack([np.full(ok.sum(), p), top[ok] + p + 1, rs[cols[ok]]], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 3), dtype=np.int64)


CASES = [(9, 0, 4, 1), (14, 1, 2, 3), (25, 2, 8, 6), (30, 3, 1000, 2)]  # n, seed, levels, per_pair


@pytest.mark.parametrize("tie", ["first", "hash"])
@pytest.mark.parametrize(("n", "seed", "levels", "per_pair"), CASES)
def test_compiled_equals_plain_and_both_pick_the_brute_force_scores(n, seed, levels, per_pair, tie):
    Y, D = _tournament(n, seed, levels)
    cpu = tight_cycles(Y, D, per_pair, TOL, tie=tie)
    plain = tight_cycles(Y, D, per_pair, TOL, tie=tie, backend="numpy")
    assert np.array_equal(cpu, plain)  # the same rows, in the same order
    assert len(cpu) > 0
    assert _picked(Y, D, cpu) == _brute(Y, D, per_pair)
    p, q, r = cpu.T
    assert np.all((p < q) & (q < r))
    assert len({tuple(t) for t in cpu.tolist()}) == len(cpu)  # no row twice


def test_with_a_stable_tie_rule_it_is_the_whole_array_form_row_for_row():
    # ties to the smaller middle in both: the kernel's rows are the whole-array form's, in its
    # order (by p, then rank, then r), on a grid tournament with many equal scores
    Y, D = _tournament(40, 7, 2)
    got = tight_cycles(Y, D, 4, TOL)
    assert np.array_equal(got, _whole_array(Y, D, 4))
    assert len(got) > 100


@pytest.mark.parametrize("tie", ["first", "hash"])
def test_through_the_benchmark_wrapper_it_picks_lpcuts_scores_in_any_order(tie):
    # `bench_tight_cycles.kernel_cycles` (the kernel in the order's positions) against lpcut's
    # own `exact_lpcut.incumbent_cycles` on a shuffled order: per reversed pair the same scores
    from schedlab.experiments.bench.bench_tight_cycles import kernel_cycles
    from schedlab.solvers.sojourn.exact_lpcut import incumbent_cycles

    Y, D = _tournament(40, 11, 2)
    order = [int(i) for i in np.random.default_rng(3).permutation(40)]
    want, got = incumbent_cycles(Y, order, D, 4), kernel_cycles(tie)(Y, order, D, 4)
    assert len(got) == len(want) > 100
    pos = np.argsort(order)  # job -> position
    Yp, Dp = Y[np.ix_(order, order)], D[np.ix_(order, order)]
    assert _picked(Yp, Dp, pos[got]) == _picked(Yp, Dp, pos[want])


def test_the_check_can_fail_a_wrong_tie_weight_picks_other_middles():
    # with the cost differences' sign flipped the picks differ: the comparison above can fail
    Y, D = _tournament(40, 7, 2)
    assert not np.array_equal(tight_cycles(Y, -D, 4, TOL), _whole_array(Y, D, 4))


def test_small_and_degenerate_input():
    Y, D = _tournament(2, 0, 4)
    assert tight_cycles(Y, D, 3, TOL).shape == (0, 3)
    Y, D = _tournament(10, 0, 4)
    assert tight_cycles(Y, D, 0, TOL).shape == (0, 3)
    T = np.triu(np.ones((10, 10)), 1)  # a transitive tournament: nothing reversed
    assert tight_cycles(T, D, 3, TOL).shape == (0, 3)
    with pytest.raises(ValueError, match="per_pair"):
        tight_cycles(Y, D, -1, TOL)
