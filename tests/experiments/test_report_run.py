"""The report shows only what the studies of the run wrote: a manifest of a study outside the
run or of no registered study, a result file its study's manifest does not list, a verdict of
a claim check that did not run: each is skipped and listed, its rows missing. Its header names
the run's command, commit, wall and CPU time."""

from __future__ import annotations

import json
from pathlib import Path

from schedlab.experiments.report.collect import collect
from schedlab.experiments.report.render import write_report
from schedlab.theory.catalogue import catalogues
from tests.experiments.report_fixtures import manifest, results_folder, write_table

RUN = {"command": "schedlab reproduce --size small --seed 0", "size": "small", "seed": 0,
       "commit": "abc123", "studies": 1, "cells": 3, "wall_s": 400.0, "cpu_s": 700.0,
       "workers": 2, "finished_at": "2026-12-07T20:00:00+0000",
       "study_names": ["slaq-prediction", "report"]}  # fmt: skip


def folder(tmp_path: Path, run: dict | None = RUN, listed: bool = True) -> Path:
    """slaq-prediction's table and manifest (listing the table when `listed`), the run record."""
    return results_folder(tmp_path, listed=listed, run=run)


def add_by_hand(res: Path, study: str) -> str:
    """A study run by hand beside the run: its table, a figure and its manifest."""
    from PIL import Image

    path = res / "slaq" / f"{study}.csv"
    rows = [{"workload": "authors", "family": "all", "quality_up_to_pct": 70.0,
             "delay90_ratio_of_means_pct": 40.0}]  # fmt: skip
    write_table(path, rows)
    png = res / "slaq" / f"{study}.png"
    Image.new("RGB", (8, 8), "white").save(png)
    m = manifest(study, [str(path), str(png)])
    (res / "manifests" / f"{study}.json").write_text(json.dumps(m))
    return str(path)


def slaq(res: Path):
    data = collect(res, "small", {"slaq": catalogues()["slaq"]})
    return data, {r.claim_id: r for r in data.rows}


def test_a_study_outside_the_run_is_skipped_and_its_rows_missing(tmp_path):
    res = folder(tmp_path)
    path = add_by_hand(res, "slaq-quality")
    data, rows = slaq(res)
    assert "slaq-quality" not in data.manifests
    for cid in ("quality-up-to-73", "delay-up-to-44"):
        assert (rows[cid].verdict, rows[cid].ours) == ("missing", "-")
        assert rows[cid].reason == "no study slaq-quality in this run"
    skipped = {s["path"]: s["reason"] for s in data.skipped}
    assert "not one of the studies of the run" in skipped[str(res / "manifests/slaq-quality.json")]
    assert "written by study slaq-quality" in skipped[path]
    write_report(data, tmp_path / "report")
    figs = {p.name for p in (tmp_path / "report" / "figures").iterdir()}
    assert not any(f.startswith("slaq-quality--") for f in figs)
    assert rows["prediction-logreg-fit"].verdict == "reproduced"  # the run's own study


def test_an_unregistered_study_is_skipped(tmp_path):
    res = folder(tmp_path, run=None)
    add_by_hand(res, "slaq-made-up")
    data, _ = slaq(res)
    skipped = {Path(s["path"]).name: s["reason"] for s in data.skipped}
    assert "not a registered study" in skipped["slaq-made-up.json"]
    assert "slaq-made-up" not in data.manifests


def test_a_file_the_studys_manifest_does_not_list_is_not_shown(tmp_path):
    res = folder(tmp_path, listed=False)
    data, rows = slaq(res)
    fit = rows["prediction-logreg-fit"]
    assert (fit.verdict, fit.ours) == ("missing", "-")
    assert "not among the files study slaq-prediction wrote" in fit.reason
    assert str(res / "slaq" / "slaq-prediction.csv") in {s["path"] for s in data.skipped}


def test_a_verdict_of_a_claim_check_outside_the_run_is_not_shown(tmp_path):
    res = folder(tmp_path)
    (res / "theory").mkdir()
    verdicts = {"size": "small", "seed": 0, "claims": [{"id": "9", "verdict": "holds"}]}
    (res / "theory" / "verify-small-s0.json").write_text(json.dumps(verdicts))
    _, rows = slaq(res)
    row = rows["greedy-concave"]  # claim 9
    assert (row.verdict, row.ours, row.reason) == ("missing", "-", "no study claim-9 in this run")


def test_the_header_names_the_runs_command_commit_wall_and_cpu(tmp_path):
    res = folder(tmp_path)
    write_report(slaq(res)[0], tmp_path / "report")
    md = (tmp_path / "report" / "report.md").read_text()
    assert (
        "written by one command, `schedlab reproduce --size small --seed 0` at commit abc123: "
        "1 study, 3 cells, 400 s (7 min) wall, 700 s (12 min) CPU on 2 workers"
    ) in md
    assert "study_names" not in md
    res2 = folder(tmp_path / "by-hand", run=None)
    write_report(slaq(res2)[0], tmp_path / "report2")
    assert "No run record of size small" in (tmp_path / "report2" / "report.md").read_text()
    old = {k: v for k, v in RUN.items() if k != "study_names"}  # a record before the list
    res3 = folder(tmp_path / "old", run=old)
    write_report(slaq(res3)[0], tmp_path / "report3")
    assert "does not name its studies" in (tmp_path / "report3" / "report.md").read_text()
