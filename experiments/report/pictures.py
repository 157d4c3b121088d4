"""The report's pictures: one "paper vs ours" forest plot per paper (each row's decided point
against its band), one small strip chart per row (every swept point against the band: the
sensitivity of the result, which never decides), and screen-size copies of the studies' figures
(PNG bytes, so that the page can carry them inline)."""

from __future__ import annotations

import html
import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
OUR_READING = "our reading"
BAND_FILL = "#dcdcdc"  # the tolerance band, in the forest plot and the strips alike


def verdict_label(row: ClaimRow) -> str:
    """The verdict as the table words it: "reproduced", "reproduced under our reading", ..."""
    return f"{row.verdict} under our reading" if row.reading == OUR_READING else row.verdict


# ---- the forest plot: the decided point of each row ----------------------------------------
def forest_rows(rows: Sequence[ClaimRow]) -> list[ClaimRow]:
    """The rows a forest plot can draw: a reference number (a nonzero centre to divide by) and a
    decided point of ours."""
    return [r for r in rows if r.decided and r.reference != "none" and r.reference_band]


def _interval(p: dict[str, Any]) -> tuple[float, float]:
    lo = p["value"] if p.get("low") is None else p["low"]
    hi = p["value"] if p.get("high") is None else p["high"]
    return min(lo, p["value"]), max(hi, p["value"])


def _band_of(row: ClaimRow) -> tuple[float, float] | None:
    """The decided band with an open side as an infinity; where no point decided, the
    reference's tolerance band; None without either."""
    if row.band is None:
        return (row.reference_band[1], row.reference_band[2]) if row.reference_band else None
    lo, hi = row.band
    return (-math.inf if lo is None else lo, math.inf if hi is None else hi)


def forest(rows: Sequence[ClaimRow], title: str, stem: Path, caption: str) -> list[Path]:
    """Each row with a decided point: its band (grey, an open side to the edge) and the
    reference at 1, ours as value / reference with the 95% interval, in the verdict's colour
    (the table's, `COLOURS`), the verdict at the right. The other rows are counted in the
    caption. With no row to draw it writes nothing and returns []: the page then says why in
    words (`no_forest_sentence`)."""
    drawn = forest_rows(rows)
    others = [r for r in rows if r not in drawn]
    if not drawn:
        return []
    height = 1.2 + 0.42 * len(drawn) + 0.22 * len(others)
    fig, ax = new_figure(figsize=(10, height))
    ys = list(range(len(drawn)))[::-1]
    span = [1.0]
    bands = []
    for y, r in zip(ys, drawn, strict=True):
        assert r.reference_band is not None and r.decided is not None
        centre = r.reference_band[0]
        band = _band_of(r) or (r.reference_band[1], r.reference_band[2])
        b_lo, b_hi = sorted((band[0] / centre, band[1] / centre))
        bands.append((y, b_lo, b_hi))
        span += [b for b in (b_lo, b_hi) if math.isfinite(b)]
        ax.plot([1, 1], [y - 0.3, y + 0.3], color="k", lw=1.5)
        lo, hi = sorted(v / centre for v in _interval(r.decided))
        colour = COLOURS.get(r.verdict, "k")
        ax.plot([lo, hi], [y, y], color=colour, lw=2)
        ax.plot([r.decided["value"] / centre], [y], "o", color=colour, ms=5)
        span += [lo, hi]
        label = verdict_label(r).replace(" under our reading", " (our reading)")
        ax.text(1.01, y, label, transform=ax.get_yaxis_transform(), va="center", fontsize=8,
                color=colour)  # fmt: skip
    log = _log_scale(span)
    left, right = _limits(span, log)
    for y, b_lo, b_hi in bands:  # an open side reaches the axis' edge
        ax.fill_betweenx([y - 0.3, y + 0.3], max(b_lo, left), min(b_hi, right), color=BAND_FILL,
                         lw=0, zorder=0)  # fmt: skip
    if log:
        ax.set_xscale("log")
    ax.set_xlim(left, right)
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{r.claim_id} ({r.reference})" for r in drawn], fontsize=8)
    ax.set_xlabel("ours / reference number (1 = the paper's or the authors' code's number)")
    ax.set_title(title, fontsize=10, pad=24)
    ax.plot([], [], "s", color=BAND_FILL, label="the reference's tolerance band")
    ax.plot(
        [], [], "o-", color="0.3", label="ours at the named point, 95% interval (colour = verdict)"
    )
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    full_caption = caption + (
        f"; {len(others)} rows without a decided number to draw are in the table" if others else ""
    )
    fig.subplots_adjust(right=0.78)
    return save_figure(fig, stem, _wrap(full_caption))


def no_forest_sentence(rows: Sequence[ClaimRow]) -> str:
    """What the page says in place of the forest plot when no row can be drawn (no claim has
    both a reference number and a decided point of ours): an image of a sentence would be text
    no reader can select or search, and axes around nothing say less."""
    n = len(rows)
    return (
        "No forest plot: no claim has both a stated number and a decided number of ours "
        f"({n} row{'s' * (n != 1)}, all in the table above)."
    )


def _log_scale(span: list[float]) -> bool:
    positive = [s for s in span if s > 0]
    return len(positive) == len(span) and max(positive) / min(positive) > 20


def _limits(span: list[float], log: bool) -> tuple[float, float]:
    lo, hi = min(span), max(span)
    if log:
        return lo / 1.3, hi * 1.3
    pad = 0.06 * (hi - lo or 1.0)
    return lo - pad, hi + pad


def _wrap(text: str, width: int = 160) -> str:
    import textwrap

    return "\n".join(line for part in text.splitlines() for line in textwrap.wrap(part, width))


# ---- the strip chart: every swept point of one row -----------------------------------------
STRIP_W, STRIP_PLOT_H, STRIP_AXIS_H = 200, 56, 12


def _x_range(values: list[float], band: tuple[float, float] | None) -> tuple[float, float]:
    """The strip's x range: the points' values and the band's finite edges, padded. With eight
    points or more, a value further than three interquartile ranges beyond the quartiles is
    left out of the range (it is drawn at the edge), so that one far point does not squash the
    rest; an interval that reaches further is cut at the edge."""
    xs = sorted(values)
    if len(xs) >= 8:
        q1, q3 = xs[len(xs) // 4], xs[(3 * len(xs)) // 4]
        reach = 3 * (q3 - q1)
        xs = [v for v in xs if q1 - reach <= v <= q3 + reach] or xs
    if band is not None:
        xs += [b for b in band if math.isfinite(b)]
    lo, hi = min(xs), max(xs)
    pad = 0.08 * (hi - lo) if hi > lo else (abs(lo) * 0.1 or 1.0)
    return lo - pad, hi + pad


def strip_svg(row: ClaimRow) -> str | None:
    """Every swept point of `row` with its 95% interval (grey), the decided point in the
    verdict's colour with a ring, over the band (grey; an open side reaches the edge): an
    inline SVG of a few hundred bytes. None when the row has no point to draw."""
    points = [p for p in row.ours_points if math.isfinite(p.get("value", math.nan))]
    if not points:
        return None
    band = _band_of(row)
    x0, x1 = _x_range([p["value"] for p in points], band)
    n = len(points)
    step = min(6.0, (STRIP_PLOT_H - 4) / n)
    height = max(10.0, step * n + 4)

    def x(v: float) -> float:
        return round(min(max((v - x0) / (x1 - x0), 0.0), 1.0) * (STRIP_W - 2) + 1, 1)

    parts = [f'<rect width="{STRIP_W}" height="{height:g}" fill="#fff" stroke="#ccc"/>']
    if band is not None:
        bx0, bx1 = x(band[0]), x(band[1])
        parts.append(f'<rect x="{bx0:g}" width="{max(bx1 - bx0, 1):g}" height="{height:g}" '
                     f'fill="{BAND_FILL}"/>')  # fmt: skip
    lines, ticks = [], []
    decided = row.decided or {}
    mark = None
    for i, p in enumerate(points):
        y = round(2 + step * (i + 0.5), 1)
        lo, hi = _interval(p)
        if decided and p.get("at") == decided.get("at") and p["value"] == decided.get("value"):
            mark = (x(lo), x(hi), x(p["value"]), y)
            continue
        lines.append(f"M{x(lo):g} {y:g}H{max(x(hi), x(lo) + 0.5):g}")
        ticks.append(f"M{x(p['value']):g} {y - min(step, 4) / 2:g}v{min(step, 4):g}")
    parts.append(f'<path d="{"".join(lines)}" stroke="#8c8c8c" stroke-width="1"/>')
    parts.append(f'<path d="{"".join(ticks)}" stroke="#333" stroke-width="1.4"/>')
    if mark is not None:
        colour = COLOURS.get(row.verdict, "#000")
        lo_x, hi_x, vx, y = mark
        parts.append(f'<path d="M{lo_x:g} {y:g}H{max(hi_x, lo_x + 0.5):g}" stroke="{colour}" '
                     'stroke-width="2.5"/>')  # fmt: skip
        parts.append(f'<circle class="decided" cx="{vx:g}" cy="{y:g}" r="3.5" fill="{colour}" '
                     'stroke="#000" stroke-width="1"/>')  # fmt: skip
    axis_y = height + STRIP_AXIS_H - 2
    beyond = sum(not (x0 <= p["value"] <= x1) for p in points)
    parts.append(f'<text x="1" y="{axis_y:g}">{_num(x0)}</text>')
    parts.append(f'<text x="{STRIP_W - 1}" y="{axis_y:g}" text-anchor="end">{_num(x1)}</text>')
    if beyond:
        parts.append(f'<text x="{STRIP_W / 2:g}" y="{axis_y:g}" text-anchor="middle">'
                     f"{beyond} beyond, at the edge</text>")  # fmt: skip
    title = html.escape(
        f"{row.claim_id}: {n} point{'s' * (n != 1)} of ours with their 95% intervals against the "
        "band (grey); the decided point ringed"
        + ("" if mark else " (none decided)")
        + (f"; {beyond} beyond the range, drawn at its edge" if beyond else "")
    )
    return (
        f'<svg class="strip" role="img" aria-label="{title}" '
        f'width="{STRIP_W}" height="{height + STRIP_AXIS_H:g}" font-size="9" '
        f'font-family="sans-serif" fill="#555"><title>{title}</title>{"".join(parts)}</svg>'
    )


def _num(v: float) -> str:
    return f"{v:.3g}"


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
