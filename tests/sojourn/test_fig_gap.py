"""Figure sojourn-gap: files, numbers equal to the shared gap study, resume, registration."""

from __future__ import annotations

import csv
import math

import pytest

import schedlab.theory.sojourn.gap_study as gap_study
from schedlab.experiments.registry import figures
from schedlab.experiments.sojourn import fig_gap
from schedlab.experiments.sojourn.fig_gap import NAME, make
from schedlab.experiments.sweep import SweepError
from schedlab.theory.sojourn.gap_study import GAP_CONFIGS, gap_rows, summarize


def test_registered_for_reproduce():
    spec = figures()[NAME]
    assert spec.meta["in_reproduce"]


def test_files_numbers_and_resume(tmp_path, monkeypatch):
    cfg = GAP_CONFIGS["tiny"]
    paths = make(cfg, 1, tmp_path, "tiny")
    names = {p.name for p in paths}
    assert {f"{NAME}.png", f"{NAME}.pdf", f"{NAME}.csv", f"{NAME}.json"} <= names
    for p in paths:
        assert p.exists() and p.stat().st_size > 0
    with open(tmp_path / "sojourn" / f"{NAME}.csv") as fh:
        table = list(csv.DictReader(fh))
    assert [int(r["n"]) for r in table] == cfg["ns"]
    # the figure's numbers are the gap study's (one implementation, in memory here)
    ref = {e["n"]: e for e in summarize(gap_rows(cfg, 1))["per_n"]}
    for r in table:
        e = ref[int(r["n"])]
        assert int(r["proven_optimal"]) == e["proven_optimal"] == cfg["count"]
        for h in ("smith", "uindex"):
            for s in ("median", "p90", "mean"):
                assert math.isclose(float(r[f"{h}_{s}"]), e[h][s], rel_tol=1e-12, abs_tol=0)

    # a rerun resumes from the journal: no row is recomputed
    def boom(*a, **k):
        raise AssertionError("row recomputed")

    monkeypatch.setattr(gap_study, "gap_row", boom)
    monkeypatch.setattr(fig_gap, "plot", lambda *a, **k: [])  # drawing was checked above
    make(cfg, 1, tmp_path, "tiny")
    with pytest.raises(SweepError, match="recomputed"):  # a failing cell, reported by the sweep
        make(cfg, 2, tmp_path, "tiny")
