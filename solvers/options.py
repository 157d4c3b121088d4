"""Typed options of registered entries: a frozen dataclass per method, policy or figure.

`parse_options(cls, given)` builds the dataclass from a mapping (Python callers, JSON, CLI
flags), checking every key and type: an unknown option or a value of the wrong type is one
`InvalidInput` that lists every problem and the accepted options, never silently ignored.
A field's help text lives in `field(metadata={"help": ...})`; the CLI builds flags from it.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.enum import MAX_WORK

O = TypeVar("O")


@dataclass(frozen=True)
class NoOptions:
    """The options of an entry that takes none."""


@dataclass(frozen=True)
class OptionField:
    """One option as the CLI sees it: name, base type, choices, default, help."""

    name: str
    base: type
    choices: tuple[Any, ...] | None
    optional: bool
    default: Any
    help: str
    range: tuple[float, float] | None = None


@dataclass(frozen=True)
class SharedOption:
    """A solver option every subject names alike: its type, default, help text and range."""

    type: Any
    default: Any
    help: str
    range: tuple[float, float] | None = None


#: The MILP back ends of every MILP method: HiGHS in process, or the CBC binary.
MilpSolver = Literal["highs", "cbc"]

#: The solver options shared by the subjects, declared once: a method's options dataclass
#: takes one with `name: <type> = shared("name")`, so its help text, default and range are the
#: same in every subject (`tests/core/test_options.py` refuses a field of one of these names
#: declared otherwise). The time limit and the seed are `solve` arguments, not options.
SHARED_OPTIONS: dict[str, SharedOption] = {
    "solver": SharedOption(
        MilpSolver, "highs", "MILP back end: highs (HiGHS in process) or cbc (the CBC binary)"
    ),
    "threads": SharedOption(int, 1, "threads of the MILP or LP solver", (1, 256)),
    "num_workers": SharedOption(int, 1, "CP-SAT search workers (1: deterministic)", (1, 256)),
    "max_deterministic_time": SharedOption(
        float | None,
        None,
        "CP-SAT deterministic time limit, in its own units (about seconds): reproducible stops",
        (1e-6, 604_800.0),
    ),
    "hint": SharedOption(
        bool,
        True,
        "start the solver from a heuristic solution (MIP start or CP-SAT hint), kept when the "
        "solver finds nothing better",
    ),
    "max_work": SharedOption(
        int,
        MAX_WORK,
        "work cap of the enumeration oracle, in steps (about 0.5 us each): a larger search "
        "known in advance is refused, a search that reaches it stops with its best solution "
        "and a sound bound",
        (1, 10**12),
    ),
}


def shared(name: str, *, default: Any = dataclasses.MISSING) -> Any:
    """The dataclass field of the shared option `name` (`SHARED_OPTIONS`): its one help text,
    range and default (a method may give another default, never another help)."""
    opt = SHARED_OPTIONS[name]
    value = opt.default if default is dataclasses.MISSING else default
    meta: dict[str, Any] = {"help": opt.help, "shared": name}
    if opt.range is not None:
        meta["range"] = opt.range
    return field(default=value, metadata=meta)


def unshared_fields(cls: type) -> list[str]:
    """Fields of options `cls` named as a shared option but declared otherwise (not through
    `shared`, or with another type): each would give the CLI a second help text."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        opt = SHARED_OPTIONS.get(f.name)
        if opt is None:
            continue
        if f.metadata.get("shared") != f.name:
            out.append(f"{cls.__name__}.{f.name}: declare it as shared({f.name!r})")
        elif hints[f.name] != opt.type:
            out.append(f"{cls.__name__}.{f.name}: type {hints[f.name]}, shared type {opt.type}")
    return out


#: Ranges of other option names used by several methods (a field's `metadata={"range": ...}`
#: overrides): search rounds take at least one step, at most what a run can do in a week;
#: CP-SAT scaling and integer time units.
NAMED_RANGES: dict[str, tuple[float, float]] = {
    "restarts": (1, 1_000_000),
    "rounds": (1, 1_000_000),
    "scale_bits": (8, 62),
    "time_unit_ms": (1e-6, 1e6),
}
#: Any other integer option must fit a signed 64-bit integer (what C++ solvers take).
INT_RANGE = (-(2**63), 2**63 - 1)


def _unwrap(tp: Any) -> tuple[Any, bool]:
    """(inner type, whether None is allowed) for `X | None` and `Optional[X]`."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], len(args) < len(get_args(tp))
    return tp, False


def option_fields(cls: type) -> list[OptionField]:
    """The options of dataclass `cls` with their resolved types (for flags and help)."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        inner, optional = _unwrap(hints[f.name])
        choices = tuple(get_args(inner)) if get_origin(inner) is Literal else None
        base = type(choices[0]) if choices else inner
        default = f.default if f.default is not dataclasses.MISSING else None
        rng = f.metadata.get("range") or NAMED_RANGES.get(f.name)
        if rng is None and base is int:
            rng = INT_RANGE
        out.append(
            OptionField(f.name, base, choices, optional, default, f.metadata.get("help", ""), rng)
        )
    return out


def _check(value: Any, fld: OptionField) -> tuple[Any, str | None]:
    """(converted value, problem or None) for one option value."""
    if value is None:
        return None, None if fld.optional else "must not be empty"
    base = fld.base
    if base is bool:
        ok = isinstance(value, bool)
    elif base is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif base is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if ok:
            value = float(value)
            if not math.isfinite(value):
                return value, "must be a finite number"
    else:
        ok = isinstance(value, base)
    if not ok:
        return value, f"must be {base.__name__} (got {type(value).__name__} {value!r})"
    if fld.choices is not None and value not in fld.choices:
        return value, f"must be one of {', '.join(map(str, fld.choices))} (got {value!r})"
    if fld.range is not None and base in (int, float) and not fld.range[0] <= value <= fld.range[1]:
        lo, hi = fld.range
        return value, f"must lie in {lo:g}..{hi:g} (got {value!r})"
    return value, None


def parse_options(cls: type[O], given: Mapping[str, Any] | O | None, *, where: str) -> O:
    """Build options `cls` from `given` (a mapping, an instance of `cls`, or None).

    `where` names the owner in messages, e.g. "method sojourn/milp".
    """
    if given is None:
        return cls()
    if isinstance(given, cls):  # built in Python: the same ranges and types as a mapping
        as_map = {f.name: getattr(given, f.name) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        parse_options(cls, as_map, where=where)
        return given
    if not isinstance(given, Mapping):
        raise InvalidInput(
            f"options: {where} takes a mapping or {cls.__name__} (got {type(given).__name__})"
        )
    fields = {f.name: f for f in option_fields(cls)}
    known = ", ".join(fields) or "(none)"
    problems, values = [], {}
    for key, value in given.items():
        if key not in fields:
            problems.append(f"options: {where} has no option {key!r}; its options: {known}")
            continue
        values[key], problem = _check(value, fields[key])
        if problem:
            problems.append(f"options.{key}: {where}: {problem}")
    if problems:
        raise InvalidInput(problems)
    return cls(**values)
