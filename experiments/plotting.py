"""Figure helpers: one style for every figure (headless matplotlib, one colour per method, a
caption that fits the canvas), drawing that cannot mislead (a one-value sweep as categories, no
empty panel, intervals clipped at their floor), `check_figure`, and PNG and PDF written
atomically."""

from __future__ import annotations

import io
import math
import textwrap
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import ticker
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedFormatter

from schedlab.solvers.util import atomic_write_bytes

#: Colour-blind-safe colours (Okabe-Ito, then Tol's), pairwise far apart: the axes' colour
#: cycle and the pool `colours_for` draws unnamed methods from.
PALETTE = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#882255",  # wine
    "#999933",  # olive
    "#777777",  # grey
    "#6A3D9A",  # violet
    "#44AA99",  # teal
)

#: One colour per method across every figure (names as the figures label them).
METHOD_COLOURS = {
    "esg": PALETTE[0],
    "greedy": PALETTE[1],
    "batch": PALETTE[2],
    "infless": PALETTE[3],
    "static": PALETTE[4],
    "proportional": PALETTE[5],
    "opt": PALETTE[6],
    "tune": PALETTE[2],
    "slaq": PALETTE[0],
    "fair": PALETTE[1],
}

CAPTION_FONTSIZE = 7
SAVE_DPI = 150
NO_DATA_GID = "schedlab-no-data"


def colours_for(names: Sequence[str]) -> dict[str, str]:
    """A colour per name: the method's own (`METHOD_COLOURS`), else the next palette colour no
    other name of `names` uses, so two names of one figure never share a colour."""
    out: dict[str, str] = {}
    for n in names:
        own = METHOD_COLOURS.get(n.lower())
        if own is not None and own not in out.values():
            out[n] = own
    free = iter([c for c in PALETTE if c not in out.values()] * (1 + len(names)))
    for n in names:
        if n not in out:
            out[n] = next(free)
    return {n: out[n] for n in names}


def new_figure(
    nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None, **kwargs: Any
) -> tuple[Any, Any]:
    """A figure and its axes (`Figure.subplots`'s arguments), outside pyplot: no global figure
    list shared by the study threads, nothing to close, no GUI backend chosen. Every axes gets
    the package's colour cycle."""
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, **kwargs)
    for ax in fig.axes:
        ax.set_prop_cycle(color=list(PALETTE))
    return fig, axes


def no_data(ax: Any, why: str = "no data") -> None:
    """Say in words that a panel has no data, instead of drawing empty axes."""
    ax.cla()
    ax.set_axis_off()
    ax.text(0.5, 0.5, why, ha="center", va="center", wrap=True, fontsize=9, color="0.35",
            transform=ax.transAxes, gid=NO_DATA_GID)  # fmt: skip


@dataclass(frozen=True)
class Series:
    """One method's points: y at x, optionally with an interval [lo, hi] (nan: unknown)."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    lo: Sequence[float] | None = None
    hi: Sequence[float] | None = None


def clip_interval(
    y: Sequence[float], lo: Sequence[float], hi: Sequence[float],
    floor: float | None = None, ceiling: float | None = None,
) -> list[list[float]]:  # fmt: skip
    """Error-bar lengths [below, above] of intervals [lo, hi] around y, clipped to
    [floor, ceiling] (a rate cannot go below 0 %), unknown (nan) ones as 0."""
    below, above = [], []
    for v, a, b in zip(y, lo, hi, strict=True):
        a = a if floor is None or math.isnan(a) else max(a, floor)
        b = b if ceiling is None or math.isnan(b) else min(b, ceiling)
        below.append(0.0 if math.isnan(a) or math.isnan(v) else max(v - a, 0.0))
        above.append(0.0 if math.isnan(b) or math.isnan(v) else max(b - v, 0.0))
    return [below, above]


def plot_series(
    ax: Any, series: Sequence[Series], *, xlabel: str, fmt: str = "{:g}", marker: str = "o",
    connect: bool = True, floor: float | None = None, ceiling: float | None = None,
    colours: dict[str, str] | None = None,
) -> None:  # fmt: skip
    """Each series against x: lines (`connect`) or dodged points per x value (categories
    labelled with the x values), with their intervals clipped to [floor, ceiling]. With one
    x value in all, the series are categories at that value, not points on a numeric axis;
    with none, the panel says "no data"."""
    series = [s for s in series if len(s.x)]
    xs = sorted({float(v) for s in series for v in s.x})
    if not xs:
        no_data(ax)
        return
    colours = colours or colours_for([s.label for s in series])
    one = len(xs) == 1
    for k, s in enumerate(series):
        if one:
            pos: list[float] = [float(k)] * len(s.x)
        elif connect:
            pos = [float(v) for v in s.x]
        else:
            pos = [xs.index(float(v)) + _dodge(k, len(series)) for v in s.x]
        err = None
        if s.lo is not None and s.hi is not None:
            err = clip_interval(s.y, s.lo, s.hi, floor, ceiling)
        ls = "-" if connect and not one else ""
        ax.errorbar(pos, list(s.y), yerr=err, marker=marker, ms=5, capsize=3, ls=ls,
                    color=colours[s.label], label=s.label)  # fmt: skip
    if one:
        ax.set_xticks(range(len(series)), [s.label for s in series], rotation=30, ha="right",
                      fontsize=8)  # fmt: skip
        ax.set_xlim(-0.6, len(series) - 0.4)
        ax.set_xlabel(f"{xlabel} {fmt.format(xs[0])} (one value)")
    elif not connect:
        ax.set_xticks(range(len(xs)), [fmt.format(v) for v in xs])
        ax.set_xlabel(xlabel)
    else:
        ax.set_xlabel(xlabel)


def _dodge(k: int, n: int) -> float:
    """Offset of series k of n within a category (width 0.6)."""
    return 0.0 if n < 2 else -0.3 + 0.6 * k / (n - 1)


def plain_log_ticks(ax: Any, which: str = "both") -> None:
    """Log axes (`which`: "x", "y" or "both") labelled with plain numbers (2, 3, 10, 30, ...)
    instead of 3x10^0: decades only when the axis spans more than one, else every tick."""
    pairs = {"x": (ax.xaxis, ax.get_xlim()), "y": (ax.yaxis, ax.get_ylim())}
    for name, (axis, lim) in pairs.items():
        if which not in ("both", name):
            continue
        lo, hi = max(min(lim), 1e-300), max(lim)
        decades = math.log10(hi / lo)
        axis.set_major_formatter(ticker.FuncFormatter(_plain))
        if decades <= 1.0:
            axis.set_minor_formatter(ticker.FuncFormatter(_plain))
        elif decades <= 2.0:
            axis.set_minor_formatter(ticker.FuncFormatter(_plain_235))
        else:
            axis.set_minor_formatter(ticker.NullFormatter())


def _plain_235(v: float, pos: int) -> str:
    """A minor tick label at 2, 3 and 5 times a power of ten, else none."""
    m = v / 10 ** math.floor(math.log10(v)) if v > 0 else 0.0
    return _plain(v, pos) if any(abs(m - k) < 1e-6 for k in (2, 3, 5)) else ""


def _plain(v: float, _pos: int) -> str:
    """A tick label: an integer below 1e4, else 10^k."""
    if v <= 0:
        return ""
    if v < 1e4:
        return f"{v:g}"
    k = math.log10(v)
    return f"$10^{{{k:.0f}}}$" if abs(k - round(k)) < 1e-9 else ""


def fit_caption(fig: Any, caption: str) -> Any:
    """Place the caption at the bottom left; wider than the canvas, its paragraphs (split at
    blank lines) are refilled to fit. Returns the text."""
    width_px = 0.96 * fig.bbox.width  # a margin: glyph widths vary a little with the dpi
    text = fig.text(0.01, 0.005, caption, fontsize=CAPTION_FONTSIZE, ha="left", va="bottom",
                    color="0.3")  # fmt: skip
    renderer = fig.canvas.get_renderer()
    paragraphs = [" ".join(p.split()) for p in caption.split("\n\n")]
    cols = max(len(line) for line in caption.splitlines() or [""])
    while cols > 20 and text.get_window_extent(renderer).width > width_px:
        cols = int(cols * 0.9)
        text.set_text("\n".join(textwrap.fill(p, cols) for p in paragraphs))
    return text


#: Drawing runs one figure at a time: studies run in threads (`experiments.studies`), and
#: matplotlib's text layout (mathtext's parser, e.g. the 10^-9 tick labels of a log axis) is not
#: thread-safe: two figures drawn at once failed with a ParseException.
DRAW_LOCK = threading.RLock()

#: Called with each figure `save_figure` writes, once laid out (tests check every figure).
_OBSERVERS: list[Callable[[Any, Path], None]] = []


@contextmanager
def observe_figures() -> Iterator[list[tuple[Any, Path]]]:
    """Collect (figure, stem) of every figure saved inside the block."""
    seen: list[tuple[Any, Path]] = []
    observer = lambda fig, stem: seen.append((fig, stem))  # noqa: E731
    _OBSERVERS.append(observer)
    try:
        yield seen
    finally:
        _OBSERVERS.remove(observer)


def save_figure(fig: Any, stem: Path, caption: str) -> list[Path]:
    """Add the caption (workload, size, seed) below the panels, wrapped to fit, lay the figure
    out and write STEM.png and STEM.pdf atomically."""
    with DRAW_LOCK:
        fig.set_dpi(SAVE_DPI)  # lay out at the resolution written
        text = fit_caption(fig, caption)
        renderer = fig.canvas.get_renderer()
        height = (text.get_window_extent(renderer).height + 6) / fig.bbox.height
        fig.tight_layout(rect=(0, min(height + 0.005, 0.5), 1, 1))
        for o in list(_OBSERVERS):
            o(fig, stem)
        out = []
        for ext in ("png", "pdf"):
            buf = io.BytesIO()
            fig.savefig(buf, format=ext, dpi=SAVE_DPI)
            path = Path(f"{stem}.{ext}")
            atomic_write_bytes(path, buf.getvalue())
            out.append(path)
    return out


def check_figure(fig: Any) -> list[str]:
    """What in a drawn figure could mislead at a glance, one line each (empty: nothing): a
    visible panel without data, an axis whose tick labels repeat (its span is smaller than they
    can show), a single x value on a numeric axis (a one-value sweep drawn as a line), a text
    outside the canvas or a figure text (the caption) over a panel."""
    with DRAW_LOCK:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        problems: list[str] = []
        panels = [ax for ax in fig.axes if ax.get_visible()]
        for i, ax in enumerate(panels):
            name = f"panel {i} ({ax.get_title() or ax.get_ylabel() or 'untitled'})"
            problems += [f"{name}: {p}" for p in _panel_problems(ax, renderer)]
        problems += _text_problems(fig, panels, renderer)
        return problems


def _panel_problems(ax: Any, renderer: Any) -> list[str]:
    """An axes' problems: no data, repeated tick labels, one x value on a numeric x axis."""
    if not ax.axison:
        return []  # not drawn (a panel `no_data` says so in words)
    xs = _data_x(ax)
    if xs is None:
        return ["no plotted data (say 'no data' in words, or drop the panel)"]
    out = []
    for axis in (ax.xaxis, ax.yaxis):
        labels = [t.get_text() for t in axis.get_ticklabels() if t.get_visible()]
        labels = [s for s in labels if s]
        if len(labels) != len(set(labels)):
            out.append(f"{axis.axis_name} axis: tick labels repeat {labels} (span below the "
                       "labels' precision)")  # fmt: skip
    if len(xs) == 1 and not isinstance(ax.xaxis.get_major_formatter(), FixedFormatter):
        out.append(f"one x value ({next(iter(xs)):g}) on a numeric x axis: draw categories")
    return out


def _data_x(ax: Any) -> set[float] | None:
    """The distinct finite x values of the data an axes plots (lines, collections, bars,
    images) in data coordinates; None when it plots nothing (reference lines and spans drawn in
    axes coordinates do not count)."""
    xs: set[float] = set()
    found = False
    for line in ax.lines:
        if line.get_transform() is not ax.transData or not isinstance(line, Line2D):
            continue
        try:
            pts = np.column_stack([np.asarray(line.get_xdata(), dtype=float),
                                   np.asarray(line.get_ydata(), dtype=float)])  # fmt: skip
        except (TypeError, ValueError):  # categories or dates: data, not one numeric value
            found, xs = True, xs | {0.0, 1.0}
            continue
        pts = pts[np.isfinite(pts).all(axis=1)]
        found |= bool(len(pts))
        xs |= {float(x) for x in pts[:, 0]}
    for coll in ax.collections:
        found |= _collection_x(ax, coll, xs)
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_transform() is ax.transData:
            if patch.get_width() and patch.get_height():
                found = True
                xs.add(round(patch.get_x() + patch.get_width() / 2, 12))
    for im in ax.images:
        arr = im.get_array()
        found |= arr is not None and arr.size > 0
        xs |= {math.nan} if arr is not None and arr.size > 1 else set()
    if not found:
        return None
    return {x for x in xs if x == x} | ({0.0, 1.0} if any(x != x for x in xs) else set())


def _collection_x(ax: Any, coll: Any, xs: set[float]) -> bool:
    """Add a collection's x values in data coordinates to xs; whether it holds data."""
    offsets = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
    if len(offsets) and coll.get_offset_transform() is ax.transData:
        pts = offsets[np.isfinite(offsets).all(axis=1)]
        xs |= {float(x) for x in pts[:, 0]}
        return bool(len(pts))
    if coll.get_transform() is not ax.transData:
        return False
    found = False
    for path in coll.get_paths():
        v = np.asarray(path.vertices, dtype=float).reshape(-1, 2)
        found |= bool(len(v))
        xs |= {float(x) for x in v[:, 0] if math.isfinite(x)}
    return found


def _text_problems(fig: Any, panels: Sequence[Any], renderer: Any) -> list[str]:
    """Texts (panels with their labels, figure texts) outside the canvas; figure texts over a
    panel or its labels."""
    canvas = fig.bbox
    out = []

    def outside(b: Any) -> bool:
        return (b.x0 < canvas.x0 - 1 or b.y0 < canvas.y0 - 1 or b.x1 > canvas.x1 + 1
                or b.y1 > canvas.y1 + 1)  # fmt: skip

    boxes = {}
    for i, ax in enumerate(panels):
        box = ax.get_tightbbox(renderer)
        if box is None:
            continue
        boxes[i] = box
        if outside(box):
            out.append(f"panel {i} ({ax.get_title() or ax.get_ylabel()}): labels or legend "
                       "outside the canvas")  # fmt: skip
    texts = list(fig.texts) + ([fig._suptitle] if getattr(fig, "_suptitle", None) else [])
    for t in texts:
        if not t.get_visible() or not t.get_text():
            continue
        b = t.get_window_extent(renderer)
        head = t.get_text()[:40].replace("\n", " ")
        if outside(b):
            out.append(f"text {head!r}...: outside the canvas")
        for i, box in boxes.items():
            if b.overlaps(box):
                out.append(f"text {head!r}...: over panel {i}'s labels")
    return out
