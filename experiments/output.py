"""Shared CLI output helpers: one JSON object on stdout, or a human-readable table."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import click


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    if hasattr(x, "item") and callable(x.item):  # numpy scalars
        return _clean(x.item())
    return x


def emit_json(obj: dict[str, Any]) -> None:
    """Print exactly one JSON object on stdout (non-finite floats become null)."""
    click.echo(json.dumps(_clean(obj), sort_keys=False))


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Plain fixed-width table."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.6g}"
        return "" if v is None else str(v)

    body = [[cell(v) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    sep = "  ".join("-" * w for w in widths)
    out = [line, sep] + [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in body
    ]
    return "\n".join(out)
