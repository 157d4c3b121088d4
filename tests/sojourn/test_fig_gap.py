"""Figure sojourn-gap (the shared gap study, family b-large): files, the gaps equal claim 7's
computation on the same instances, resume, registration, a new index heuristic without edit."""

from __future__ import annotations

import csv
import json
import math

import pytest

import schedlab.experiments.gap.study as gap_study
from schedlab.experiments.registry import figures
from schedlab.experiments.sojourn.fig_gap import NAME, figure
from schedlab.experiments.sweep import SweepError
from schedlab.theory.sojourn.gap_study import GAP_CONFIGS, gap_rows, summarize


def test_registered_for_reproduce():
    assert figures()[NAME].meta["in_reproduce"]


def test_files_numbers_and_resume(tmp_path, monkeypatch):
    paths = figure("tiny", 1, tmp_path)
    names = {p.name for p in paths}
    assert {f"{NAME}.png", f"{NAME}.pdf", f"{NAME}.csv", f"{NAME}.json", f"{NAME}.md",
            f"{NAME}-instances.csv"} <= names  # fmt: skip
    with open(tmp_path / "sojourn" / f"{NAME}.csv") as fh:
        table = list(csv.DictReader(fh))
    cfg = GAP_CONFIGS["tiny"]
    assert sorted({int(r["size"]) for r in table}) == cfg["ns"]
    # the same instances and optima as claim 7's own computation (theory.sojourn.gap_study)
    ref = {e["n"]: e for e in summarize(gap_rows(cfg, 1))["per_n"]}
    for r in table:
        if r["method"] in ("smith", "uindex"):
            e = ref[int(r["size"])]
            assert int(r["proven"]) == e["proven_optimal"] == cfg["count"]
            for ours, theirs in (("mean_gap", "mean"), ("median_gap", "median"),
                                 ("worst_gap", "max")):  # fmt: skip
                assert math.isclose(float(r[ours]), e[r["method"]][theirs], abs_tol=1e-9)
    meta = json.loads((tmp_path / "sojourn" / f"{NAME}.json").read_text())
    assert {"smith", "uindex"} <= set(meta["slopes"]) and sum(meta["proofs"].values()) == 15

    def boom(cell):
        raise AssertionError("row recomputed")

    monkeypatch.setattr(gap_study, "solve_cell", boom)  # a rerun reads every cell back
    figure("tiny", 1, tmp_path)
    with pytest.raises(SweepError, match="recomputed"):
        figure("tiny", 2, tmp_path)
