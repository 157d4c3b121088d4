"""Run a shipped notebook at tiny size in a temporary folder (shared by the notebook tests)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@dataclass(frozen=True)
class Executed:
    """The printed text and the outputs of every code cell, and the results folder."""

    text: str
    outputs: list[dict[str, Any]]
    results: Path

    @property
    def has_image(self) -> bool:
        return any("image/png" in o.get("data", {}) for o in self.outputs)


def run_notebook(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Executed:
    """Execute notebooks/NAME with SCHEDLAB_NB_SIZE=tiny and results under tmp_path/results."""
    results = tmp_path / "results"
    monkeypatch.setenv("SCHEDLAB_NB_SIZE", "tiny")
    monkeypatch.setenv("SCHEDLAB_NB_OUT", str(results))
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "\n".join(o.get("text", "") for o in outputs)
    return Executed(text, outputs, results)
