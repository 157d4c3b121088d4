"""Figure sojourn-heuristics: files, honest numbers, resume, registration; bench smoke run."""

from __future__ import annotations

import csv
import math

import pytest

from schedlab.experiments.registry import BENCHMARKS, figures
from schedlab.experiments.sojourn import fig_heuristics
from schedlab.experiments.sojourn.fig_heuristics import CONFIGS, NAME, STEM, heuristics, make
from schedlab.experiments.sweep import SweepError


def test_registered_for_reproduce():
    assert figures()[NAME].meta["in_reproduce"]
    assert "bench_exact" in BENCHMARKS.names()


def test_the_heuristics_are_the_baseline_tag():
    # the figure's heuristics come from the registry tag (batchlocal is not a baseline)
    assert heuristics() == (
        "fcfs",
        "sept",
        "ssf",
        "maxpi",
        "smith",
        "uindex",
        "local",
        "gittins",
        "sevcik",
    )


def test_files_numbers_and_resume(tmp_path, monkeypatch):
    cfg = CONFIGS["tiny"]
    paths = make(cfg, 1, tmp_path, "tiny")
    names = {p.name for p in paths}
    assert {f"{STEM}.png", f"{STEM}.pdf", f"{STEM}.csv", f"{STEM}-instances.csv"} <= names
    for p in paths:
        assert p.exists() and p.stat().st_size > 0
    with open(tmp_path / "sojourn" / f"{STEM}.csv") as fh:
        table = list(csv.DictReader(fh))
    assert len(table) == 2 * len(cfg["ns"]) * len(heuristics())
    for r in table:
        assert int(r["proven_optimal"]) == cfg["count"]  # dp proves every tiny instance
        assert float(r["mean_gap_pct"]) >= -1e-7  # no heuristic beats a proven optimum
        assert float(r["max_gap_pct"]) >= float(r["mean_gap_pct"]) - 1e-9
        if r["heuristic"] == "smith" and r["objective"] == "A":
            assert math.isclose(float(r["max_gap_pct"]), 0.0, abs_tol=1e-7)
            assert float(r["share_optimal"]) == 1.0

    # a rerun resumes from the journal: no row is recomputed
    def boom(*a, **k):
        raise AssertionError("row recomputed")

    monkeypatch.setattr(fig_heuristics, "compute_row", boom)
    monkeypatch.setattr(fig_heuristics, "plot", lambda *a, **k: [])  # drawing checked above
    make(cfg, 1, tmp_path, "tiny")
    with pytest.raises(SweepError, match="recomputed"):  # a failing cell, reported by the sweep
        make(cfg, 2, tmp_path, "tiny")  # another seed is another computation


def test_unproven_optimum_is_left_out():
    rows = [
        {"objective": o, "n": 20, "i": 0, "exact_status": "feasible",
         **{f"{h}_gap": None for h in heuristics()}}
        for o in ("A", "B")
    ]  # fmt: skip
    for s in fig_heuristics.summarize(rows):
        assert s["not_proven"] == 1 and s["proven_optimal"] == 0 and s["mean_gap_pct"] is None


def test_bench_exact_quick_runs(capsys, monkeypatch):
    from schedlab.experiments.sojourn import bench_exact

    monkeypatch.setattr(bench_exact, "QUICK_NS", [5, 8])
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
