"""`schedlab reproduce`: which studies it runs (every one the report reads), `--list` (the plan,
nothing run), and its run record (the studies by name, the commit, the plan of the next run)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from schedlab.experiments import commands
from schedlab.experiments.cli import cli
from schedlab.experiments.registry import figures
from schedlab.experiments.studies import StudyStats
from schedlab.experiments.sweep import SerialEngine
from schedlab.solvers.errors import InvalidInput
from schedlab.theory.catalogue import catalogues
from schedlab.theory.claims import claims


def names(size: str, tmp_path: Path) -> list[str]:
    return [s.name for s, _ in commands.reproduce_studies(size, 0, tmp_path)]


def read_by_rows(size: str) -> set[str]:
    return {
        c.ours.study
        for cat in catalogues().values()
        for c in cat.claims
        if c.ours.study and size in c.sizes
    }


def test_the_full_run_runs_every_study_a_report_row_reads(tmp_path):
    run = names("full", tmp_path)
    assert read_by_rows("full") <= set(run)
    # the studies the committed report read from runs by hand before
    assert {"synergy-seeds", "esg-scale", "synergy-fig1", "synergy-cpu-ratio"} <= set(run)
    assert {f"claim-{cid}" for cid in claims()} <= set(run)
    marked = {n for n, e in figures().items() if e.meta.get("in_reproduce")}
    assert marked <= set(run)
    assert len(run) == len(set(run))


def test_the_small_run_adds_only_rows_computed_at_small(tmp_path):
    run = set(names("small", tmp_path))
    marked = {n for n, e in figures().items() if e.meta.get("in_reproduce")}
    figs = {n for n in run if not n.startswith("claim-")}
    assert figs == marked | read_by_rows("small")
    assert "synergy-seeds" not in run  # its row is computed at size full only


def test_a_row_naming_an_unregistered_study_is_refused(monkeypatch):
    from schedlab.theory import catalogue

    cats = catalogues()
    slaq = cats["slaq"]
    first = slaq.claims[0]
    bad = dataclasses.replace(first, ours=dataclasses.replace(first.ours, study="no-such-fig"))
    bad_cats = {"slaq": dataclasses.replace(slaq, claims=[bad, *slaq.claims[1:]])}
    monkeypatch.setattr(catalogue, "catalogues", lambda: bad_cats)
    with pytest.raises(InvalidInput, match="no-such-fig"):
        commands.catalogue_studies(bad.sizes[0])


def manifest(study: str, size: str = "full", **change) -> dict:
    m = {"study": study, "kind": "figure", "subject": "", "size": size, "seed": 0,
         "code_version": "x", "status": "ok", "command": "c", "cells": 12, "computed": 12,
         "cell_cpu_s": 30.0, "cpu_s": 31.5, "wall_s": 20.0, "peak_mb": 99.0, "files": [],
         "finished_at": "then"}  # fmt: skip
    m.update(change)
    return m


def write_manifest(out: Path, m: dict) -> None:
    (out / "manifests").mkdir(parents=True, exist_ok=True)
    (out / "manifests" / f"{m['study']}.json").write_text(json.dumps(m))


def test_list_prints_the_plan_and_runs_nothing(tmp_path, monkeypatch):
    def no_run(*args, **kwargs):
        raise AssertionError("--list ran a study")

    monkeypatch.setattr(commands, "run_studies", no_run)
    monkeypatch.setattr(commands, "using", no_run)
    write_manifest(tmp_path, manifest("synergy-seeds", longest_cell_cpu_s=6.0))
    write_manifest(tmp_path, manifest("esg-scale", size="small"))  # another size: not a plan
    before = sorted(p.name for p in tmp_path.rglob("*"))
    args = ["reproduce", "--size", "full", "--list", "--out", str(tmp_path)]
    got = CliRunner().invoke(cli, [*args, "--json"])
    assert got.exit_code == 0, got.output
    data = json.loads(got.output)
    rows = {r["study"]: r for r in data["studies"]}
    assert [r["study"] for r in data["studies"]] == names("full", tmp_path)
    assert (rows["synergy-seeds"]["cells"], rows["synergy-seeds"]["cpu_s"]) == (12, 31.5)
    assert rows["synergy-seeds"]["why"] == "read by 1 report row"
    assert rows["esg-scale"]["cells"] is None
    assert data["total"] == {"studies": len(rows), "measured": 1, "cells": 12,
                             "cell_cpu_s": 30.0, "cpu_s": 31.5}  # fmt: skip
    assert rows["synergy-seeds"]["longest_cell_cpu_s"] == 6.0
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == 0 and "synergy-seeds" in text.output
    assert "critical path: the longest cell, 6.0 CPU-s (synergy-seeds); wall of the cells: " in (
        text.output
    )
    assert "2 workers >= 15 s (CPU / workers)" in text.output
    assert "16 workers >= 6 s (the longest cell)" in text.output
    assert "never run here at this size and seed: " in text.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written


def test_json_without_list_is_a_usage_error(tmp_path):
    got = CliRunner().invoke(cli, ["reproduce", "--json", "--out", str(tmp_path)])
    assert got.exit_code == 2 and "--json: only with --list" in got.output


def stats(name: str, cells: int, cpu: float) -> StudyStats:
    s = StudyStats(name, "figure", "", "small", 0, "v", "t", "c", cells=cells, cell_cpu_s=cpu)
    s.status = "ok"
    return s


def test_the_run_record_names_its_studies_and_plans_the_next_run(tmp_path):
    ran = [stats("esg", 40, 8.0), stats("claim-5", 1, 2.0)]
    path = commands.record_run(tmp_path, "small", 0, SerialEngine(), ran, 12.5)
    record = json.loads(path.read_text())
    assert record["study_names"] == ["esg", "claim-5", "report"]
    assert (record["cells"], record["wall_s"], record["cpu_s"]) == (41, 12.5, 10.0)
    assert "commit" in record and record["command"] == "schedlab reproduce --size small --seed 0"
    # a later full run overwrites the manifests; the small run's plan survives in runs/
    write_manifest(tmp_path, manifest("esg", size="full"))
    study = commands.figure_study("esg", "small", 0, tmp_path)
    plan = commands.plan_of([study], tmp_path)
    assert (plan["esg"].cells, plan["esg"].cpu_s) == (40, 8.0)
    full = commands.figure_study("esg", "full", 0, tmp_path)
    assert commands.plan_of([full], tmp_path)["esg"].cells == 12
