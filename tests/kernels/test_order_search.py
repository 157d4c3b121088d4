"""Iterated insertion search: numba against the plain-Python loops, local optimality checked move
by move, segment kicks against recomputed costs, and the multistart against brute force."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schedlab.solvers.kernels.order_search import (
    _segment_move,
    descend,
    iterated_search,
    job_descent,
    kicks,
    multistart,
)


def _cost(W: np.ndarray, order: np.ndarray) -> float:
    o = np.asarray(order)
    return float(np.triu(W[np.ix_(o, o)], 1).sum())


def _matrix(n: int, seed: int) -> np.ndarray:
    """Pair costs with many preference cycles (random, so most triples are not transitive)."""
    W = np.random.default_rng(seed).random((n, n))
    np.fill_diagonal(W, 0.0)
    return W


def _moved(order: np.ndarray, x: int, to: int) -> np.ndarray:
    o = list(order)
    o.insert(to, o.pop(x))
    return np.asarray(o)


@pytest.mark.parametrize("seed", range(4))
def test_descent_is_a_local_optimum_and_backends_agree(seed: int) -> None:
    W = _matrix(25, seed)
    start = np.random.default_rng(seed + 100).permutation(25)
    out = descend(W, start)
    assert np.array_equal(out, descend(W, start, backend="numpy"))
    assert sorted(out.tolist()) == list(range(25))
    cost = _cost(W, out)
    assert cost <= _cost(W, start)
    for x, to in itertools.permutations(range(25), 2):  # no insertion move improves it
        assert _cost(W, _moved(out, x, to)) >= cost - 1e-12


def _vectorised_job_descent(W: np.ndarray, order: list[int], max_sweeps: int = 50) -> list[int]:
    """The numpy form `lop.insertion_descent` had before it was compiled: the reference."""
    o = list(order)
    thr = 1e-13 * float(np.max(np.abs(W))) if W.size else 0.0
    for _ in range(max_sweeps):
        moved = False
        for job in list(o):
            x = o.index(job)
            oa = np.asarray(o, dtype=np.int64)
            delta = W[oa, job] - W[job, oa]
            fwd = np.cumsum(delta[x + 1 :])
            back = np.cumsum(-delta[:x][::-1])
            best, to = 0.0, x
            if len(fwd) and fwd.min() < best - thr:
                best, to = float(fwd.min()), x + 1 + int(fwd.argmin())
            if len(back) and back.min() < best - thr:
                best, to = float(back.min()), x - 1 - int(back.argmin())
            if to != x:
                o.pop(x)
                o.insert(to, job)
                moved = True
        if not moved:
            break
    return o


@pytest.mark.parametrize("seed", range(8))
def test_the_job_descent_makes_the_vectorised_forms_moves(seed: int) -> None:
    # the same local optimum, to the order: random floats, integer counts with many ties
    # (equal running sums: the first minimum behind, the nearest in front), a sweep limit
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    W = _matrix(n, seed) if seed % 2 else rng.integers(0, 3, (n, n)).astype(float)
    np.fill_diagonal(W, 0.0)
    start = rng.permutation(n).tolist()
    for sweeps in (1, 2, 50):
        want = _vectorised_job_descent(W, start, sweeps)
        assert job_descent(W, start, sweeps).tolist() == want
        assert job_descent(W, start, sweeps, backend="numpy").tolist() == want


@pytest.mark.parametrize("seed", range(6))
def test_segment_move_reports_the_cost_change(seed: int) -> None:
    rng = np.random.default_rng(seed)
    W = _matrix(12, seed)
    D = W - W.T
    o = rng.permutation(12)
    for _ in range(30):
        length = int(rng.integers(1, 12))
        a, b = (int(v) for v in rng.integers(0, 12 - length + 1, 2))
        out = np.empty_like(o)
        delta = _segment_move(D, o, out, a, length, b)
        rest = np.concatenate([o[:a], o[a + length :]])
        expect = np.concatenate([rest[:b], o[a : a + length], rest[b:]])
        assert np.array_equal(out, expect)
        assert delta == pytest.approx(_cost(W, out) - _cost(W, o), abs=1e-12)


def test_iterated_search_never_loses_to_its_descent_and_backends_agree() -> None:
    W = _matrix(30, 7)
    start = np.arange(30)
    table = kicks(30, 60, 8, seed=3)
    out = iterated_search(W, start, table)
    assert np.array_equal(out, iterated_search(W, start, table, backend="numpy"))
    assert sorted(out.tolist()) == list(range(30))
    assert _cost(W, out) <= _cost(W, descend(W, start)) + 1e-12


@pytest.mark.parametrize("patience", [0, 3, 10, 40])
def test_patience_stops_at_the_kick_the_prefix_costs_predict(patience: int) -> None:
    """With patience P the search stops at the first kick t with t - (last improving kick) > P
    and returns what the table's first t rows return; the improving kicks are read off the
    costs of every prefix of the table (the path over a prefix is the path's start)."""
    W = _matrix(30, 11)
    start = np.arange(30)
    table = kicks(30, 150, 8, seed=5)
    costs = [_cost(W, iterated_search(W, start, table[:k])) for k in range(len(table) + 1)]
    last, stop = -1, len(table)
    for t in range(len(table)):
        if t - last > patience:
            stop = t
            break
        if costs[t + 1] < costs[t] - 1e-9:
            last = t
    out = iterated_search(W, start, table, patience=patience)
    assert np.array_equal(out, iterated_search(W, start, table[:stop]))
    assert np.array_equal(out, iterated_search(W, start, table, patience=patience, backend="numpy"))
    assert stop < len(table)  # pinned: each of these patiences cuts this table short


@pytest.mark.parametrize("seed", range(5))
def test_multistart_finds_the_brute_force_optimum_on_small_blocks(seed: int) -> None:
    """n = 8: all 40,320 orders enumerated; the search must reach their minimum (pinned: it
    does for these seeds) and never claim less."""
    W = _matrix(8, 50 + seed)
    best = min(_cost(W, np.asarray(p)) for p in itertools.permutations(range(8)))
    out = multistart(W, np.arange(8), starts=4, kicks_per_start=40, max_length=3, seed=seed)
    assert sorted(out.tolist()) == list(range(8))
    assert _cost(W, out) == pytest.approx(best, rel=1e-12)


def test_multistart_rotations_escape_a_cut_that_kicks_do_not() -> None:
    """A preference cycle 0 -> 1 -> ... -> n-1 -> 0 whose cheapest cut is between n-1 and 0
    (arc n-1 -> 0 the cheapest to reverse): from the order that cuts it elsewhere, single
    descents cannot rotate the order; the rotations reach the cheap cut."""
    n = 12
    W = np.full((n, n), 1.0)
    np.fill_diagonal(W, 0.0)
    for i in range(n):
        j = (i + 1) % n
        W[i, j], W[j, i] = 0.0, 5.0  # i before j is preferred (cost 0 against 5)
    W[n - 1, 0], W[0, n - 1] = 0.0, 1.0  # the cheapest arc of the cycle to reverse
    start = np.roll(np.arange(n), 5)  # the cut between 6 and 7: reverses arc 6 -> 7 (cost 5)
    out = multistart(W, start, starts=n, kicks_per_start=0, max_length=1, seed=0)
    assert _cost(W, out) == pytest.approx(_cost(W, np.arange(n)))
    assert _cost(W, out) < _cost(W, descend(W, start))


def test_backend_is_checked() -> None:
    with pytest.raises(ValueError, match="backend"):
        descend(np.zeros((2, 2)), [0, 1], backend="gpu")


def test_multistart_stops_between_rotations_when_asked() -> None:
    W = _matrix(20, 3)
    start = np.arange(20)
    asked: list[int] = []

    def stop_after_two() -> bool:
        asked.append(1)
        return len(asked) > 2

    two = multistart(W, start, starts=6, kicks_per_start=5, max_length=3, seed=0,
                     stop=stop_after_two)  # fmt: skip
    assert len(asked) == 3  # asked before rotations 1, 2 and 3; the third is not run
    assert _cost(W, two) <= _cost(W, descend(W, start)) + 1e-12
    untouched = multistart(W, start, starts=6, kicks_per_start=5, max_length=3, seed=0,
                           stop=lambda: True)  # fmt: skip
    assert np.array_equal(untouched, start)  # stopped before the first: the order as given


_CACHE_PROBE = """
import numpy as np
from schedlab.solvers.kernels.order_search import _kernel, iterated_search, kicks
W = np.random.default_rng(0).random((6, 6))
iterated_search(W, range(6), kicks(6, 3, 2, 0))
stats = _kernel("iterate", "cpu").stats
print(len(stats.cache_hits), len(stats.cache_misses))
"""


def test_the_compiled_search_loads_from_numba_s_disk_cache(tmp_path: Path) -> None:
    """A second process loads the iterated search from the cache instead of compiling it again
    (a loop that took its helpers as arguments was compiled anew in every process: 2.5 s)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run([sys.executable, "-c", _CACHE_PROBE], env=env, capture_output=True,
                       text=True, check=True).stdout.split()
        for _ in range(2)
    ]  # fmt: skip
    assert runs[0] == ["0", "1"]  # compiled and written
    assert runs[1] == ["1", "0"]  # read back
