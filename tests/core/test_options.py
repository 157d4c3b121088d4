"""Typed options: unknown and ill-typed options are InvalidInput listing every problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.options import (
    SHARED_OPTIONS,
    MilpSolver,
    NoOptions,
    option_fields,
    parse_options,
    shared,
    unshared_fields,
)
from schedlab.solvers.solve import METHODS


@dataclass(frozen=True)
class Opts:
    solver: Literal["highs", "cbc"] = field(default="highs", metadata={"help": "back end"})
    workers: int = 1
    gap: float = 0.0
    decompose: bool = True
    hint: str | None = None


def test_defaults_and_values():
    assert parse_options(Opts, None, where="m") == Opts()
    got = parse_options(Opts, {"solver": "cbc", "workers": 2, "gap": 1, "hint": "x"}, where="m")
    assert got == Opts("cbc", 2, 1.0, True, "x")
    assert isinstance(got.gap, float)
    same = Opts(workers=3)
    assert parse_options(Opts, same, where="m") is same


def test_every_problem_reported_at_once():
    with pytest.raises(InvalidInput) as err:
        parse_options(
            Opts,
            {
                "solver": "gurobi",
                "workers": 1.5,
                "decompose": "yes",
                "nope": 1,
                "gap": float("inf"),
            },
            where="method sojourn/milp",
        )
    msg = str(err.value)
    assert len(err.value.problems) == 5
    assert "options.solver: method sojourn/milp: must be one of highs, cbc" in msg
    assert "options.workers" in msg and "must be int" in msg
    assert "options.decompose" in msg and "must be bool" in msg
    assert "has no option 'nope'; its options: solver, workers, gap, decompose, hint" in msg
    assert "options.gap" in msg and "finite" in msg


def test_bool_is_not_an_int_and_none_only_where_optional():
    with pytest.raises(InvalidInput, match="must be int"):
        parse_options(Opts, {"workers": True}, where="m")
    with pytest.raises(InvalidInput, match="must not be empty"):
        parse_options(Opts, {"workers": None}, where="m")
    assert parse_options(Opts, {"hint": None}, where="m").hint is None


def test_no_options_refuses_any_key():
    with pytest.raises(InvalidInput, match=r"has no option 'x'; its options: \(none\)"):
        parse_options(NoOptions, {"x": 1}, where="m")


def test_option_fields_describe_flags():
    by_name = {f.name: f for f in option_fields(Opts)}
    assert by_name["solver"].choices == ("highs", "cbc") and by_name["solver"].base is str
    assert by_name["solver"].help == "back end"
    assert by_name["hint"].optional and by_name["hint"].base is str
    assert by_name["workers"].base is int and by_name["workers"].default == 1


def test_every_method_declares_the_shared_options_once():
    bad = [p for e in METHODS.entries() if e.options for p in unshared_fields(e.options)]
    assert not bad, bad
    used = {f.name for e in METHODS.entries() if e.options for f in option_fields(e.options)}
    assert set(SHARED_OPTIONS) <= used, "a shared option no method takes"


def test_a_shared_option_declared_again_is_reported():
    @dataclass(frozen=True)
    class Own:
        threads: int = field(default=1, metadata={"help": "HiGHS threads"})
        solver: str = shared("solver")
        num_workers: int = shared("num_workers", default=4)
        other: int = 0

    assert unshared_fields(Own) == [
        "Own.threads: declare it as shared('threads')",
        f"Own.solver: type {str}, shared type {MilpSolver}",
    ]
    fields = {f.name: f for f in option_fields(Own)}
    assert fields["num_workers"].default == 4
    assert fields["num_workers"].help == SHARED_OPTIONS["num_workers"].help
    assert fields["num_workers"].range == (1, 256)
