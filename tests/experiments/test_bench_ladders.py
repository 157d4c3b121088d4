"""bench_ladders: the ladder LP never passes the optimum lpcut proves (the ladders are valid),
it rises above the triangle LP where that has a gap, and bad input is refused."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.bench.bench_ladders import (
    instances,
    largest_block,
    measure,
    uniform_matrix,
)
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.lop_graph import random_ocr_graph
from schedlab.solvers.sojourn.lop_matrix import dense_io_matrix, solve_lop_benchmark


def _proven_min(W: np.ndarray) -> float:
    """min over orders of sum_{a before b} W[a, b], proven by lpcut: on M = W^T the largest
    above-diagonal sum is W's total less that minimum."""
    res = solve_lop_benchmark(np.ascontiguousarray(W.T))
    assert res.status.value == "optimal"
    return float(W.sum()) - res.value


def test_the_ladders_close_the_triangle_gap_of_a_dense_matrix_at_its_optimum():
    W = dense_io_matrix(60, 2)
    run = measure("io", W, np.zeros(W.shape, dtype=bool), rounds=3)
    opt = _proven_min(W)
    assert run.triangle_lp == pytest.approx(139_806.75, abs=1e-6)
    assert opt == pytest.approx(139_934.0) == run.best
    assert run.ladder_lp == pytest.approx(opt, abs=1e-6)  # one round reaches it
    assert run.ladder_rows > 0 and run.ladder_rounds == 1


def test_on_a_uniform_matrix_the_ladders_raise_the_bound_and_stay_below_the_optimum():
    W = uniform_matrix(20, 2)
    run = measure("uniform", W, np.zeros(W.shape, dtype=bool), rounds=2)
    opt = _proven_min(W)
    assert opt == 7_909.0 and run.best >= opt
    assert run.triangle_lp == pytest.approx(7_886.5, abs=1e-6)
    assert run.ladder_lp == pytest.approx(55_347.0 / 7.0, abs=1e-6)  # 90% of the gap
    assert run.ladder_lp <= opt + 1e-6 and run.ladder_rounds == 2


def test_a_crossing_block_keeps_its_forced_pairs_and_its_twins_inner_crossings():
    g = random_ocr_graph(40, 30, 6, mean_degree=3.0, span=40)
    W, forced, inner = largest_block(g)
    run = measure("graph", W, forced, inner)
    assert forced.any() and run.free_pairs < W.shape[0] * (W.shape[0] - 1) // 2
    assert run.triangle_lp == pytest.approx(run.best)  # integral here: no ladder needed
    assert run.ladder_rows == 0 and run.row()["gap closed"] == "-"


def test_a_folder_without_graphs_is_refused_with_the_flag_named(tmp_path):
    with pytest.raises(InvalidInput, match="--lop-dir: no .gr file"):
        instances(False, str(tmp_path))


def test_the_registered_quick_run_prints_the_dense_row(capsys):
    from schedlab.experiments.registry import BENCHMARKS

    BENCHMARKS.get("bench_ladders").obj(quick=True)
    out = capsys.readouterr().out
    assert "dense io n=60 seed=2" in out and "139,806.75" in out and "100%" in out


def test_a_triangle_lp_cut_short_says_so_and_runs_no_ladder_round(monkeypatch):
    import schedlab.experiments.bench.bench_ladders as bench

    monkeypatch.setattr(bench, "MAX_TRIANGLE_ROUNDS", 2)
    W = dense_io_matrix(60, 2)
    lines: list[str] = []
    run = bench.measure("io", W, np.zeros(W.shape, dtype=bool), log=lines.append)
    assert not run.triangle_complete and run.ladder_rounds == 0 and run.ladder_rows == 0
    assert run.triangle_lp < 139_806.75 and run.row()["triangle LP"].endswith("(open)")
    assert len(lines) == 2 and "triangles round 1" in lines[-1]


def test_a_folder_of_graphs_is_read_one_graph_at_a_time(tmp_path):
    from schedlab.solvers.sojourn.lop_graph import write_ocr_text

    (tmp_path / "a.gr").write_text(write_ocr_text(random_ocr_graph(40, 30, 6, mean_degree=3.0,
                                                                   span=40)))  # fmt: skip
    (tmp_path / "b.gr").write_text("p ocr 2 2 1\nnot an edge\n")
    found = instances(False, str(tmp_path))
    name, W, forced, _ = next(found)  # b.gr is not read yet
    assert name == "a.gr" and W.shape == forced.shape and W.shape[0] > 2
    with pytest.raises(InvalidInput, match="b.gr"):
        next(found)
