"""Loss curves: loading and validating per-iteration loss histories, and the shipped curves.

A curve is one finite loss value per iteration (one number per line in a `.txt` file). The
shipped curves (`solvers/slaq/data/*.txt`, see its README for source and licence) are the SLAQ
authors' Spark MLlib runs. Loss files are read by `validate.read_text_file` (UTF-8, size cap,
regular files only); values are finite with magnitude at most `MAX_MAGNITUDE`, at most
`MAX_LOSSES` of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.limits import MAX_LOSSES
from schedlab.solvers.validate import MAX_MAGNITUDE, read_text_file, short

DATA_DIR = Path(__file__).resolve().parent / "data"


def validate_losses(values: Sequence[float], where: str, *, min_points: int = 1) -> list[str]:
    """Problems of a loss history (empty when fine): finite numbers, at least `min_points`."""
    problems = []
    if len(values) > MAX_LOSSES:
        return [f"{where}: at most {MAX_LOSSES:,} loss values (got {len(values):,})"]
    if len(values) < min_points:
        problems.append(f"{where}: needs at least {min_points} loss value(s) (got {len(values)})")
    for i, v in enumerate(values):
        ok = isinstance(v, int | float) and not isinstance(v, bool) and _finite(v)
        if not ok:
            problems.append(
                f"{where}[{i}]: must be a finite number of magnitude <= 1e12 (got {short(v)})"
            )
            if len(problems) > 10:
                problems.append(f"{where}: more bad values not listed")
                break
    return problems


def _finite(v: float) -> bool:
    try:
        return math.isfinite(float(v)) and abs(float(v)) <= MAX_MAGNITUDE
    except OverflowError:
        return False


def load_curve(path: str | Path) -> np.ndarray:
    """The loss values of a text file (one number per line; blank lines and # comments skipped).

    Every bad line is reported at once as `InvalidInput` naming the file and line.
    """
    p = Path(path)
    text = read_text_file(p, "the loss file")
    values: list[float] = []
    problems: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.split("#", 1)[0].strip()
        if not s:
            continue
        try:
            v = float(s) if len(s) <= 64 else math.nan
        except ValueError:
            problems.append(f"line {lineno}: not a number ({s[:40]!r})")
            continue
        if not _finite(v):
            problems.append(
                f"line {lineno}: must be a finite number of magnitude <= 1e12 (got {s[:40]!r})"
            )
        values.append(v)
        if len(problems) > 20:
            problems.append("more bad lines not listed")
            break
        if len(values) > MAX_LOSSES:
            problems.append(f"more than {MAX_LOSSES:,} loss values; give at most that many")
            break
    if not values and not problems:
        problems.append("no loss values; the file needs one number per line")
    if problems:
        raise InvalidInput(problems, source=str(p))
    return np.asarray(values, dtype=float)


def shipped_names() -> list[str]:
    """Names (file stems) of the shipped curves, sorted."""
    return sorted(p.stem for p in DATA_DIR.glob("*.txt"))


@cache
def _shipped(name: str) -> tuple[float, ...]:
    return tuple(load_curve(DATA_DIR / f"{name}.txt").tolist())


def shipped_curve(name: str) -> np.ndarray:
    """A shipped curve by name (InvalidInput listing the names when unknown)."""
    names = shipped_names()
    if name not in names:
        raise InvalidInput(f"curve: unknown {name!r}; shipped curves: {', '.join(names)}")
    return np.asarray(_shipped(name))


def normalized_loss(curve: np.ndarray) -> np.ndarray:
    """(L_k - L_final) / (L_0 - L_final): 1 at the start, 0 at the end (0 if flat)."""
    span = curve[0] - curve[-1]
    if span <= 0:
        return np.zeros_like(curve)
    return (curve - curve[-1]) / span
