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


MISSING = "-"  # how human output shows a value that is not there (a bound no method proved)


def shown(value: Any) -> str:
    """`value` as human output shows it: floats to 6 significant digits, and a missing value
    (None, or NaN: not a number) as `MISSING`, never "None" or "nan"."""
    value = _scalar(value)
    if _missing(value):
        return MISSING
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def labelled(label: str, value: Any) -> str:
    """`label value`, or `no label` when the value is missing ("bound 12.5", "no bound")."""
    return f"no {label}" if _missing(value) else f"{label} {shown(value)}"


def _scalar(value: Any) -> Any:
    """A numpy scalar as the Python number it holds; anything else as it is."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def _missing(value: Any) -> bool:
    """None, or a float that is NaN (numpy's too)."""
    value = _scalar(value)
    return value is None or (isinstance(value, float) and math.isnan(value))


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Plain fixed-width table; each cell as `shown` writes it (a missing value as `MISSING`)."""
    body = [[shown(v) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    sep = "  ".join("-" * w for w in widths)
    out = [line, sep] + [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in body
    ]
    return "\n".join(out)
