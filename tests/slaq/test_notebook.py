"""The SLAQ notebook runs end to end at tiny size, in a temporary folder."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03_slaq.ipynb"


def test_notebook_executes_tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_NB_SIZE", "tiny")
    monkeypatch.setenv("SCHEDLAB_NB_OUT", str(tmp_path / "results"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "\n".join(o.get("text", "") for o in outputs)
    assert "paper: fitted 4.27%" in text and "milp    optimal" in text
    assert "quality improvement %" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert (tmp_path / "results" / "slaq" / "slaq-quality.pdf").exists()
