"""`kernels.cycle_rows`: the compiled loops against the plain ones, against the vectorised
numpy form that `exact_lpcut.incumbent_cycles` used before (kept here as the reference), and
the tie rule."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.kernels.cycle_rows import tight_cycles

TOL = 1e-6


def _vectorised(Yp: np.ndarray, Dp: np.ndarray, k: int) -> set[tuple[int, int, int]]:
    """The former numpy form (argpartition per p): the same rows as a set where no scores tie."""
    n = len(Yp)
    out: set[tuple[int, int, int]] = set()
    for p in range(n - 2):
        rs = np.nonzero(Yp[p + 2 :, p] > TOL)[0] + p + 2
        if not len(rs):
            continue
        q = np.arange(p + 1, n)[:, None]
        V = Yp[p, p + 1 :][:, None] + Yp[p + 1 :][:, rs] + Yp[rs, p][None, :]
        score = V - 1e-4 * (Dp[p, p + 1 :][:, None] + Dp[p + 1 :][:, rs])
        score = np.where((q < rs[None, :]) & (V > 2.0 + TOL), score, -np.inf)
        top = np.argsort(-score, axis=0)[: min(k, score.shape[0])]
        for j, c in zip(*np.nonzero(np.isfinite(score[top, np.arange(len(rs))])), strict=True):
            out.add((p, int(top[j, c]) + p + 1, int(rs[c])))
    return out


def _tournament(rng: np.random.Generator, n: int, grid: bool) -> np.ndarray:
    """A random fractional tournament: Y[a, b] + Y[b, a] = 1 off the diagonal; `grid`: shares in
    {0, 1/2, 1}, so that many scores tie."""
    up = rng.integers(0, 3, (n, n)) / 2.0 if grid else rng.random((n, n))
    up = np.where(rng.random((n, n)) < 0.4, np.round(up), up)
    Y = np.triu(up, 1)
    Y = Y + np.tril(1.0 - Y.T, -1)
    np.fill_diagonal(Y, 0.0)
    return Y


def _costs(rng: np.random.Generator, n: int, grid: bool) -> np.ndarray:
    W = rng.integers(0, 4, (n, n)).astype(float) if grid else rng.random((n, n))
    return W - W.T


@pytest.mark.parametrize("seed", range(6))
def test_the_rows_are_the_vectorised_forms_where_no_score_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(8, 40)), int(rng.integers(1, 5))
    Y, D = _tournament(rng, n, False), _costs(rng, n, False)
    got = tight_cycles(Y, D, k, TOL)
    assert len(got) > 0
    assert set(map(tuple, got.tolist())) == _vectorised(Y, D, k)
    assert len(got) == len(set(map(tuple, got.tolist())))


@pytest.mark.parametrize("grid", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_loops_give_the_plain_ones_rows_in_their_order(seed: int, grid: bool) -> None:
    rng = np.random.default_rng(100 + seed)
    n, k = int(rng.integers(8, 30)), int(rng.integers(1, 4))
    Y, D = _tournament(rng, n, grid), _costs(rng, n, grid)
    cpu = tight_cycles(Y, D, k, TOL)
    plain = tight_cycles(Y, D, k, TOL, backend="numpy")
    np.testing.assert_array_equal(cpu, plain)
    np.testing.assert_array_equal(tight_cycles(Y, D, k, TOL, room=1), cpu)  # the second pass


def test_every_row_is_violated_and_each_pair_keeps_its_best_k() -> None:
    rng = np.random.default_rng(7)
    n, k = 25, 2
    Y, D = _tournament(rng, n, True), _costs(rng, n, True)
    got = tight_cycles(Y, D, k, TOL)
    p, q, r = got.T
    assert np.all((p < q) & (q < r))
    v = Y[p, q] + Y[q, r] + Y[r, p]
    assert np.all(v > 2.0 + TOL)
    for a, c in set(zip(p.tolist(), r.tolist(), strict=True)):
        mid = [b for b in range(a + 1, c) if Y[a, b] + Y[b, c] + Y[c, a] > 2.0 + TOL]
        score = {b: Y[a, b] + Y[b, c] + Y[c, a] - 1e-4 * (D[a, b] + D[b, c]) for b in mid}
        kept = q[(p == a) & (r == c)].tolist()
        assert kept == sorted(mid, key=lambda b: (-score[b], b))[:k]  # by score, then by b


def test_a_tie_goes_to_the_earlier_middle_job_and_rows_come_by_rank() -> None:
    n = 5
    Y = np.zeros((n, n))
    for a in range(n):
        for b in range(a + 1, n):
            Y[a, b] = 1.0
    Y[3, 0], Y[0, 3] = 1.0, 0.0  # 0 -> q -> 3 -> 0 violated by 1 for q = 1, 2
    Y[4, 0], Y[0, 4] = 1.0, 0.0  # 0 -> q -> 4 -> 0 for q = 1, 2 (not 3: 0 -> 3 is reversed)
    got = tight_cycles(Y, np.zeros((n, n)), 2, TOL).tolist()
    # the best of (0, 3) and of (0, 4) by r, then the second best of each
    assert got == [[0, 1, 3], [0, 1, 4], [0, 2, 3], [0, 2, 4]]
    assert tight_cycles(Y, np.zeros((n, n)), 1, TOL).tolist() == [[0, 1, 3], [0, 1, 4]]
