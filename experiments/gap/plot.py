"""The one plot of a gap study: gap to the proven optimum versus size, one line per method.

One panel per group (objective, model mix, problem kind). Each compared method is a line of its
mean gap with the 95 % t-interval as error bars (not below 0 where the gap cannot be negative,
`_gap_floor`) and its worst gap as faint markers, each method in its colour (`colours_for`); a
group with one size shows the methods as categories at that size. The y axis is
logarithmic when the positive gaps span two decades or more (zero gaps then sit on a floor
line, said in the legend), the x axis when the sizes span a factor of ten.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.ticker import NullFormatter, ScalarFormatter

from schedlab.experiments.gap.study import ZERO_TOL, Study
from schedlab.experiments.plotting import DRAW_LOCK, colours_for, new_figure, no_data, save_figure

FLOOR_PCT = 100 * ZERO_TOL  # where zero gaps are drawn on a log axis (in %)


def _scale(values: list[float], span: float) -> str:
    pos = [v for v in values if v > 0]
    return "log" if pos and max(pos) / min(pos) >= span else "linear"


def _series(rows: list[dict[str, Any]], key: str, pct: bool) -> list[float]:
    k = 100.0 if pct else 1.0
    return [np.nan if r[key] is None else k * r[key] for r in rows]


def _gap_floor(row: dict[str, Any]) -> float:
    """Where a method's gap interval stops: 0 when its gaps cannot be negative (every solution
    in the exact problem's feasible set, none below the optimum), else nowhere (e.g. Synergy's
    GREEDY, outside that set, can beat the optimum)."""
    inside = row.get("share_in_feasible_set") in (None, 1, 1.0)
    return 0.0 if inside and not row.get("below_optimum") else -np.inf


def _size_axis(ax: Any, sizes: list[Any], drawn: list[str]) -> None:
    """One size: the methods as categories at it (not one point on a numeric axis); sizes
    spanning a factor of ten: a log axis with the sizes as ticks."""
    if len(sizes) == 1:
        ax.set_xticks(range(len(drawn)), drawn, rotation=20, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(drawn) - 0.4)
    elif _scale(sizes, 10.0) == "log":
        ax.set_xscale("log")
        ax.set_xticks(sizes)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())


def _panel(ax: Any, summary: list[dict[str, Any]], methods: list[str], colours: dict[str, str]):  # type: ignore[no-untyped-def]
    pct = summary[0]["gap_kind"] == "relative"
    values = [
        100 * s["worst_gap"] if pct else s["worst_gap"]
        for s in summary
        if s["worst_gap"] is not None
    ]
    values += [
        100 * s["mean_gap"] if pct else s["mean_gap"] for s in summary if s["mean_gap"] is not None
    ]
    ylog = _scale(values, 100.0) == "log" and all(v >= 0 for v in values)
    floor = FLOOR_PCT if pct else ZERO_TOL
    sizes = sorted({s["size"] for s in summary})
    drawn = [m for m in methods if any(s["method"] == m for s in summary)]
    for m in drawn:
        rows = [s for s in summary if s["method"] == m]
        x = [drawn.index(m) if len(sizes) == 1 else s["size"] for s in rows]
        mean = _series(rows, "mean_gap", pct)
        err = _series(rows, "mean_gap_ci95", pct)
        worst = _series(rows, "worst_gap", pct)
        if ylog:
            mean = [max(v, floor) if not np.isnan(v) else v for v in mean]
            worst = [max(v, floor) if not np.isnan(v) else v for v in worst]
        low = [floor if ylog else _gap_floor(r) for r in rows]
        lower = [0.0 if np.isnan(e) else max(min(e, m_ - lo), 0.0)
                 for e, m_, lo in zip(err, mean, low, strict=True)]  # fmt: skip
        yerr: Any = [lower, np.nan_to_num(err)]
        ls = "" if len(sizes) == 1 else "-"
        ax.errorbar(x, mean, yerr=yerr, marker="o", ms=4, capsize=3, ls=ls, color=colours[m],
                    label=f"{m}: mean (95 % CI)")  # fmt: skip
        ax.plot(x, worst, "v", ms=4, alpha=0.5, color=colours[m])
    if ylog:
        ax.set_yscale("log")
        ax.axhline(floor, color="0.6", lw=0.8, ls=":")
    _size_axis(ax, sizes, drawn)
    unit = "%" if pct else "absolute"
    scale = ", log scale" if ylog else ""
    ax.set_ylabel(f"gap to the proven optimum ({unit}{scale})")
    ax.grid(True, which="both", alpha=0.3)
    ax.plot([], [], "v", color="0.4", alpha=0.5, label="worst gap (triangles)")
    if ylog:
        unit_ = " %" if pct else ""
        ax.plot([], [], ":", color="0.6", label=f"gap ≤ {floor:g}{unit_} drawn at the dotted line")


def plot(
    study: Study,
    summary: list[dict[str, Any]],
    stem: Path,
    caption: str,
    xlabel: str = "instance size",
) -> list[Path]:
    """Write STEM.png/.pdf (`draw`), one figure at a time (`plotting.DRAW_LOCK`: studies run in
    threads and matplotlib's text layout is not thread-safe)."""
    with DRAW_LOCK:
        return draw(study, summary, stem, caption, xlabel)


def draw(
    study: Study,
    summary: list[dict[str, Any]],
    stem: Path,
    caption: str,
    xlabel: str = "instance size",
) -> list[Path]:
    """Write STEM.png/.pdf: per group (two panels a row), gap vs size per compared method, one
    legend below the panels."""
    compared = [s for s in summary if s["role"] == "method"]
    groups = list(dict.fromkeys(s["group"] for s in compared)) or ["(none)"]
    methods = list(dict.fromkeys(s["method"] for s in compared))
    colours = colours_for(methods)
    cols = min(len(groups), 2)
    nrows = -(-len(groups) // cols)
    ncol = min(4 if cols > 1 else 3, len(methods) + 2)
    legend_h = 0.25 * (-(-(len(methods) + 2) // ncol)) + 0.2
    fig, axes = new_figure(
        nrows + 1,
        cols,
        figsize=(max(8.0, 6.2 * cols), 3.9 * nrows + legend_h + 0.5),
        squeeze=False,
        gridspec_kw={"height_ratios": [3.9] * nrows + [legend_h]},
    )
    flat = list(axes[:-1].flat)
    for ax, group in zip(flat, groups, strict=False):
        rows = [s for s in compared if s["group"] == group]
        if not rows:
            no_data(ax)
        else:
            _panel(ax, rows, methods, colours)
            sizes = {s["size"] for s in rows}
            one = f" {next(iter(sizes))} (one value)" if len(sizes) == 1 else ""
            ax.set_xlabel(xlabel + one)
        ax.set_title(f"{study.subject} / {study.family}: {group}", fontsize=10)
    for ax in flat[len(groups) :]:
        ax.set_visible(False)
    handles: dict[str, Any] = {}
    for ax in flat[: len(groups)]:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    grid = axes[0, 0].get_gridspec()
    for ax in axes[-1]:
        ax.remove()
    legend_ax = fig.add_subplot(grid[-1, :])
    legend_ax.axis("off")
    legend_ax.legend(
        list(handles.values()), list(handles), loc="center", fontsize=7, ncol=ncol, frameon=False
    )
    return save_figure(fig, stem, textwrap.fill(caption, 110 * cols))
