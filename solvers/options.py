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
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from schedlab.solvers.errors import InvalidInput

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


#: Ranges of option names shared by many methods (a field's `metadata={"range": (lo, hi)}`
#: overrides): solver threads are 1..256 everywhere.
NAMED_RANGES: dict[str, tuple[float, float]] = {
    "num_workers": (1, 256),
    "threads": (1, 256),
    # search budgets and rounds: at least one step, at most what a run can do in a week
    "restarts": (1, 1_000_000),
    "rounds": (1, 1_000_000),
    "max_nodes": (1, 10**12),
    "max_paths": (1, 10**12),
    # CP-SAT deterministic time (its own units, about seconds) and scaling
    "max_deterministic_time": (1e-6, 604_800.0),
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
