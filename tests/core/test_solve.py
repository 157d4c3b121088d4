"""One solve(): dispatch by subject, kind check, typed options, time-limit check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import METHODS, register_method, solve


@dataclass(frozen=True)
class ToyProblem:
    subject: ClassVar[str] = "toy-test"
    objective: str = "max"

    @property
    def kind(self) -> str:
        return self.objective


@dataclass(frozen=True)
class ToyOptions:
    scale: int = 1


@register_method("toy-test", "double", exact=True, kinds={"max"}, options=ToyOptions)
def solve_double(problem, *, deadline=None, seed=None, options: ToyOptions):
    """Doubles the scale (a stand-in method)."""
    v = 2.0 * options.scale
    return SolveResult(Status.OPTIMAL, v, v, [v], "double", 0.0)


def test_dispatch_and_options():
    res = solve(ToyProblem(), "double", options={"scale": 3})
    assert res.value == 6.0 and res.status is Status.OPTIMAL
    entry = METHODS.get("double", scope="toy-test")
    assert entry.meta["exact"] and "exact" in entry.tags
    assert entry.summary == "Doubles the scale (a stand-in method)."


def test_kind_unknown_method_and_bad_options():
    with pytest.raises(InvalidInput, match="does not solve min; it solves max"):
        solve(ToyProblem("min"), "double")
    with pytest.raises(InvalidInput, match="unknown toy-test method 'triple'"):
        solve(ToyProblem(), "triple")
    with pytest.raises(InvalidInput, match="has no option 'scal'"):
        solve(ToyProblem(), "double", options={"scal": 2})


@pytest.mark.parametrize("limit", [0, -1, float("nan"), float("inf")])
def test_bad_time_limit(limit):
    with pytest.raises(InvalidInput, match="time_limit"):
        solve(ToyProblem(), "double", time_limit=limit)
