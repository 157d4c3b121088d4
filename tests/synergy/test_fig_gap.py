"""Figure synergy-gap at tiny size: files, honest gaps, resumability."""

from __future__ import annotations

import csv

from schedlab.experiments.registry import figures
from schedlab.experiments.synergy import fig_gap


def test_tiny_figure_writes_files_and_resumes(tmp_path):
    assert "synergy-gap" in figures() and figures()["synergy-gap"].meta["in_reproduce"]
    paths = fig_gap.make("tiny", 0, tmp_path)
    names = {p.name for p in paths}
    assert {
        "synergy-gap.csv",
        "synergy-gap-snapshots.csv",
        "synergy-gap.png",
        "synergy-gap.pdf",
    } <= names
    rows = list(csv.DictReader(open(tmp_path / "synergy" / "synergy-gap-snapshots.csv")))
    assert len(rows) == 2 * 2 * 2  # mixes x sizes x count
    for r in rows:
        assert r["exact_status"] == "optimal"
        for h in ("proportional", "tune", "opt"):  # in the exact feasible set: never better
            assert float(r[f"{h}_gap"]) >= -1e-9
            assert r[f"{h}_feasible_set"] == "True"
    summary = list(csv.DictReader(open(tmp_path / "synergy" / "synergy-gap.csv")))
    assert len(summary) == 2 * 2 * 4
    # rerun resumes from the journal: same rows, nothing recomputed
    journal = tmp_path / "synergy" / "synergy-gap-tiny.jsonl"
    before = journal.read_text()
    fig_gap.make("tiny", 0, tmp_path)
    assert journal.read_text() == before
