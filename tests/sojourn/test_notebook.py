"""The sojourn notebook runs end to end at tiny size, in a temporary folder."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "01_successful_sojourn.ipynb"


def test_notebook_executes_small(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_NB_SIZE", "tiny")
    monkeypatch.setenv("SCHEDLAB_NB_OUT", str(tmp_path / "results"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    text = "\n".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "claim 4: fails" in text
    assert "claim 1: holds" in text
    assert any(
        "image/png" in o.get("data", {})
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
    )
    assert (tmp_path / "results" / "sojourn" / "sojourn-gap.png").exists()
    assert (tmp_path / "results" / "theory" / "claim4-smallest-counterexample.json").exists()
