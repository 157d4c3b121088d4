"""The Synergy notebook runs end to end at tiny size, in a temporary folder."""

from __future__ import annotations

import csv

from tests.notebooks import run_notebook


def test_notebook_executes_tiny(tmp_path, monkeypatch):
    ran = run_notebook("02_synergy.ipynb", tmp_path, monkeypatch)
    assert "proportional / TUNE:" in ran.text and "dynamic-100job" in ran.text
    assert ran.has_image
    d = ran.results / "synergy"
    for name in ("synergy-jct.png", "synergy-jct.pdf", "synergy-jct.csv"):
        assert (d / name).exists()
    rows = list(csv.DictReader((d / "synergy-jct_ratios.csv").open()))
    assert {r["policy"] for r in rows} == {"fifo", "srtf"}
    assert all(float(r["proportional_over_tune"]) > 0 for r in rows)
