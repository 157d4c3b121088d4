"""PACE 2024 crossing graphs as a linear-ordering problem: the reader, the pair counts against
the edges, the sparse blocks against the dense ones, lpcut on graphs against a subset DP, the
forced-pair lemma's check (and that it can fail), and `schedlab lop solve`."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.crossings import crossing_number, overlapping_pairs
from schedlab.solvers.lop.core import lop_cost, preference_blocks
from schedlab.solvers.lop.crossings import SparseCrossings, block_matrix, blocks
from schedlab.solvers.lop.graph import OcrGraph, parse_ocr_text, random_ocr_graph, write_ocr_text
from schedlab.solvers.lop.graph_route import CrossingTuning, solve_graph
from schedlab.solvers.lop.lpcut.options import DEFAULT_TUNING, LpcutTuning
from schedlab.solvers.lop.matrix import write_lop_text
from schedlab.solvers.result import Status
from schedlab.solvers.validate import NO_DEADLINE, Deadline
from schedlab.theory.sojourn.lop_graph import check_forced_pairs


def brute_counts(g, vertices):
    """c(u, v) for every ordered pair, straight from the neighbour lists."""
    nb = [g.nbr[g.ptr[v] : g.ptr[v + 1]] for v in vertices]
    C = np.array([[float((a[:, None] > b[None, :]).sum()) for b in nb] for a in nb])
    np.fill_diagonal(C, 0.0)
    return C


def subset_dp(W: np.ndarray) -> float:
    """The least linear-ordering cost by dynamic programming over subsets (v placed last of S
    pays W[u, v] for every u in S): independent of every solver."""
    n = W.shape[0]
    f = np.full(1 << n, np.inf)
    f[0] = 0.0
    for S in range(1, 1 << n):
        members = [v for v in range(n) if S >> v & 1]
        for v in members:
            rest = S & ~(1 << v)
            cost = f[rest] + sum(W[u, v] for u in members if u != v)
            f[S] = min(f[S], cost)
    return float(f[-1])


def test_reader_round_trip_and_comments():
    g = random_ocr_graph(20, 15, 3)
    text = "c a comment\n" + write_ocr_text(g).replace("\n", "\nc inside\n", 1)
    h = parse_ocr_text(text)
    assert (h.n0, h.n1, h.m) == (g.n0, g.n1, g.m)
    assert np.array_equal(h.ptr, g.ptr) and np.array_equal(h.nbr, g.nbr)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "no problem line"),
        ("p td 2 2 1\n1 3\n", "p ocr n0 n1 m"),
        ("p ocr 2 x 1\n1 3\n", "n1 = 'x'"),
        ("p ocr 2 2 2\n1 3\n", "m = 2 edges, the file has 1"),
        ("p ocr 2 2 1\n3 3\n", "line 2"),
        ("p ocr 2 2 1\n1 2\n", "free vertex b in 3..4"),
        ("1 2\np ocr 2 2 1\n", "line 1"),
    ],
)
def test_reader_errors_name_the_line(text, needle):
    with pytest.raises(InvalidInput, match=needle.replace("(", r"\(").replace(".", r"\.")):
        parse_ocr_text(text, "g.gr")


@pytest.mark.parametrize("seed", range(6))
def test_pair_counts_and_crossings_against_the_edges(seed):
    g = random_ocr_graph(12, 9, seed, mean_degree=3.0, span=4)
    sc = SparseCrossings.of(g)
    W, forced = block_matrix(sc, sc.active)
    C = brute_counts(g, sc.active)
    assert np.array_equal(W, C)
    assert np.array_equal(forced, (C == 0) & (C.T > 0))
    u, v, cuv, cvu = overlapping_pairs(g.ptr, g.nbr, sc.active, backend="numpy")
    mine = sorted(zip(sc.u, sc.v, sc.cuv, sc.cvu, strict=True))
    assert sorted(zip(u, v, cuv, cvu, strict=True)) == mine
    assert ((W > 0) & (W.T > 0)).sum() == 2 * len(sc.u)  # every pair with both counts, once
    rng = np.random.default_rng(seed)
    order = rng.permutation(g.n1)
    loc = {int(x): i for i, x in enumerate(sc.active)}
    act = [loc[int(x)] for x in order if int(x) in loc]
    want = lop_cost(W, act)
    assert g.crossings(order) == want
    assert crossing_number(order, g.ptr, g.nbr, backend="numpy") == want


@pytest.mark.parametrize("seed", range(40))
def test_sparse_blocks_are_the_dense_ones(seed):
    g = random_ocr_graph(10, 4 + seed % 9, seed, mean_degree=2.2, span=3, isolated_share=0.1)
    sc = SparseCrossings.of(g)
    W, _ = block_matrix(sc, sc.active)
    dense = sorted(sorted(sc.active[b].tolist()) for b in preference_blocks(W))
    assert sorted(sorted(b.tolist()) for b in blocks(sc)) == dense


def test_twins_on_one_fixed_vertex_form_one_block():
    text = "p ocr 4 4 4\n2 5\n2 6\n2 7\n4 8\n"
    sc = SparseCrossings.of(parse_ocr_text(text))
    got = [sorted(b.tolist()) for b in blocks(sc)]
    assert got == [[0, 1, 2], [3]]  # 5, 6, 7 on vertex 2: ties at zero; 8 after them
    r = solve_graph(parse_ocr_text(text))
    assert r.status is Status.OPTIMAL and r.value == r.bound == 0


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("fix", [True, False])
def test_solve_graph_against_a_subset_dp(seed, fix):
    g = random_ocr_graph(14, 11, 100 + seed, mean_degree=2.6, span=6)
    sc = SparseCrossings.of(g)
    W, _ = block_matrix(sc, sc.active)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0, fix_forced=fix)
    assert r.status is Status.OPTIMAL
    assert r.value == subset_dp(W) == r.bound
    assert sorted(r.solution) == list(range(g.n1))
    assert g.crossings(r.solution) == r.value


def test_a_hard_block_is_solved_by_the_lp_and_counts_its_time():
    g = random_ocr_graph(60, 60, 7, mean_degree=3.0, span=25, isolated_share=0.0)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0)
    assert r.status is Status.OPTIMAL
    assert r.stats["solver_blocks"] >= 1 and r.stats["largest_solver_block"] >= 30
    assert r.stats["lp_s"] > 0 and r.stats["search_s"] > 0


def test_a_stopped_solve_keeps_a_sound_bound():
    g = random_ocr_graph(120, 120, 8, mean_degree=3.0, span=40, isolated_share=0.0)
    r = solve_graph(g, deadline=Deadline.after(0.05), seed=0)
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert r.bound is not None and r.bound <= r.value
    assert g.crossings(r.solution) == r.value


def test_the_forced_pair_check_holds_on_graphs_and_fails_on_matrices():
    assert check_forced_pairs(40, seed=0, rule="graph").violations == []
    bad = check_forced_pairs(40, seed=0, rule="matrix")
    assert bad.instances == 40 and len(bad.violations) >= 5


def test_lop_solve_cli_on_a_graph_and_a_matrix(tmp_path):
    g = random_ocr_graph(14, 10, 5, mean_degree=2.6, span=6)
    gr = tmp_path / "g.gr"
    gr.write_text(write_ocr_text(g))
    res = CliRunner().invoke(cli, ["lop", "solve", str(gr), "--json", "--time-limit", "30"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    sc = SparseCrossings.of(g)
    assert out["status"] == "optimal" and out["sense"] == "min"
    assert out["value"] == out["bound"] == subset_dp(block_matrix(sc, sc.active)[0])
    assert sorted(out["order"]) == list(range(g.n0 + 1, g.n0 + g.n1 + 1))
    assert {"runtime_s", "stats", "max_rss_mb"} <= set(out)
    M = np.array([[0, 3, 1, 0], [1, 0, 4, 2], [5, 0, 0, 1], [2, 2, 0, 0]], dtype=float)
    mat = tmp_path / "m.mat"
    mat.write_text(write_lop_text(M))
    out = json.loads(CliRunner().invoke(cli, ["lop", "solve", str(mat), "--json"]).output)
    o = np.array(out["order"]) - 1
    assert out["status"] == "optimal" and out["sense"] == "max"
    best = max(np.triu(M[np.ix_(p, p)], 1).sum() for p in itertools.permutations(range(4)))
    assert out["value"] == out["bound"] == float(np.triu(M[np.ix_(o, o)], 1).sum()) == best


def test_lop_solve_cli_refuses_a_bad_file_with_exit_2(tmp_path):
    bad = tmp_path / "bad.gr"
    bad.write_text("p ocr 2 2 1\n1 9\n")
    res = CliRunner().invoke(cli, ["lop", "solve", str(bad)])
    assert res.exit_code == 2
    assert "line 2" in res.output and "Traceback" not in res.output


def test_bench_exact_pace_table_on_generated_graphs(tmp_path):
    graphs = {f"{k}.gr": random_ocr_graph(12, 10, 40 + k, mean_degree=2.6, span=6) for k in (2, 10)}
    for name, g in graphs.items():
        (tmp_path / name).write_text(write_ocr_text(g))
    cmd = [sys.executable, "-m", "schedlab.experiments.bench", "bench_exact", "--lop-dir",
           str(tmp_path), "--quick", "--json"]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    lines = [json.loads(line) for line in out.strip().splitlines()]
    assert [d["name"] for d in lines] == ["2.gr", "10.gr"]  # natural order, one JSON per line
    for d in lines:
        g = graphs[d["name"]]
        sc = SparseCrossings.of(g)
        assert d["status"] == "optimal" and d["n"] == g.n1
        assert d["optimum"] == d["value"] == d["bound"] == subset_dp(block_matrix(sc, sc.active)[0])
        assert 0 <= d["lp_share"] <= 1 and 0 <= d["search_share"] <= 1
    table = subprocess.run(cmd[:-1], capture_output=True, text=True, check=True).stdout
    assert "LP share" in table and "search share" in table and "10.gr" in table


@pytest.mark.parametrize("seed", range(8))
def test_fixed_columns_bound_the_orders_that_respect_them(seed):
    # the LP rounds with forced pairs fixed (`HighsCutModel.fix_forced`): the bound is at most
    # the least cost over the orders respecting the fixed pairs (brute force), and on a crossing
    # matrix, where every optimal order respects them, it closes on the true optimum
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    g = random_ocr_graph(10, 7, 300 + seed, mean_degree=3.0, span=5, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, forced = block_matrix(sc, sc.active)
    n = W.shape[0]
    rng = np.random.default_rng(seed)
    keep = forced & (rng.random(forced.shape) < 0.7)  # any subset of a transitive relation
    fi, fj = np.nonzero(keep)
    ok = []
    for p in itertools.permutations(range(n)):
        pos = np.empty(n, dtype=np.int64)
        pos[list(p)] = np.arange(n)
        if np.all(pos[fi] < pos[fj]):
            ok.append(lop_cost(W, p))
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, forced=keep)
    model.offer(list(range(n)))
    model.lp_rounds()
    assert model.best_lb is None or model.best_lb <= min(ok) + 1e-9
    assert model.best_lb is None or model.best_lb >= min(ok) - n * n  # not vacuous
    assert min(ok) == subset_dp(W)  # the lemma: fixing forced pairs keeps the optimum


def test_the_integer_close_slack_rounds_a_bound_to_the_cost():
    # a crossing block closes once its sound bound is INTEGER_CLOSE_SLACK below its cost: the
    # rounded-up bound is then the cost itself; a full crossing below would not be
    from schedlab.solvers.lop.core import INTEGER_CLOSE_SLACK, integer_bound

    for c in (0.0, 1.0, 56183.0, 120099.0):
        assert integer_bound(c - INTEGER_CLOSE_SLACK) == c
        assert integer_bound(c - 1.0) == c - 1.0


@pytest.mark.parametrize("seed", range(6))
def test_the_start_search_is_never_better_than_the_optimum(seed):
    # the crossing blocks' iterated insertion search before the LP rounds
    # (`HighsCutModel.search_start_kicks`): a permutation, no worse than its start, and never
    # below the subset DP's optimum
    from schedlab.solvers.lop.core import insertion_descent
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    g = random_ocr_graph(14, 11, 400 + seed, mean_degree=2.6, span=6, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, forced = block_matrix(sc, sc.active)
    n = W.shape[0]
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, forced=forced)
    start = insertion_descent(W, list(range(n))[::-1])
    model.offer(start)
    model.tuning = replace(model.tuning, start_kicks=200)
    model.search_start_kicks(NO_DEADLINE)
    assert model.order is not None and sorted(model.order) == list(range(n))
    assert subset_dp(W) <= model.order_cost <= lop_cost(W, start)


@pytest.mark.parametrize("seed", [8, 10, 11, 12])
def test_the_start_search_reaches_the_proven_optimum_of_a_hard_block(seed):
    # 60 free vertices: the insertion-descent start is 1-2 crossings above the optimum that
    # lpcut proves; 300 kicks reach it (the evidence on a block where descent alone stops short)
    from schedlab.solvers.lop.core import insertion_descent
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    g = random_ocr_graph(60, 60, seed, mean_degree=3.0, span=25, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, forced = block_matrix(sc, sc.active)
    start = insertion_descent(W, list(range(W.shape[0])))
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, forced=forced)
    model.offer(start)
    model.tuning = replace(model.tuning, start_kicks=300)
    model.search_start_kicks(NO_DEADLINE)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0)
    assert r.status is Status.OPTIMAL
    assert model.order_cost < lop_cost(W, start)
    assert model.order_cost == r.value == r.bound


def _stalled_block(seed):
    """(W, lpcut's proven result, a block model whose order is the descent's start above the
    optimum and whose bound is at it, that start), as after LP rounds that stalled so."""
    from schedlab.solvers.lop.core import insertion_descent
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    g = random_ocr_graph(60, 60, seed, mean_degree=3.0, span=25, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, forced = block_matrix(sc, sc.active)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0)
    assert r.status is Status.OPTIMAL
    start = insertion_descent(W, list(range(W.shape[0])))
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, forced=forced)
    model.offer(start)
    assert model.order_cost > r.value
    model.best_lb = r.bound - 0.25
    return W, r, model, start


@pytest.mark.parametrize("seed", [8, 10, 11, 12])
def test_the_stall_search_closes_a_stalled_block_at_the_proven_optimum(seed):
    # `HighsCutModel.stall_search`, as after LP rounds that stalled with the bound at the
    # optimum (that of lpcut's own proof) and the best order above it (the descent's start,
    # 1-2 crossings above): it searches until the order meets the bound, then the block is
    # closed without a MIP
    W, r, model, _ = _stalled_block(seed)
    model.lp_stalled, model.lp_s = True, 60.0
    assert model.stall_search(NO_DEADLINE) == {}  # not asked for: lpcut's default
    model.tuning = replace(model.tuning, stall_search_share=1.0)
    stats = model.stall_search(NO_DEADLINE)
    assert stats["stall_search_closed"] == 1 and model.closed_by_lp
    assert stats["stall_search_kicks"] == DEFAULT_TUNING.stall_search_chunk  # stopped once closed
    assert model.order is not None and sorted(model.order) == list(range(W.shape[0]))
    assert model.order_cost == r.value


@pytest.mark.parametrize("seed", [8, 10])
def test_the_stall_probe_closes_a_block_whose_bound_is_at_the_optimum(seed):
    # `HighsCutModel.stall_probe`, as at a stall before the general round: the bound at
    # lpcut's proven optimum, the order (the descent's start) above it. One chunk of at most
    # `start_kicks` kicks closes the block; without start kicks it does nothing
    W, r, model, start = _stalled_block(seed)
    assert not model.stall_probe(NO_DEADLINE)  # lpcut's default: no start kicks, no probe
    assert model.stall_chunks == 0 and model.order_cost == lop_cost(W, start)
    model.tuning = replace(model.tuning, start_kicks=1000)
    assert model.stall_probe(NO_DEADLINE) and model.closed_by_lp
    assert model.stall_chunks == 1 and model.order_cost == r.value
    assert model.stall_probe_s > 0


def test_a_stall_probe_that_does_not_close_leaves_the_stall_search_its_later_seeds():
    # a bound below the optimum: the probe's chunk cannot close the block; it finds the
    # subset DP's optimum on the way (never below it), and the stall search after it goes on
    # with the next chunk's seed
    from schedlab.solvers.lop.core import insertion_descent
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    g = random_ocr_graph(14, 11, 403, mean_degree=2.6, span=6, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, forced = block_matrix(sc, sc.active)
    opt = subset_dp(W)
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, forced=forced)
    model.offer(insertion_descent(W, list(range(W.shape[0]))[::-1]))
    model.best_lb, model.tuning = opt - 3.0, replace(model.tuning, start_kicks=200)
    assert not model.stall_probe(NO_DEADLINE) and not model.closed_by_lp
    assert model.stall_chunks == 1 and model.order_cost == opt
    model.lp_stalled, model.lp_s = True, 1e-3
    model.tuning = replace(model.tuning, stall_search_share=1.0)
    stats = model.stall_search(NO_DEADLINE)
    chunk = DEFAULT_TUNING.stall_search_chunk
    assert model.stall_chunks == 1 + stats["stall_search_kicks"] // chunk
    assert stats["stall_search_kicks"] >= chunk and model.order_cost == opt


def test_the_stall_search_keeps_to_its_share_when_the_bound_is_short(monkeypatch):
    # a bound below the optimum: no order meets it, so the search runs its budget out (a
    # share of the LP rounds' seconds) and the block stays open for the MIP; never below the
    # subset DP's optimum. The clock is lpcut's own, made to advance 0.15 s per chunk, so the
    # budget of 0.2 s gives exactly two chunks (the second starts at 0.15 < 0.2) whatever the
    # machine's speed
    import schedlab.solvers.lop.lpcut.primal as lpcut
    from schedlab.solvers.lop.core import insertion_descent
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    clock = [0.0]
    search = lpcut.iterated_search

    def timed_search(*args, **kwargs):
        clock[0] += 0.15
        return search(*args, **kwargs)

    monkeypatch.setattr(lpcut, "iterated_search", timed_search)
    monkeypatch.setattr(lpcut, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    g = random_ocr_graph(14, 11, 403, mean_degree=2.6, span=6, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, forced = block_matrix(sc, sc.active)
    opt = subset_dp(W)
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, forced=forced)
    model.offer(insertion_descent(W, list(range(W.shape[0]))[::-1]))
    model.best_lb, model.lp_stalled, model.lp_s = opt - 3.0, True, 0.2
    model.tuning = replace(model.tuning, stall_search_share=1.0)
    stats = model.stall_search(NO_DEADLINE)
    assert stats["stall_search_closed"] == 0 and not model.closed_by_lp
    assert stats["stall_search_kicks"] == 2 * DEFAULT_TUNING.stall_search_chunk
    assert stats["stall_search_s"] == pytest.approx(0.3)
    assert model.order_cost == opt  # found on the way, not proven


def test_twins_merge_into_one_vertex_with_summed_costs():
    # free vertices 4, 5 and 7 on fixed {1, 3} (twins: one class, block positions 0, 1, 3), 6 on
    # {2}; c(class before 6) sums its members' counts, inside the class c(u, v) = c(v, u) = 1
    from schedlab.solvers.lop.graph_route import merge_twins, twin_classes

    g = parse_ocr_text("p ocr 3 4 7\n1 4\n3 4\n1 5\n3 5\n2 6\n1 7\n3 7\n")
    blk = np.arange(4)
    label = twin_classes(g, blk)
    assert label.tolist() == [0, 0, 1, 0]
    C = brute_counts(g, blk)
    tm = merge_twins(C, label)
    assert [m.tolist() for m in tm.members] == [[0, 1, 3], [2]]
    assert tm.W[0, 1] == C[[0, 1, 3], 2].sum() == 3.0 and tm.W[1, 0] == C[2, [0, 1, 3]].sum()
    assert tm.inner == C[0, 1] + C[0, 3] + C[1, 3] == 3.0  # c(u, v) = 1 for {1, 3} vs {1, 3}
    assert tm.expand([1, 0]).tolist() == [2, 0, 1, 3]


@pytest.mark.parametrize("seed", range(1, 8))
def test_solve_graph_with_twins_merged_against_a_subset_dp(seed):
    # few fixed vertices: many twins; merged and unmerged runs prove the subset DP's optimum
    g = random_ocr_graph(4, 12, 300 + seed, mean_degree=2.0, span=2, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, _ = block_matrix(sc, sc.active)
    best = subset_dp(W)
    merged = solve_graph(g, deadline=Deadline.after(60), seed=0)
    plain = solve_graph(g, deadline=Deadline.after(60), seed=0, twins=False)
    assert merged.stats["twins_merged"] >= 3 and plain.stats["twins_merged"] == 0
    for r in (merged, plain):
        assert r.status is Status.OPTIMAL and r.value == r.bound == best
        assert sorted(r.solution) == list(range(g.n1)) and g.crossings(r.solution) == best


def with_twins(g: OcrGraph, k: int) -> OcrGraph:
    """g with a copy (same neighbours) of each of its first k free vertices appended."""
    ptr, nbr = g.ptr.tolist(), g.nbr.tolist()
    for v in range(k):
        nbr.extend(g.nbr[g.ptr[v] : g.ptr[v + 1]].tolist())
        ptr.append(len(nbr))
    return OcrGraph(f"{g.name}-twins", g.n0, g.n1 + k, np.array(ptr), np.array(nbr))


@pytest.mark.parametrize("seed", [7, 8])
def test_a_hard_block_with_twins_merged_and_not_proves_one_optimum(seed):
    # the hard 60-vertex blocks with 20 twins added: the merged block (about 60 classes) and
    # the plain one (74-80 vertices) are proven by their own LP rounds at the same value
    g = with_twins(random_ocr_graph(60, 60, seed, mean_degree=3.0, span=25, isolated_share=0), 20)
    merged = solve_graph(g, deadline=Deadline.after(60), seed=0)
    plain = solve_graph(g, deadline=Deadline.after(60), seed=0, twins=False)
    assert merged.stats["twins_merged"] >= 20 and merged.stats["largest_solver_block"] >= 70
    assert merged.stats["lp_rounds"] >= 1 and plain.stats["lp_rounds"] >= 1
    assert merged.status is plain.status is Status.OPTIMAL
    assert merged.value == merged.bound == plain.value == plain.bound
    assert g.crossings(merged.solution) == merged.value


def test_the_twin_check_holds_for_twins_and_fails_for_equal_degrees():
    from schedlab.theory.sojourn.lop_graph import check_twins

    ok = check_twins(60, seed=0)
    assert ok.instances >= 50 and ok.merged_vertices >= 100 and ok.violations == []
    bad = check_twins(60, seed=0, rule="degree")
    assert len(bad.violations) >= 30


class _FakeHighs:
    """The three calls `_round_verdict` makes of an LP that ended with `status`."""

    def __init__(self, status, dual_valid):
        self.status, self.dual_valid, self.options = status, dual_valid, {}

    def getModelStatus(self):
        return self.status

    def getSolution(self):
        return type("Sol", (), {"dual_valid": self.dual_valid})()

    def setOptionValue(self, key, value):
        self.options[key] = value


@pytest.mark.parametrize(
    ("status", "duals", "pref", "verdict", "solver"),
    [
        ("kOptimal", True, None, "optimal", "ipm"),
        ("kUnknown", True, "ipm", "imprecise", "ipm"),
        ("kUnknown", False, "ipm", "retry", "simplex"),
        ("kUnknown", True, None, "stop", "ipm"),
        ("kTimeLimit", False, "ipm", "retry", "simplex"),
    ],
)
def test_an_interior_point_round_that_ends_imprecise(status, duals, pref, verdict, solver):
    # crossing blocks (interior point preferred) use an imprecise round's duals (any duals >= 0
    # bound soundly), re-solve by the dual simplex only without duals; other blocks stop
    import highspy

    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    W = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 1.0], [1.0, 2.0, 0.0]])
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, tuning=LpcutTuning(lp_solver=pref))
    model.h = _FakeHighs(getattr(highspy.HighsModelStatus, status), duals)
    assert model._round_verdict(NO_DEADLINE) == verdict
    assert model.lp_solver == solver


def test_the_start_search_kicks_shrink_with_the_square_of_a_large_block():
    t = CrossingTuning()
    full, kicks = t.start_full_n, t.start_kicks
    assert t.start_kicks_for(2) == t.start_kicks_for(full) == kicks == 1000
    assert t.start_kicks_for(2 * full) == round(kicks / 4)
    assert t.start_kicks_for(10**6) == 1
    # blocks of the dual simplex: the full search up to start_full_n, none above
    assert t.start_kicks_for(full, "simplex") == kicks
    assert t.start_kicks_for(full + 1, "simplex") == 0


def test_the_start_search_is_patient_on_small_blocks_and_those_of_the_simplex():
    t = CrossingTuning()
    n = t.start_patient_n
    assert t.patience_for(2) == t.patience_for(n) == t.start_patience == 100
    assert t.patience_for(n + 1) is None
    assert t.patience_for(n + 1, "ipm") is None
    # where the dual simplex runs the rounds, patient at every size
    assert t.patience_for(n + 1, "simplex") == 100
    assert t.patience_for(10**4, "simplex") == 100


def test_the_free_share_picks_the_lp_solver_of_a_crossing_block():
    t = CrossingTuning()
    dense = np.ones((4, 4)) - np.eye(4)  # every pair free
    sparse = np.triu(np.ones((4, 4)), 1)  # every pair forced
    sparse[2, 3] = sparse[3, 2] = 1.0  # one of six free
    assert t.free_share(dense) == 1.0 and t.free_share(sparse) == pytest.approx(1 / 6)
    assert 1 / 6 < t.ipm_min_free_share < 1.0
    assert t.lp_solver(dense) == "ipm" and t.lp_solver(sparse) == "simplex"


@pytest.mark.parametrize(("n1", "seed"), [(14, 320), (16, 301), (16, 326)])
@pytest.mark.parametrize("switch", [True, False])
def test_a_slow_simplex_round_hands_the_block_to_the_interior_point(monkeypatch, n1, seed, switch):
    # every dual simplex round after the first is "slow" with a zero floor and ratio: stopped
    # at once and solved again by the interior point, which must then prove the same optimum
    # as the subset DP (graphs whose rounds run past the first with rows, found by a scan:
    # most small graphs close in it, before any round can switch)
    from schedlab.solvers.lop.lpcut.options import LpcutOptions

    tuning = CrossingTuning(ipm_min_free_share=2.0)  # every block by the dual simplex
    if switch:
        base = LpcutTuning(ipm_switch_floor_s=0.0)
        tuning = replace(tuning, ipm_switch_ratio=0.0, base=base)
    g = random_ocr_graph(16, n1, seed, mean_degree=3.0, span=12, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, _ = block_matrix(sc, sc.active)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0, options=LpcutOptions(route="lp"),
                    twins=False, tuning=tuning)  # fmt: skip
    assert r.status is Status.OPTIMAL and r.value == subset_dp(W) == r.bound
    assert r.stats.get("lp_solver_simplex", 0) >= 1
    assert (r.stats["lp_ipm_switched"] >= 1) is switch


@pytest.mark.parametrize(("n1", "seed"), [(14, 320), (16, 301), (16, 326)])
@pytest.mark.parametrize("per_n", [0.0, 1e9])
def test_a_first_round_by_the_interior_point_with_crossover(monkeypatch, n1, seed, per_n):
    # a threshold of 0 rows per vertex sends every sparse block's first round with rows to the
    # interior point with crossover, 1e9 none; the dual simplex rounds after it start from the
    # crossover's basis, and both prove the subset DP's optimum
    from schedlab.solvers.lop.lpcut.options import LpcutOptions

    tuning = CrossingTuning(ipm_min_free_share=2.0, crossover_min_rows_per_n=per_n)
    g = random_ocr_graph(16, n1, seed, mean_degree=3.0, span=12, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, _ = block_matrix(sc, sc.active)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0, options=LpcutOptions(route="lp"),
                    twins=False, tuning=tuning)  # fmt: skip
    assert r.status is Status.OPTIMAL and r.value == subset_dp(W) == r.bound
    assert (r.stats["lp_crossover_rounds"] >= 1) is (per_n == 0.0)
    assert r.stats["lp_crossover_rounds"] <= r.stats["solver_blocks"]  # one per block at most


@pytest.mark.parametrize(("status", "again"), [("kOptimal", False), ("kUnknown", True)])
def test_a_crossover_round_that_does_not_end_optimal_is_run_again(status, again):
    # after the interior point with crossover the options go back to the dual simplex, and a
    # round that did not end optimal is run again by it (while time is left)
    import highspy

    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    W = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 1.0], [1.0, 2.0, 0.0]])
    tuning = LpcutTuning(ipm_optimality_tol=3e-10)
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, tuning=tuning)
    fake = model.h = _FakeHighs(getattr(highspy.HighsModelStatus, status), True)
    assert model._end_crossover_round(NO_DEADLINE) is not again
    assert fake.options == {
        "solver": "simplex",
        "run_crossover": "off",
        "ipm_optimality_tolerance": 3e-10,
    }


def test_the_interior_point_tolerance_holds_for_its_rounds_not_crossover_or_the_mip():
    # the tuned optimality tolerance is set for the LP rounds, HiGHS's default for a round
    # with crossover (judged as in the measurements) and for the MIP
    from schedlab.solvers.lop.lpcut.lp_model import IPM_DEFAULT_OPT_TOL
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    W = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 1.0], [1.0, 2.0, 0.0]])
    tuning = LpcutTuning(ipm_optimality_tol=3e-10, crossover_min_rows_per_n=0.0)
    model = HighsCutModel(W, gap_abs=0.5, close_abs=0.5, seed=0, tuning=tuning)
    model.ipm_tolerance(model.tuning.ipm_optimality_tol)
    assert model.h.getOptionValue("ipm_optimality_tolerance")[1] == 3e-10
    model.lp_solver = "simplex"
    model.h.addRow(-np.inf, 1.0, 2, np.array([0, 1], dtype=np.int32), np.ones(2))
    assert model._crossover_round()
    assert model.h.getOptionValue("ipm_optimality_tolerance")[1] == IPM_DEFAULT_OPT_TOL
    model.ipm_tolerance(None)
    assert model.h.getOptionValue("ipm_optimality_tolerance")[1] == IPM_DEFAULT_OPT_TOL


@pytest.mark.parametrize("tol", [3e-10, 1e-7])
@pytest.mark.parametrize(("n1", "seed"), [(14, 320), (16, 301)])
def test_crossing_blocks_by_the_interior_point_at_its_tolerance_prove_the_dp(
    monkeypatch, tol, n1, seed
):
    # the interior point's rounds at the tuned tolerance, and at a loose one, prove the subset
    # DP's optimum: the bound comes from the duals whatever their precision
    from schedlab.solvers.lop.lpcut.options import LpcutOptions

    tuning = CrossingTuning(ipm_min_free_share=0.0, ipm_optimality_tol=tol)  # interior point
    g = random_ocr_graph(16, n1, seed, mean_degree=3.0, span=12, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    W, _ = block_matrix(sc, sc.active)
    r = solve_graph(g, deadline=Deadline.after(60), seed=0, options=LpcutOptions(route="lp"),
                    twins=False, tuning=tuning)  # fmt: skip
    assert r.status is Status.OPTIMAL and r.value == subset_dp(W) == r.bound
    assert r.stats["lp_solver_ipm"] >= 1
