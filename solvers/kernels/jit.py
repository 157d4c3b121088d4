"""Loops written once in plain Python and run either compiled by numba or as written.

The plain form is the reference the tests compare the compiled one with; numba is imported only
when a compiled kernel is first asked for (so importing a kernel module stays cheap).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any


@cache
def _compiled(fn: Callable[..., Any]) -> Any:
    import numba

    return numba.njit(cache=True)(fn)


def pick(plain: dict[str, Callable[..., Any]], name: str, backend: str) -> Callable[..., Any]:
    """The loop `name` of `plain`: compiled by numba ('cpu') or as written ('numpy')."""
    if backend not in ("cpu", "numpy"):
        raise ValueError(f"backend must be 'cpu' or 'numpy', not {backend!r}")
    kernel: Callable[..., Any] = _compiled(plain[name]) if backend == "cpu" else plain[name]
    return kernel
