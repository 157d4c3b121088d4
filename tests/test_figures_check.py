"""`plotting.check_figure` and the drawing helpers: each problem it names is found on a figure
that has it and not on one drawn with the helpers (a one-value sweep as categories, intervals
clipped at their floor, a caption wrapped to the canvas, "no data" in words)."""

from __future__ import annotations

import math

import pytest

from schedlab.experiments.plotting import (
    PALETTE,
    Series,
    check_figure,
    clip_interval,
    colours_for,
    new_figure,
    no_data,
    plot_series,
    save_figure,
)


def problems_of(draw) -> list[str]:
    fig, ax = new_figure(figsize=(5, 3.5))
    draw(fig, ax)
    return check_figure(fig)


def test_a_panel_with_only_a_reference_line_has_no_data() -> None:
    found = problems_of(lambda fig, ax: ax.axhline(0.0))
    assert any("no plotted data" in p for p in found)


def test_no_data_in_words_passes() -> None:
    assert problems_of(lambda fig, ax: no_data(ax)) == []


def test_one_x_value_on_a_numeric_axis_is_found() -> None:
    found = problems_of(lambda fig, ax: ax.errorbar([0.3, 0.3], [50, 60], yerr=5, marker="o"))
    assert any("one x value (0.3)" in p for p in found)


def test_repeated_tick_labels_are_found() -> None:
    def draw(fig, ax):
        ax.plot([0.3001, 0.3004], [1, 2])
        ax.xaxis.set_major_formatter("{x:.2f}")

    assert any("tick labels repeat" in p for p in problems_of(draw))


def test_a_caption_outside_the_canvas_and_over_a_panel_are_found() -> None:
    def draw(fig, ax):
        ax.plot([1, 2], [1, 2])
        ax.set_xlabel("x label")
        fig.text(0.01, 0.01, "a caption " * 40, fontsize=7)
        fig.text(0.5, 0.5, "over the panel")

    found = problems_of(draw)
    assert any("'a caption" in p and "outside the canvas" in p for p in found)
    assert any("'over the panel" in p and "over panel 0" in p for p in found)


def test_a_one_value_sweep_is_drawn_as_categories(tmp_path) -> None:
    fig, axes = new_figure(1, 2, figsize=(8, 3.5))
    one = [Series("esg", [0.3], [95.0], [80.0], [110.0]), Series("batch", [0.3], [60.0])]
    plot_series(axes[0], one, xlabel="offered load", floor=0.0, ceiling=100.0)
    two = [Series("esg", [0.3, 0.6], [95.0, 90.0], [80.0, -5.0], [99.0, 99.0])]
    plot_series(axes[1], two, xlabel="offered load", floor=0.0, ceiling=100.0)
    save_figure(fig, tmp_path / "f", "caption " * 60)
    assert check_figure(fig) == []
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["esg", "batch"]
    assert axes[0].get_xlabel() == "offered load 0.3 (one value)"
    assert (tmp_path / "f.png").stat().st_size > 0


def test_empty_series_say_no_data() -> None:
    fig, ax = new_figure()
    plot_series(ax, [Series("esg", [], [])], xlabel="load")
    assert not ax.axison and check_figure(fig) == []


def test_intervals_are_clipped_at_the_floor_and_ceiling() -> None:
    below, above = clip_interval([2.0, 99.0, 5.0], [-3.0, 90.0, math.nan], [8.0, 104.0, 7.0],
                                 floor=0.0, ceiling=100.0)  # fmt: skip
    assert below == [2.0, 9.0, 0.0] and above == pytest.approx([6.0, 1.0, 2.0])


def test_methods_keep_their_colour_and_never_share_one() -> None:
    a = colours_for(["esg", "batch", "greedy"])
    b = colours_for(["batch", "esg", "x", "y"])
    assert a["esg"] == b["esg"] and a["batch"] == b["batch"] and a["esg"] != a["batch"]
    assert len(set(b.values())) == 4
    rgb = [tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in PALETTE]
    closest = min(math.dist(p, q) for i, p in enumerate(rgb) for q in rgb[i + 1 :])
    assert closest > 60  # no two near-identical colours (the old ESG and BATCH teals)
