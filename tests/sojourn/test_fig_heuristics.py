"""Figure sojourn-heuristics (the shared gap study): files, honest numbers, resume, registration;
bench smoke run."""

from __future__ import annotations

import csv
import math

import pytest

import schedlab.experiments.gap.study as gap_study
from schedlab.experiments.registry import BENCHMARKS, figures
from schedlab.experiments.sojourn.fig_heuristics import NAME, STEM, figure, paired_differences
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

    with open(tmp_path / "sojourn" / f"{STEM}-paired.csv") as fh:
        paired = list(csv.DictReader(fh))
    assert {(r["alternative"], r["policy"]) for r in paired} == {
        ("gittins", "smith"), ("gittins", "uindex")
    }  # fmt: skip
    assert {(r["group"], r["size"]) for r in paired} == {(r["group"], r["size"]) for r in table}
    assert all(int(r["instances"]) == 3 for r in paired)

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


def _row(i, method, gap, proven=True, group="B", size=5):
    return {"group": group, "size": size, "i": i, "method": method, "gap": gap, "proven": proven}


def test_paired_differences_pair_by_instance():
    # the alternative's gaps listed in the opposite instance order to the policy's: pairing by
    # position would give differences 0.9, 0.2, -0.5 instead of 0.1, 0.2, 0.3
    alt = [_row(2, "gittins", 0.6), _row(1, "gittins", 0.4), _row(0, "gittins", 0.2)]
    pol = [_row(0, "smith", 0.1), _row(1, "smith", 0.2), _row(2, "smith", 0.3)]
    noise = [
        _row(3, "gittins", 5.0, proven=False),  # unproven: left out
        _row(3, "smith", 0.0, proven=False),
        _row(4, "gittins", 1.0),  # no smith row for instance 4: not a pair
        _row(0, "smith", 9.0, size=8),  # another size, alone: no row for it
        _row(0, "dp", 0.0),  # the exact method: neither alternative nor policy
    ]
    (got,) = paired_differences(alt + noise + pol, alternatives=("gittins",), policies=("smith",))
    assert (got["group"], got["size"], got["alternative"], got["policy"]) == (
        "B", 5, "gittins", "smith"
    )  # fmt: skip
    assert got["instances"] == 3
    assert math.isclose(got["mean_diff"], 0.2, rel_tol=1e-12)
    # differences 0.1, 0.2, 0.3: sd 0.1, t(0.975, 2) = 4.302652729911275
    assert math.isclose(got["mean_diff_ci95"], 4.302652729911275 * 0.1 / math.sqrt(3), rel_tol=1e-9)
    # the unpaired interval (of the alternative's mean minus the policy's) is another number
    unpaired = 4.302652729911275 * math.sqrt(0.2**2 / 3 + 0.1**2 / 3)
    assert not math.isclose(got["mean_diff_ci95"], unpaired, rel_tol=0.05)


def test_paired_differences_one_instance_has_no_interval():
    rows = [_row(0, "gittins", 0.3), _row(0, "smith", 0.1), _row(0, "uindex", 0.3)]
    out = paired_differences(rows)
    assert [(r["policy"], r["instances"], r["mean_diff_ci95"]) for r in out] == [
        ("smith", 1, None), ("uindex", 1, None)
    ]  # fmt: skip
    assert math.isclose(out[0]["mean_diff"], 0.2, rel_tol=1e-12) and out[1]["mean_diff"] == 0.0
