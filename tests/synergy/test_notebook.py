"""The Synergy notebook runs end to end at tiny size, in a temporary folder."""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02_synergy.ipynb"


def test_notebook_executes_tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_NB_SIZE", "tiny")
    monkeypatch.setenv("SCHEDLAB_NB_OUT", str(tmp_path / "results"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "\n".join(o.get("text", "") for o in outputs)
    assert "proportional / TUNE:" in text and "dynamic-100job" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
    d = tmp_path / "results" / "synergy"
    for name in ("synergy-jct.png", "synergy-jct.pdf", "synergy-jct.csv"):
        assert (d / name).exists()
    rows = list(csv.DictReader((d / "synergy-jct_ratios.csv").open()))
    assert {r["policy"] for r in rows} == {"fifo", "srtf"}
    assert all(float(r["proportional_over_tune"]) > 0 for r in rows)
