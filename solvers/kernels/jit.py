"""Loops written once in plain Python and run either compiled by numba or as written.

The plain form is the reference the tests compare the compiled one with; numba is imported only
when a compiled kernel is first asked for (so importing a kernel module stays cheap).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from functools import cache
from typing import Any


@cache
def _compiled(fn: Callable[..., Any], kin: tuple[Callable[..., Any], ...] = ()) -> Any:
    """fn compiled by numba (cached on disk); the loops of `kin` that fn calls by global name
    are compiled too (with theirs) and bound in their place, so the plain fn keeps calling the
    plain ones."""
    import numba

    callees = [c for c in kin if c is not fn and c.__name__ in fn.__code__.co_names]
    if callees:
        scope = {**fn.__globals__, **{c.__name__: _compiled(c, kin) for c in callees}}
        bound = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__)
        bound.__qualname__, bound.__module__ = fn.__qualname__, fn.__module__
        fn = bound
    return numba.njit(cache=True)(fn)


def pick(plain: dict[str, Callable[..., Any]], name: str, backend: str) -> Callable[..., Any]:
    """The loop `name` of `plain`: compiled by numba ('cpu') or as written ('numpy'). A loop
    calls the others of `plain` by their global names, not as arguments: numba's disk cache
    cannot keep a kernel that takes functions as arguments (it compiled anew in every
    process, 2.5 s for `order_search`'s iterated search)."""
    if backend not in ("cpu", "numpy"):
        raise ValueError(f"backend must be 'cpu' or 'numpy', not {backend!r}")
    if backend == "numpy":
        return plain[name]
    kernel: Callable[..., Any] = _compiled(plain[name], tuple(plain.values()))
    return kernel
