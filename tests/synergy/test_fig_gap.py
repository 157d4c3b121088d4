"""Figure synergy-gap at tiny size (the shared gap study): files, honest gaps, resumability."""

from __future__ import annotations

import csv

import schedlab.experiments.gap.study as gap_study
from schedlab.experiments.registry import figures
from schedlab.experiments.synergy import fig_gap
from schedlab.solvers.solve import METHODS


def test_tiny_figure_writes_files_and_resumes(tmp_path, monkeypatch):
    assert "synergy-gap" in figures() and figures()["synergy-gap"].meta["in_reproduce"]
    paths = fig_gap.make("tiny", 0, tmp_path)
    names = {p.name for p in paths}
    assert {"synergy-gap.csv", "synergy-gap-snapshots.csv", "synergy-gap.md", "synergy-gap.png",
            "synergy-gap.pdf"} <= names  # fmt: skip
    rows = list(csv.DictReader(open(tmp_path / "synergy" / "synergy-gap-snapshots.csv")))
    heuristics = METHODS.names(scope="synergy", tag="heuristic")  # every one, by the registry
    assert len(rows) == 2 * 2 * 2 * (1 + len(heuristics))  # mixes x sizes x count x methods
    for r in rows:
        if r["method"] in ("proportional", "tune", "opt") and r["proven"] == "True":
            assert float(r["gap"]) >= -1e-9  # in the exact feasible set: never better
            assert r["in_exact_feasible_set"] == "True"
    summary = list(csv.DictReader(open(tmp_path / "synergy" / "synergy-gap.csv")))
    assert len(summary) == 2 * 2 * (1 + len(heuristics))
    assert {"mean_gap", "median_lo", "share_optimal", "share_in_feasible_set"} <= set(summary[0])

    def boom(cell):
        raise AssertionError("a cached cell was recomputed")

    monkeypatch.setattr(gap_study, "solve_cell", boom)  # a rerun reads every cell back
    fig_gap.make("tiny", 0, tmp_path)
