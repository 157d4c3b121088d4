"""Click parameter types of the door: every numeric flag of every command uses one of these.

Each type checks finiteness and a documented range and shows the range in `--help`; the rules
are those of `schedlab.solvers.validate` (the Python API uses the same functions), so a flag
and the matching API argument accept exactly the same values. A bad value is a click usage
error: exit 2 with the flag named.
"""

from __future__ import annotations

import math
from typing import Any

import click

from schedlab.solvers.validate import MAX_SEED, MAX_TIME_LIMIT_S, MAX_WORKERS


class FiniteFloat(click.ParamType):
    """A finite float in [lo, hi] (lo excluded with `lo_open`)."""

    name = "float"

    def __init__(self, lo: float, hi: float, *, lo_open: bool = False) -> None:
        self.lo, self.hi, self.lo_open = lo, hi, lo_open

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        left = "(" if self.lo_open else "["
        return f"FLOAT {left}{self.lo:g}, {self.hi:g}]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float | int) and not isinstance(value, bool):
            v = float(value)
        else:
            try:
                v = float(str(value).strip())
            except (ValueError, OverflowError):
                self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(v):
            self.fail(f"{value!r} is not finite", param, ctx)
        if v < self.lo or (self.lo_open and v == self.lo) or v > self.hi:
            left = "(" if self.lo_open else "["
            self.fail(f"{v:g} is not in {left}{self.lo:g}, {self.hi:g}]", param, ctx)
        return v


class BoundedInt(click.ParamType):
    """An integer in lo..hi; a literal of more than 30 characters is refused before int()."""

    name = "integer"

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        if self.lo <= -(2**62) and self.hi >= 2**62:
            return "INTEGER"
        hi = "2^63-1" if self.hi == MAX_SEED else f"{self.hi:.0e}" if self.hi > 10**7 else self.hi
        return f"INTEGER {self.lo}..{hi}"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            v = value
        else:
            text = str(value).strip()
            if len(text) > 30:
                self.fail(f"{text[:20]}... is too long for an integer", param, ctx)
            try:
                v = int(text)
            except ValueError:
                self.fail(f"{text!r} is not an integer", param, ctx)
        if not self.lo <= v <= self.hi:
            self.fail(f"{v} is not in {self.lo}..{self.hi}", param, ctx)
        return v


#: Seeds: 0..2^63-1 (numpy SeedSequence and CP-SAT both take them); negative seeds refused.
SEED = BoundedInt(0, MAX_SEED)
#: Wall-clock limits in seconds, (0, one week].
TIME_LIMIT = FiniteFloat(0.0, MAX_TIME_LIMIT_S, lo_open=True)
#: Solver worker threads.
WORKERS = BoundedInt(1, MAX_WORKERS)
#: Work caps of the simulators (simulated rounds / events).
WORK_CAP = BoundedInt(1, 10**12)


def positive_float(hi: float) -> FiniteFloat:
    """A finite float in (0, hi]."""
    return FiniteFloat(0.0, hi, lo_open=True)


def bounded_int(lo: int, hi: int) -> BoundedInt:
    return BoundedInt(lo, hi)


def seed_option(
    default: int | None = 0, *, required: bool = False, help: str = "Random seed."
) -> Any:
    """The one `--seed` flag (0..2^63-1)."""
    return click.option(
        "--seed",
        type=SEED,
        default=None if required else default,
        required=required,
        show_default=default is not None and not required,
        help=f"{help} 0..2^63-1.",
    )


def time_limit_option(help: str = "Seconds; a stopped run says so.") -> Any:
    """The one `--time-limit` flag: (0, 604800] seconds, covering model building too."""
    return click.option("--time-limit", type=TIME_LIMIT, default=None, help=help)
