"""The size ladder of every study, figure and gap family, declared once.

`tiny` is for tests (seconds), `small` for the quick reproduction, `full` for the paper-scale
run. A study declares what it runs at each size as one table keyed by these names and reads it
with `pick`, so an unknown size, or a size the study does not define, is a clear `InvalidInput`
naming the choices, never a silent fall-through to another configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from schedlab.solvers.errors import InvalidInput

#: The ladder, smallest first.
SIZES = ("tiny", "small", "full")

T = TypeVar("T")


def check(size: str, *, what: str = "size") -> str:
    """`size` itself when it is a rung of the ladder; otherwise `InvalidInput` naming the rungs."""
    if size not in SIZES:
        raise InvalidInput(f"{what}: choose one of {', '.join(SIZES)} (got {size!r})")
    return size


def pick(size: str, table: Mapping[str, T], *, what: str = "size") -> T:
    """`table[size]`: a study's setting at `size`, or `InvalidInput` naming what it defines.

    The table's keys are the sizes the study defines (usually all of `SIZES`; some studies add
    their own, e.g. ESG's `long`). Values that are costly or need outside data at one size are
    zero-argument functions the caller calls after picking.
    """
    if size not in table:
        raise InvalidInput(f"{what}: choose one of {', '.join(table)} (got {size!r})")
    return table[size]
