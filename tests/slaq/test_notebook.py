"""The SLAQ notebook runs end to end at tiny size, in a temporary folder."""

from __future__ import annotations

from tests.notebooks import run_notebook


def test_notebook_executes_tiny(tmp_path, monkeypatch):
    ran = run_notebook("03_slaq.ipynb", tmp_path, monkeypatch)
    assert "paper: fitted 4.27%" in ran.text and "milp    optimal" in ran.text
    assert "quality improvement %" in ran.text
    assert ran.has_image
    assert (ran.results / "slaq" / "slaq-quality.pdf").exists()
