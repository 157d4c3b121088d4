"""The six-node Möbius-ladder inequality and its separation: validity and facet dimension by
enumerating the 720 orders, the separation against enumeration of every 6-tuple, numba
against the plain loop, and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from schedlab.solvers.kernels.ladders import (
    LADDER_ARCS,
    LADDER_RHS,
    ladder_arcs,
    ladder_values,
    violated_ladders,
)

PAIRS = [(u, v) for u in range(6) for v in range(u + 1, 6)]


def _forward_counts() -> list[tuple[int, list[float]]]:
    """Per order of six nodes: how many ladder arcs it puts forward, and its 0/1 vector."""
    out = []
    for p in itertools.permutations(range(6)):
        pos = np.empty(6, dtype=np.int64)
        pos[list(p)] = np.arange(6)
        count = sum(int(pos[u] < pos[v]) for u, v in LADDER_ARCS)
        out.append((count, [float(pos[u] < pos[v]) for u, v in PAIRS]))
    return out


def test_every_order_keeps_the_ladder_inequality_and_its_roots_span_a_facet():
    counts = _forward_counts()
    assert max(c for c, _ in counts) == LADDER_RHS == 8
    roots = np.array([x for c, x in counts if c == 8])
    assert len(roots) == 18
    every = np.array([x for _, x in counts])
    assert np.linalg.matrix_rank(every[1:] - every[0]) == 15  # the polytope's dimension
    assert np.linalg.matrix_rank(roots[1:] - roots[0]) == 14  # so the roots span a facet


def test_the_ladder_has_one_automorphism_besides_the_identity_and_is_not_its_reverse():
    arcs = {(int(u), int(v)) for u, v in LADDER_ARCS}
    reverse = {(v, u) for u, v in arcs}
    maps = list(itertools.permutations(range(6)))
    assert sum({(p[u], p[v]) for u, v in arcs} == arcs for p in maps) == 2
    assert not any({(p[u], p[v]) for u, v in arcs} == reverse for p in maps)


def _tournament(n: int, seed: int, frac: float = 0.5) -> np.ndarray:
    """Y[u, v] + Y[v, u] = 1: a share `frac` of the pairs fractional, the others 0 or 1."""
    rng = np.random.default_rng(seed)
    upper = np.where(rng.random((n, n)) < frac, rng.random((n, n)),
                     (rng.random((n, n)) < 0.5).astype(float))  # fmt: skip
    Y = np.triu(upper, 1)
    Y = Y + np.tril(1.0 - Y.T, -1)
    np.fill_diagonal(Y, 0.0)
    return Y


def _violated_by_enumeration(Y: np.ndarray, eps: float = 1e-6, tol: float = 1e-6) -> set:
    """Every ladder (as its set of arcs) violated by more than tol whose middle arc is
    fractional, over every 6-tuple of nodes and both orientations."""
    out = set()
    for t in itertools.permutations(range(Y.shape[0]), 6):
        for rev in (False, True):
            Z = Y.T if rev else Y
            if not eps < Z[t[0], t[1]] < 1.0 - eps:
                continue
            arcs = [(t[u], t[v]) for u, v in LADDER_ARCS]
            if sum(Z[a, b] for a, b in arcs) > LADDER_RHS + tol:
                out.add(frozenset((b, a) if rev else (a, b) for a, b in arcs))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_unlimited_separation_finds_exactly_the_violated_ladders(seed):
    Y = _tournament(7, seed)
    nodes, rev, viol = violated_ladders(Y, top=10**6, per_center=10**6, backend="numpy")
    arcs = ladder_arcs(nodes, rev)
    found = [frozenset(map(tuple, a.tolist())) for a in arcs]
    assert len(found) == len(set(found))  # each inequality once
    assert set(found) == _violated_by_enumeration(Y)
    assert len(found) == {0: 86, 1: 71, 2: 80}[seed]
    assert np.allclose(ladder_values(Y, arcs) - LADDER_RHS, viol)
    assert (np.diff(viol) <= 0).all()  # most violated first


@pytest.mark.parametrize(("n", "seed", "top", "per_center"), [(7, 1, 10**6, 10**6), (30, 4, 8, 2)])
def test_numba_and_the_plain_loop_agree(n, seed, top, per_center):
    Y = _tournament(n, seed, frac=0.3)
    a = violated_ladders(Y, top=top, per_center=per_center)
    b = violated_ladders(Y, top=top, per_center=per_center, backend="numpy")
    assert len(a[0]) > 0
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)


def test_limits_bound_the_cuts_and_an_order_violates_none():
    Y = _tournament(30, 5, frac=0.3)
    nodes, rev, viol = violated_ladders(Y, top=8, per_center=1, max_cuts=50)
    assert len(nodes) == 50 and (viol > 0).all()
    order = np.random.default_rng(0).permutation(30)
    pos = np.empty(30, dtype=np.int64)
    pos[order] = np.arange(30)
    X = (pos[:, None] < pos[None, :]).astype(float)
    assert (ladder_values(X, ladder_arcs(nodes, rev)) <= LADDER_RHS).all()
    assert len(violated_ladders(X)[0]) == 0  # no fractional middle arc


def test_bad_input_is_refused_with_the_field_named():
    with pytest.raises(ValueError, match="Y: a square matrix"):
        violated_ladders(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="top >= 2"):
        violated_ladders(np.zeros((3, 3)), top=1)
