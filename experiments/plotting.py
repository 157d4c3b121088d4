"""Figure helpers: headless matplotlib, a caption line, PNG and PDF written atomically."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from schedlab.solvers.util import atomic_write_bytes


def new_figure(
    nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None, **kwargs: Any
) -> tuple[Any, Any]:
    """A figure and its axes (`Figure.subplots`'s arguments), outside pyplot: no global figure
    list shared by the study threads, nothing to close, no GUI backend chosen."""
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, **kwargs)


#: Drawing runs one figure at a time: studies run in threads (`experiments.studies`), and
#: matplotlib's text layout (mathtext's parser, e.g. the 10^-9 tick labels of a log axis) is not
#: thread-safe: two figures drawn at once failed with a ParseException.
DRAW_LOCK = threading.RLock()


def save_figure(fig: Any, stem: Path, caption: str) -> list[Path]:
    """Add the caption (workload, size, seed) and write STEM.png and STEM.pdf atomically."""
    with DRAW_LOCK:
        fig.text(0.01, 0.005, caption, fontsize=7, ha="left", va="bottom", color="0.3")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        out = []
        for ext in ("png", "pdf"):
            buf = io.BytesIO()
            fig.savefig(buf, format=ext, dpi=150)
            path = Path(f"{stem}.{ext}")
            atomic_write_bytes(path, buf.getvalue())
            out.append(path)
    return out
