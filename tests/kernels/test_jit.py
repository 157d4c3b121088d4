"""kernels.jit.pick: a compiled loop calls the compiled forms of the loops it names, to any
depth, and the plain loop keeps calling the plain ones."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.kernels.jit import pick


def _leaf(x):
    return x * 2.0


def _middle(x):
    return _leaf(x) + 1.0


def _top(xs):
    total = 0.0
    for x in xs:
        total += _middle(x)
    return total


_PLAIN = {"leaf": _leaf, "middle": _middle, "top": _top}


@pytest.mark.parametrize("backend", ["cpu", "numpy"])
def test_a_loop_calls_the_loops_it_names_at_every_depth(backend: str) -> None:
    xs = np.arange(5, dtype=np.float64)
    assert pick(_PLAIN, "top", backend)(xs) == pytest.approx(2.0 * xs.sum() + 5.0)


def test_compiled_and_plain_loops_stay_apart() -> None:
    compiled = pick(_PLAIN, "top", "cpu")
    assert hasattr(compiled, "py_func")  # a numba dispatcher
    assert pick(_PLAIN, "top", "numpy") is _top
    assert _top.__globals__["_middle"] is _middle  # the plain loop still calls the plain one
    with pytest.raises(ValueError, match="backend"):
        pick(_PLAIN, "top", "gpu")
