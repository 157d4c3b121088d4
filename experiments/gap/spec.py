"""What a subject registers for the gap study: instance families with their size ladders.

A family is registered in the subject's own `experiments/<subject>/gapspec.py` with one
decorator on its ladder function:

```python
@register_gap(
    "synergy", "default", generator=generate_snapshot, sense="max", seed_rule=snapshot_seed,
    summary="heuristics vs the exact per-round optimum",
)
def ladder(size: str) -> list[Rung]:
    return [Rung("default", 48, "4x48", "throughput", {"servers": 4, "jobs": 48}, 5, ("milp",))]
```

- `generator(**rung.params, seed=s)` builds one problem; it should live in the subject's
  solvers (its seeded generator), so that the optimum cache is keyed on the generator's modules
  and not on the ladder's (editing a ladder recomputes nothing already solved);
- `sense` "min" or "max" (a bound is a lower bound when minimizing);
- `seed_rule(seed, rung, i)` the seed of instance i of a rung (a documented formula of the study
  seed and the cell's key, never its position in the grid);
- `methods` the tag that picks the compared methods by default (every registered heuristic),
  or a list of method labels (`name` or `name[key=value,...]`);
  `variants` expands a method into option variants (ESG's `split` into its two rules);
- `exact_options` the options each exact method runs with; `extras(row)` adds columns read from
  a cell's solver stats (e.g. Synergy's `in_exact_feasible_set`);
- `default` whether `schedlab gap SUBJECT` runs the family without `--family`.

The study imports no subject: it finds the families through `GAP_FAMILIES`, discovered in the
modules named `gapspec` under `schedlab.experiments` (and in plugins).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from schedlab.experiments.ladder import SIZES
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.registry import Entry, Registry

Sense = Literal["min", "max"]
GapKind = Literal["relative", "absolute"]
LadderFn = Callable[[str], list["Rung"]]
L = TypeVar("L", bound=LadderFn)

#: The ladder sizes a family defines: the project's one ladder (`experiments.ladder`).
LADDER_SIZES = SIZES

#: The instance families of every subject, scope = subject; the object is the ladder function.
GAP_FAMILIES: Registry[LadderFn] = Registry(
    "gap family", packages=("schedlab.experiments",), modules=("gapspec",)
)


@dataclass(frozen=True)
class Rung:
    """One size of a ladder: `count` instances of `generator(**params, seed=...)`.

    `group` names the panel and table block (an objective, a model mix, a problem kind);
    `size` is the x of the plot and `label` the rung's name in tables; `kind` is the problem
    kind the generated problems have (only methods that solve it run); `exact` the exact
    methods run on each instance (the first is the reference, the others are checked against
    it), under `time_limit_s`; `gap_kind` "relative" (|bound| in the denominator) or
    "absolute" (where the optimum may be near zero or negative)."""

    group: str
    size: float
    label: str
    kind: str
    params: Mapping[str, Any]
    count: int
    exact: tuple[str, ...]
    time_limit_s: float | None = None
    gap_kind: GapKind = "relative"

    @property
    def params_key(self) -> str:
        """The generator parameters as canonical JSON (part of every cell's cache key)."""
        return json.dumps(self.params, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class MethodSpec:
    """A registered method and the options it runs with; `label` names it in every table."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.name, self.options_key))

    @property
    def label(self) -> str:
        if not self.options:
            return self.name
        inner = ",".join(
            f"{k}={v if isinstance(v, str) else json.dumps(v)}"
            for k, v in sorted(self.options.items())
        )
        return f"{self.name}[{inner}]"

    @property
    def options_key(self) -> str:
        return json.dumps(dict(self.options), sort_keys=True, separators=(",", ":"))


def _option_value(text: str) -> Any:
    """A `--methods` option value: JSON when it parses (numbers, true/false), else the text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_method(text: str) -> MethodSpec:
    """`name` or `name[key=value,...]` (the form `MethodSpec.label` writes)."""
    text = text.strip()
    if "[" not in text:
        if not text:
            raise InvalidInput("--methods: an empty method name; give names separated by commas")
        return MethodSpec(text)
    name, _, rest = text.partition("[")
    if not rest.endswith("]") or not name:
        raise InvalidInput(f"--methods: {text!r} is not NAME or NAME[key=value,...]")
    opts: dict[str, Any] = {}
    for part in filter(None, rest[:-1].split(",")):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise InvalidInput(f"--methods: {text!r}: option {part!r} is not key=value")
        opts[key.strip()] = _option_value(value.strip())
    return MethodSpec(name.strip(), opts)


def split_methods(text: str) -> list[str]:
    """Split a `--methods` list on the commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [p for p in (s.strip() for s in out) if p]


def register_gap(
    subject: str,
    family: str,
    *,
    generator: Callable[..., Any],
    sense: Sense,
    seed_rule: Callable[[int, Rung, int], int],
    methods: str | Sequence[str] = "heuristic",
    variants: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    exact_options: Mapping[str, Mapping[str, Any]] | None = None,
    extras: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    default: bool = True,
    summary: str = "",
) -> Callable[[L], L]:
    """Register the instance family `family` of `subject`; decorates `ladder(size) -> rungs`."""
    if sense not in ("min", "max"):
        raise ValueError(f"register_gap {subject}/{family}: sense must be min or max")

    def deco(ladder: L) -> L:
        GAP_FAMILIES.add(
            family,
            ladder,
            scope=subject,
            summary=summary,
            generator=generator,
            sense=sense,
            seed_rule=seed_rule,
            methods=methods,
            variants={k: [dict(o) for o in v] for k, v in (variants or {}).items()},
            exact_options={k: dict(v) for k, v in (exact_options or {}).items()},
            extras=extras,
            default=default,
        )
        return ladder

    return deco


def check_subject(subject: str) -> None:
    """InvalidInput naming the subjects that have a gap study, when `subject` has none."""
    if subject not in GAP_FAMILIES.scopes():
        known = ", ".join(GAP_FAMILIES.scopes()) or "(none)"
        raise InvalidInput(f"gap: no gap study for subject {subject!r}; choose one of: {known}")


def family(subject: str, name: str) -> Entry[LadderFn]:
    """The registered family (InvalidInput naming the subject's families when unknown)."""
    check_subject(subject)
    return GAP_FAMILIES.get(name, scope=subject)


def default_families(subject: str) -> list[str]:
    """The families `schedlab gap SUBJECT` runs without `--family`."""
    check_subject(subject)
    return [e.name for e in GAP_FAMILIES.entries(scope=subject) if e.meta["default"]]


def subjects() -> list[str]:
    """Every subject with a registered gap family (from the registry, never a hand-kept list)."""
    return GAP_FAMILIES.scopes()
