"""Command-line choices and flags built from the registry, lazily (so `--help` stays light).

Every choice list of the command line is read from the one place that defines it, on first
use; none is written out in a command:

- `RegistryChoice(registry, scope=...)`: a `click.Choice` whose choices are the registered
  names (methods, policies, workloads), read on first use;
- `LazyChoice(lambda: CONSTANT)`: a `click.Choice` over a plain enumeration (objectives,
  instance families, GPU mixes, ...), reading its one defining constant on first use, so the
  module that defines it (often heavy) is imported only when the choice is needed.
- `OptionsCommand`: a click command that adds one flag per option field of the registered
  entries it serves (`options_of=lambda: [entry, ...]`) the first time click asks for its
  parameters. `chosen_options(entry, params)` then keeps the flags the user set and refuses a
  flag that the chosen entry does not take, naming the entries that do.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import click

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.options import OptionField, option_fields
from schedlab.solvers.registry import Entry, Registry


class LazyChoice(click.Choice):
    """A click.Choice whose choices `source()` gives, called once, on first use."""

    def __init__(self, source: Callable[[], Iterable[str]], *, case_sensitive: bool = True) -> None:
        self._source = source
        self._names: tuple[str, ...] | None = None
        super().__init__((), case_sensitive=case_sensitive)

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(self._source())
        return self._names

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:  # click's __init__ assigns ()
        pass


def constant(module: str, name: str) -> Callable[[], tuple[str, ...]]:
    """A `LazyChoice` source: the names in the constant `module.name` (a tuple, a list, or a
    dict's keys), its module imported on first use (often heavy)."""

    def source() -> tuple[str, ...]:
        return tuple(getattr(importlib.import_module(module), name))

    source.__doc__ = f"`{module}.{name}`, read on first use."
    return source


class RegistryChoice(LazyChoice):
    """A click.Choice over registered names, read from the registry on first use."""

    def __init__(
        self, registry: Registry[Any], *, scope: str | None = None, tag: str | None = None
    ) -> None:
        super().__init__(lambda: registry.names(scope=scope, tag=tag))


def flag_name(field_name: str) -> str:
    """`--kebab-case` flag of an option field."""
    return "--" + field_name.replace("_", "-")


def _merged_fields(entries: Sequence[Entry[Any]]) -> dict[str, tuple[OptionField, list[str]]]:
    """Option fields of all entries by name, with the names of the entries that take each."""
    out: dict[str, tuple[OptionField, list[str]]] = {}
    for e in entries:
        if e.options is None:
            continue
        for f in option_fields(e.options):
            if f.name in out:
                first, users = out[f.name]
                if first.base is not f.base:
                    raise TypeError(f"option {f.name!r} has two types ({first.base}, {f.base})")
                if first.choices is not None and f.choices is not None:
                    merged = first.choices + tuple(c for c in f.choices if c not in first.choices)
                    first = OptionField(
                        first.name, first.base, merged, first.optional, first.default, first.help
                    )
                out[f.name] = (first, [*users, e.name])
            else:
                out[f.name] = (f, [e.name])
    return out


def _click_option(f: OptionField, users: list[str]) -> click.Option:
    """A flag whose default is None, so that only what the user set reaches the method."""
    default = "" if f.default is None else f" (default {f.default})"
    text = f"{f.help or f.name}{default}; for: {', '.join(users)}."
    if f.base is bool:
        slug = flag_name(f.name)[2:]
        return click.Option([f"--{slug}/--no-{slug}", f.name], default=None, help=text)
    ptype: Any = click.Choice([str(c) for c in f.choices]) if f.choices else f.base
    if not f.choices and f.base in (int, float):
        from schedlab.experiments.cliflags import BoundedInt, FiniteFloat

        lo, hi = f.range if f.range is not None else (-math.inf, math.inf)
        ptype = BoundedInt(int(lo), int(hi)) if f.base is int else FiniteFloat(lo, hi)
    return click.Option([flag_name(f.name), f.name], type=ptype, default=None, help=text)


class OptionsCommand(click.Command):
    """A command with one flag per option field of the entries `options_of()` returns."""

    def __init__(
        self, *args: Any, options_of: Callable[[], Sequence[Entry[Any]]], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._options_of = options_of
        self._option_names: list[str] | None = None

    def _ensure_options(self) -> list[str]:
        """Add the option flags once (a copy of the command, an alias, shares its params)."""
        if self._option_names is None:
            merged = _merged_fields(self._options_of())
            self._option_names = list(merged)
            taken = {p.name for p in self.params}
            new = [_click_option(f, u) for name, (f, u) in merged.items() if name not in taken]
            self.params.extend(new)
        return self._option_names

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        self._ensure_options()
        return super().get_params(ctx)

    def option_names(self) -> list[str]:
        return list(self._ensure_options())


def chosen_options(entry: Entry[Any], params: Mapping[str, Any], names: Sequence[str]) -> dict:
    """The option flags among `names` that the user set, checked against `entry`'s options."""
    given = {n: params[n] for n in names if params.get(n) is not None}
    own = {f.name for f in option_fields(entry.options)} if entry.options else set()
    wrong = [n for n in given if n not in own]
    if wrong:
        flags = ", ".join(flag_name(n) for n in wrong)
        raise InvalidInput(
            f"{flags}: not an option of {entry.key}"
            + (f"; its options: {', '.join(flag_name(n) for n in sorted(own))}" if own else "")
        )
    return given
