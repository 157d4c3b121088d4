"""Figure sojourn-heuristics (the shared gap study): files, honest numbers, resume, registration;
bench smoke run."""

from __future__ import annotations

import csv
import math

import pytest

import schedlab.experiments.gap.study as gap_study
from schedlab.experiments.registry import BENCHMARKS, figures
from schedlab.experiments.sojourn.fig_heuristics import NAME, STEM, figure
from schedlab.experiments.sweep import SweepError
from schedlab.solvers.solve import METHODS


def test_registered_for_reproduce():
    assert figures()[NAME].meta["in_reproduce"]
    assert "bench_exact" in BENCHMARKS.names()


def test_files_numbers_and_resume(tmp_path, monkeypatch):
    paths = figure("tiny", 1, tmp_path)
    names = {p.name for p in paths}
    assert {f"{STEM}.png", f"{STEM}.pdf", f"{STEM}.csv", f"{STEM}-instances.csv",
            f"{STEM}.md"} <= names  # fmt: skip
    for p in paths:
        assert p.exists() and p.stat().st_size > 0
    with open(tmp_path / "sojourn" / f"{STEM}.csv") as fh:
        table = list(csv.DictReader(fh))
    heuristics = METHODS.names(scope="sojourn", tag="heuristic")  # every registered one
    groups = {r["group"] for r in table}
    assert groups == {"A", "B", "TK (K = n/2)", "DK (K = n/2)"}
    assert len(table) == 4 * 2 * (1 + len(heuristics))  # objectives x n x (exact + heuristics)
    for r in table:
        assert int(r["proven"]) == 3  # dp proves every tiny instance
        assert float(r["mean_gap"]) >= -1e-9  # no heuristic beats a proven optimum
        assert float(r["worst_gap"]) >= float(r["mean_gap"]) - 1e-9
        if r["method"] == "smith" and r["group"] == "A":  # Smith's rule is optimal for A
            assert math.isclose(float(r["worst_gap"]), 0.0, abs_tol=1e-9)
            assert float(r["share_optimal"]) == 1.0

    def boom(cell):
        raise AssertionError("row recomputed")

    monkeypatch.setattr(gap_study, "solve_cell", boom)  # a rerun reads every cell back
    figure("tiny", 1, tmp_path)
    with pytest.raises(SweepError, match="recomputed"):  # a failing cell, reported by the sweep
        figure("tiny", 2, tmp_path)  # another seed is another computation


def test_bench_exact_quick_runs(capsys, monkeypatch):
    from schedlab.experiments.sojourn import bench_exact

    monkeypatch.setattr(bench_exact, "QUICK_NS", [5, 8])
    # every ladder here takes milliseconds; the wide limit keeps a slow solve on a busy machine (on
    # CI, CBC's plain model at n = 5 once took 6.01 s) from ending a ladder: this test checks the
    # report, not the speed
    monkeypatch.setattr(bench_exact, "QUICK_LIMIT_S", 60.0)
    monkeypatch.setattr(bench_exact, "QUICK_CYCLIC_NS", [6, 10])
    monkeypatch.setattr(bench_exact, "COMPONENT_NS", [10, 20])
    monkeypatch.setattr(
        bench_exact, "QUICK_ROUTE_LADDERS", {"default": [8], "cyclic": [8], "dense": [8]}
    )
    bench_exact.run(quick=True)
    out = capsys.readouterr().out
    assert "largest n proven" in out and "cpsat (blocks+lazy)" in out and "lpcut" in out
    both = len(bench_exact.METHODS) + len(bench_exact.CYCLIC_METHODS)
    assert out.count("ladder exhausted") == both, out  # which ladder stopped, and why
    assert "cyclic" in out and "jobs in 1-job blocks" in out
    assert "auto / fastest" in out and out.count("- (ladder end)") == 3 * 4  # families x routes
