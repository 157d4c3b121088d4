"""The `esg` figure's exact comparison: brute force where it fits, CP-SAT everywhere."""

from __future__ import annotations

import json

from schedlab.experiments.esg import fig_esg


def test_chain_beyond_brute_cap_is_checked_by_cpsat_only(tmp_path) -> None:
    # chain 1: 4 stages x 400 configurations = 2.6e10 paths, above brute force's 1e9 cap
    rows = fig_esg.exact_rows({"chains": 2, "dags": 0, "configs": 400}, 0, tmp_path)
    row = next(r for r in rows if r["i"] == 1)
    assert row["raw_space"] > 1e9
    assert row["agree_brute"] is None
    assert row["agree_cpsat"] is True


def test_small_chain_is_checked_by_brute_force_too(tmp_path) -> None:
    rows = fig_esg.exact_rows({"chains": 1, "dags": 0, "configs": 15}, 0, tmp_path)
    (row,) = rows
    assert row["i"] == 0 and row["raw_space"] <= 1e9
    assert row["agree_brute"] is True and row["agree_cpsat"] is True


def test_tiny_figure_counts_brute_checked_chains(tmp_path) -> None:
    fig_esg.make("tiny", 0, tmp_path)
    summary = json.loads((tmp_path / "esg" / "esg-summary.json").read_text())
    assert summary["chains_brute"] == summary["chains"] == 4
    assert summary["astar_agrees_brute"] == summary["astar_agrees_cpsat"] == 4


def test_tiny_figure_writes_the_evaluation(tmp_path) -> None:
    fig_esg.make("tiny", 0, tmp_path)
    d = tmp_path / "esg"
    for name in ("esg-cells.csv", "esg-paired.csv", "esg-paper.csv", "esg-runs.csv",
                 "esg-table.md", "esg.png"):  # fmt: skip
        assert (d / name).exists(), name
    summary = json.loads((d / "esg-summary.json").read_text())
    assert summary["evaluation"]["comparisons"] == 2 * 8  # 2 apps x 1 load x 8 arms but esg
    table = (d / "esg-table.md").read_text()
    assert "no-gpu-sharing" in table and "Paper vs ours" in table


def test_log_ticks_are_plain_numbers() -> None:
    from schedlab.experiments.plotting import new_figure

    fig, ax = new_figure()
    ax.loglog([1e4, 1e9], [3, 6], "o")
    fig_esg.plain_log_ticks(ax)
    fig.canvas.draw()
    ys = {t.get_text() for t in ax.get_yticklabels(minor=True) if t.get_text()}
    assert {"3", "4", "5", "6"} <= ys and not any("times" in y for y in ys)
    xs = {t.get_text() for t in ax.get_xticklabels() if t.get_text()}
    assert "$10^{6}$" in xs
