"""All-pairs shortest paths: numba against the plain-Python loops and against networkx."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from schedlab.solvers.kernels.shortest_paths import (
    best_first_hops,
    dag_all_pairs,
    floyd_warshall,
    path,
    paths,
)


def _graph(n: int, seed: int, dag: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    arc = rng.random((n, n)) < 0.4
    np.fill_diagonal(arc, False)
    if dag:
        arc = np.triu(arc, 1)
    return rng.random((n, n)) * 3.0, arc


def _networkx(length: np.ndarray, arc: np.ndarray) -> np.ndarray:
    n = len(length)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    ii, jj = np.nonzero(arc)
    G.add_weighted_edges_from(
        (int(i), int(j), float(length[i, j])) for i, j in zip(ii, jj, strict=True)
    )
    dist = np.full((n, n), np.inf)
    for i, row in nx.all_pairs_dijkstra_path_length(G):
        for j, d in row.items():
            dist[i, j] = d
    return dist


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dag", [True, False])
def test_distances_match_networkx_and_paths_have_them(seed, dag):
    length, arc = _graph(14, seed, dag)
    fn = dag_all_pairs if dag else floyd_warshall
    dist, nxt = fn(length, arc)
    ref = _networkx(length, arc)
    fin = np.isfinite(ref)
    assert np.array_equal(np.isfinite(dist), fin)
    assert np.allclose(dist[fin], ref[fin], rtol=0, atol=1e-12)
    ref_dist, ref_nxt = fn(length, arc, backend="numpy")
    assert np.array_equal(dist, ref_dist) and np.array_equal(nxt, ref_nxt)
    ii, jj = np.nonzero(fin & ~np.eye(len(arc), dtype=bool))
    for i, j in zip(ii, jj, strict=True):
        p = path(nxt, int(i), int(j))
        assert p[0] == i and p[-1] == j and all(arc[a, b] for a, b in itertools.pairwise(p))
        assert abs(sum(length[a, b] for a, b in itertools.pairwise(p)) - dist[i, j]) <= 1e-12


def test_no_path_and_bad_backend_are_clear():
    length, arc = _graph(5, 0, True)
    _, nxt = dag_all_pairs(length, np.zeros_like(arc))
    with pytest.raises(ValueError, match="no path from 0 to 3"):
        path(nxt, 0, 3)
    with pytest.raises(ValueError, match="backend"):
        floyd_warshall(length, arc, backend="cuda")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dag", [True, False])
def test_best_first_hops_rank_every_first_arc_as_a_sort_does(seed, dag):
    # against sorting, per pair, every arc out of the source plus the target's distance
    length, arc = _graph(12, seed, dag)
    length = np.round(length, 1)  # ties, which go to the lower first hop
    dist, _ = (dag_all_pairs if dag else floyd_warshall)(length, arc)
    src, dst = np.nonzero(~np.eye(12, dtype=bool))
    for k in (1, 3, 20):
        hops, vals = best_first_hops(length, arc, dist, src, dst, k)
        ref_hops, ref_vals = best_first_hops(length, arc, dist, src, dst, k, backend="numpy")
        assert np.array_equal(hops, ref_hops) and np.array_equal(vals, ref_vals)
        for r, (i, j) in enumerate(zip(src, dst, strict=True)):
            cand = sorted(
                (length[i, h] + dist[h, j], h)
                for h in range(12)
                if h != i and arc[i, h] and np.isfinite(dist[h, j])
            )[:k]
            want = [h for _, h in cand] + [-1] * (k - len(cand))
            assert hops[r].tolist() == want
            assert np.allclose(vals[r, : len(cand)], [v for v, _ in cand], rtol=0, atol=0)


@pytest.mark.parametrize("dag", [True, False])
def test_paths_in_one_array_are_the_paths_read_one_by_one(dag):
    length, arc = _graph(14, 5, dag)
    dist, nxt = (dag_all_pairs if dag else floyd_warshall)(length, arc)
    ii, jj = np.nonzero(np.isfinite(dist))
    nodes, ptr = paths(nxt, ii, jj)
    assert len(ptr) == len(ii) + 1 and ptr[0] == 0 and ptr[-1] == len(nodes)
    for r, (i, j) in enumerate(zip(ii, jj, strict=True)):
        assert nodes[ptr[r] : ptr[r + 1]].tolist() == path(nxt, int(i), int(j))
    ref = paths(nxt, ii, jj, backend="numpy")
    assert np.array_equal(ref[0], nodes) and np.array_equal(ref[1], ptr)
    _, none = dag_all_pairs(length, np.zeros_like(arc))
    with pytest.raises(ValueError, match="no path from 0 to 3"):
        paths(none, np.array([1, 0]), np.array([1, 3]))
