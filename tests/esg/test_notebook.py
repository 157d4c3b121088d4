"""The ESG notebook runs end to end at tiny size, in a temporary folder."""

from __future__ import annotations

from tests.notebooks import run_notebook


def test_notebook_executes_tiny(tmp_path, monkeypatch):
    ran = run_notebook("04_esg.ipynb", tmp_path, monkeypatch)
    assert "astar    optimal" in ran.text and "split (slack)" in ran.text
    assert ran.has_image
    d = ran.results / "esg"
    for name in ("esg.png", "esg.pdf", "esg-cells.csv", "esg-summary.json"):
        assert (d / name).exists()
