"""The sojourn notebook runs end to end at tiny size, in a temporary folder."""

from __future__ import annotations

from tests.notebooks import run_notebook


def test_notebook_executes_small(tmp_path, monkeypatch):
    ran = run_notebook("01_successful_sojourn.ipynb", tmp_path, monkeypatch)
    assert "claim 4: fails" in ran.text
    assert "claim 1: holds" in ran.text
    assert ran.has_image
    assert (ran.results / "sojourn" / "sojourn-gap.png").exists()
    assert (ran.results / "theory" / "claim4-smallest-counterexample.json").exists()
