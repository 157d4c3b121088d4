"""The crossing kernels' four backends against each other and against brute force."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from schedlab.solvers.kernels import crossings
from schedlab.solvers.kernels.crossings import crossing_number, overlapping_pairs
from schedlab.solvers.lop.graph import random_ocr_graph, write_ocr_text

BACKENDS = ("numpy", "cpu", "vector", "auto")


def brute_pairs(g, vertices):
    """(u, v, c(u, v), c(v, u)) of every pair with both counts positive, from the edges."""
    out = set()
    for u, v in itertools.combinations(vertices, 2):
        nu, nv = g.nbr[g.ptr[u] : g.ptr[u + 1]], g.nbr[g.ptr[v] : g.ptr[v + 1]]
        a = int((nu[:, None] > nv[None, :]).sum())
        b = int((nv[:, None] > nu[:, None].T).sum())
        if a > 0 and b > 0:
            out.add((min(u, v), max(u, v), *((a, b) if u < v else (b, a))))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_every_backend_lists_the_brute_force_pairs_in_one_order(monkeypatch, seed):
    g = random_ocr_graph(20, 30, 900 + seed, mean_degree=3.0, span=8, isolated_share=0.1)
    act = np.nonzero(np.diff(g.ptr) > 0)[0]
    want = brute_pairs(g, [int(x) for x in act])
    monkeypatch.setattr(crossings, "VECTOR_CHUNK", 5)  # many chunks
    got = {b: overlapping_pairs(g.ptr, g.nbr, act, backend=b) for b in BACKENDS}
    ref = got["numpy"]
    assert len(ref[0]) == len(want) > 0
    for b, arrays in got.items():
        assert all(np.array_equal(x, y) for x, y in zip(ref, arrays, strict=True)), b
        pairs = {(min(u, v), max(u, v), *((a, c) if u < v else (c, a)))
                 for u, v, a, c in zip(*arrays, strict=True)}  # fmt: skip
        assert pairs == want, b


@pytest.mark.parametrize("seed", range(12))
def test_every_backend_counts_the_crossings_of_an_order(seed):
    g = random_ocr_graph(15, 25, 950 + seed, mean_degree=2.5, span=6, isolated_share=0.2)
    order = np.random.default_rng(seed).permutation(g.n1)
    pos = np.empty(g.n1, dtype=np.int64)
    pos[order] = np.arange(g.n1)
    edges = [(pos[v], int(a)) for v in range(g.n1) for a in g.nbr[g.ptr[v] : g.ptr[v + 1]]]
    want = sum(1 for (p, a), (q, b) in itertools.combinations(edges, 2)
               if (p - q) * (a - b) < 0)  # fmt: skip
    assert want > 0
    assert {b: crossing_number(order, g.ptr, g.nbr, backend=b) for b in BACKENDS} == dict.fromkeys(
        BACKENDS, want
    )


def test_the_vectorised_inversion_count_on_ties_and_short_arrays():
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 3, 7, 64, 129):
        x = rng.integers(0, 4, size=n)  # many ties: equal values never count
        want = sum(int(x[i] > x[j]) for i in range(n) for j in range(i + 1, n))
        assert crossings._crossings_vec(x) == want


def test_auto_hands_large_inputs_to_the_compiled_kernels(monkeypatch):
    g = random_ocr_graph(20, 30, 7, mean_degree=3.0, span=8)
    act = np.nonzero(np.diff(g.ptr) > 0)[0]
    calls = []
    real = crossings.pick
    monkeypatch.setattr(crossings, "pick", lambda *a: calls.append(a[1:]) or real(*a))
    overlapping_pairs(g.ptr, g.nbr, act)
    crossing_number(np.arange(g.n1), g.ptr, g.nbr)
    assert calls == []  # small: the vectorised kernels
    small = overlapping_pairs(g.ptr, g.nbr, act)
    monkeypatch.setattr(crossings, "AUTO_VECTOR_MAX", 0)
    large = overlapping_pairs(g.ptr, g.nbr, act)
    crossing_number(np.arange(g.n1), g.ptr, g.nbr)
    # the candidates are counted once (vectorised), then the compiled loops enumerate them
    assert calls == [("overlaps", "cpu"), ("crossings", "cpu")]
    assert all(np.array_equal(a, b) for a, b in zip(small, large, strict=True))


def test_a_graph_without_an_lp_block_never_loads_numba_or_highs(tmp_path):
    # every pair forced (disjoint neighbour spans): `lop solve` proves it without lpcut, and
    # the process skips numba's and HiGHS's start-up
    easy, hard = tmp_path / "easy.gr", tmp_path / "hard.gr"
    easy.write_text("p ocr 4 2 2\n1 5\n3 6\n")
    hard.write_text(write_ocr_text(random_ocr_graph(10, 8, 3, mean_degree=3.0, span=6)))
    probe = (
        "import sys, json\n"
        "from schedlab.experiments.sojourn.lop.cli import solve_file\n"
        "from pathlib import Path\n"
        "d = solve_file(Path(sys.argv[1]), time_limit=30, seed=0, route='auto', fix_forced=True)\n"
        "print(json.dumps([d['status'], d['stats']['solver_blocks'],"
        " 'numba' in sys.modules, 'highspy' in sys.modules,"
        " 'schedlab.solvers.lop.lpcut.model' in sys.modules]))\n"
    )
    runs = {
        name: subprocess.run(
            [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True
        ).stdout.strip()  # fmt: skip
        for name, path in (("easy", easy), ("hard", hard))
    }
    assert json.loads(runs["easy"]) == ["optimal", 0, False, False, False]
    # the contrast: a free pair goes to the solver (which loads its libraries only when a
    # block needs them, so a small block may still load neither numba nor HiGHS)
    status, solver_blocks, _, _, lpcut_loaded = json.loads(runs["hard"])
    assert status == "optimal" and solver_blocks >= 1 and lpcut_loaded


def test_the_vectorised_enumeration_bounds_each_chunks_look_ups(monkeypatch):
    # a chunk looks up at most about VECTOR_CHUNK neighbours (candidates times u's degree),
    # whatever the degrees: dense graphs do not grow its arrays past that
    g = random_ocr_graph(30, 40, 11, mean_degree=8.0, span=20)
    act = np.nonzero(np.diff(g.ptr) > 0)[0]
    deg = np.diff(g.ptr)
    seen = []
    real = crossings._pair_costs_vec

    def spy(ptr, nbr, keys, big, u, v):
        seen.append(int(np.minimum(deg[u], deg[v]).sum()))
        return real(ptr, nbr, keys, big, u, v)

    monkeypatch.setattr(crossings, "_pair_costs_vec", spy)
    monkeypatch.setattr(crossings, "VECTOR_CHUNK", 60)
    got = overlapping_pairs(g.ptr, g.nbr, act, backend="vector")
    ref = overlapping_pairs(g.ptr, g.nbr, act, backend="numpy")
    assert all(np.array_equal(x, y) for x, y in zip(ref, got, strict=True))
    left, right = crossings.spans(g.ptr, g.nbr)
    order = act[np.lexsort((right[act], left[act]))]
    weight = crossings._count_overlaps_vec(order, left, right) * deg[order]
    widest = int(weight.max())  # one position alone may exceed the chunk
    assert len(seen) > 3 and max(seen) <= max(60, widest) < int(weight.sum()) // 4
