"""The report's pictures: one "paper vs ours" forest plot per paper, and screen-size copies of
the studies' figures (PNG bytes, so that the page can carry them inline)."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path

from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.report.collect import ClaimRow

SCREEN_WIDTH_PX = 900
COLOURS = {
    "reproduced": "#1a7f37",
    "exceeded": "#1f5fa8",
    "inconclusive": "#b36b00",
    "refuted": "#c62828",
    "not comparable": "#666666",
    "missing": "#999999",
}


def forest_rows(rows: Sequence[ClaimRow]) -> list[ClaimRow]:
    """The rows a forest plot can draw: a reference number and at least one point of ours."""
    return [r for r in rows if r.ours_points and r.reference != "none" and r.reference_band]


def forest(rows: Sequence[ClaimRow], title: str, stem: Path, caption: str) -> list[Path]:
    """Each claim a row: the reference (paper's or authors' code's number) at 1 with its
    tolerance band, ours as value / reference with the 95% interval; the verdict at the right.
    Rows without a number (claim checks) are listed under the plot with their verdict."""
    drawn = forest_rows(rows)
    others = [r for r in rows if r not in drawn]
    height = 1.2 + 0.42 * max(len(drawn), 1) + 0.22 * len(others)
    fig, ax = new_figure(figsize=(10, height))
    ys = list(range(len(drawn)))[::-1]
    span = [1.0]
    for y, r in zip(ys, drawn, strict=True):
        assert r.reference_band is not None
        centre, lo, hi = r.reference_band
        ax.fill_betweenx([y - 0.3, y + 0.3], lo / centre, hi / centre, color="0.85", lw=0)
        ax.plot([1, 1], [y - 0.3, y + 0.3], color="k", lw=1.5)
        for p in r.ours_points:
            x = p["value"] / centre
            if not math.isfinite(x):
                continue
            lo_p = p["low"] if p["low"] is not None else p["value"]
            hi_p = p["high"] if p["high"] is not None else p["value"]
            ax.plot([lo_p / centre, hi_p / centre], [y, y], color=COLOURS[r.verdict], lw=2)
            ax.plot([x], [y], "o", color=COLOURS[r.verdict], ms=5)
            span += [lo_p / centre, hi_p / centre]
        ax.text(
            1.01,
            y,
            r.verdict,
            transform=ax.get_yaxis_transform(),
            va="center",
            fontsize=8,
            color=COLOURS[r.verdict],
        )
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{r.claim_id} ({r.reference})" for r in drawn], fontsize=8)
    positive = [s for s in span if s > 0]
    if positive and max(positive) / min(positive) > 20:
        ax.set_xscale("log")
    ax.set_xlabel("ours / reference number (1 = the paper's or the authors' code's number)")
    ax.set_title(title, fontsize=10)
    ax.plot([], [], "s", color="0.85", label="reference with its tolerance band")
    ax.plot([], [], "o-", color="0.3", label="ours, 95% interval (colour = verdict)")
    ax.legend(fontsize=7, loc="lower left")
    if not drawn:
        ax.text(
            0.5,
            0.5,
            "no claim with a stated number and a number of ours",
            ha="center",
            va="center",
            transform=ax.transAxes,
            fontsize=9,
        )
    listed = "; ".join(f"{r.claim_id}: {r.verdict}" for r in others)
    full_caption = caption + ("\nwithout a number to draw: " + listed if listed else "")
    fig.subplots_adjust(right=0.78)
    return save_figure(fig, stem, _wrap(full_caption))


def _wrap(text: str, width: int = 160) -> str:
    import textwrap

    return "\n".join(line for part in text.splitlines() for line in textwrap.wrap(part, width))


def screen_png(path: Path, width: int = SCREEN_WIDTH_PX) -> bytes:
    """`path` (a PNG) at most `width` pixels wide, in a 64-colour palette: a screen copy (plots
    have few colours; it keeps the committed report small)."""
    from PIL import Image

    with Image.open(path) as src:
        im: Image.Image = src.convert("RGB")
    if im.width > width:
        size = (width, round(im.height * width / im.width))
        im = im.resize(size, Image.Resampling.LANCZOS)
    im = im.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=True)
    return buf.getvalue()
