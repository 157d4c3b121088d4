"""The experiment-side registries: figures, benchmarks, commands, online policies, workloads.

All use the one `Registry` of `schedlab.solvers.registry` and are discovered by module name
under `schedlab.experiments`, so adding one is adding a file. Each registry has one decorator,
put on the entry where it is defined:

- a figure is `func(size: str, seed: int, outdir: Path) -> list[Path]`, registered with
  `@register_figure(name, summary=..., in_reproduce=...)` in a module named `fig_*`;
  `schedlab figure NAME` runs it, `schedlab reproduce` runs those marked `in_reproduce`;
- a benchmark is `run(quick: bool) -> None` printing a table, registered with
  `@register_benchmark(name)` in a module named `bench_*` (`make bench`);
- a top-level command of `schedlab` (a click command or group) registers with
  `@register_command(name)` in a module named `cli`, `commands` or `theory_cli` (imported for
  `--help`: keep them light);
- an online policy registers with `@register_policy(subject, name, summary=..., **meta)` in a
  module named `policies`/`policy_*`; a workload with `@register_workload(subject, name, ...)`
  in a module named `workloads`/`workload*`. What the object is (a sort key, a class, a
  builder) and which metadata it carries is the subject's protocol, documented in its module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from schedlab.solvers.registry import Entry, Registry
from schedlab.theory.verdict import SIZES

__all__ = [
    "BENCHMARKS",
    "COMMANDS",
    "FIGURES",
    "POLICIES",
    "SIZES",
    "WORKLOADS",
    "figures",
    "register_benchmark",
    "register_command",
    "register_figure",
    "register_policy",
    "register_workload",
]

T = TypeVar("T")
FigureFn = Callable[[str, int, Path], list[Path]]
BenchFn = Callable[..., None]
FF = TypeVar("FF", bound=FigureFn)
BF = TypeVar("BF", bound=BenchFn)

FIGURES: Registry[FigureFn] = Registry(
    "figure", packages=("schedlab.experiments",), modules=("fig_*",)
)
BENCHMARKS: Registry[BenchFn] = Registry(
    "benchmark", packages=("schedlab.experiments",), modules=("bench_*",)
)
COMMANDS: Registry[Any] = Registry(
    "command", packages=("schedlab.experiments",), modules=("cli", "commands", "theory_cli")
)
POLICIES: Registry[Any] = Registry(
    "policy", packages=("schedlab.experiments",), modules=("policies", "policy_*")
)
WORKLOADS: Registry[Any] = Registry(
    "workload", packages=("schedlab.experiments",), modules=("workloads", "workload*")
)


def register_figure(
    name: str, *, summary: str, in_reproduce: bool = True, tags: Sequence[str] = ()
) -> Callable[[FF], FF]:
    """Register a figure; `in_reproduce` puts it in `schedlab reproduce`."""

    def deco(func: FF) -> FF:
        FIGURES.add(name, func, summary=summary, tags=tags, in_reproduce=in_reproduce)
        return func

    return deco


def register_benchmark(name: str, *, summary: str = "") -> Callable[[BF], BF]:
    """Register `run(quick: bool) -> None` as the benchmark `name` (`make bench`)."""

    def deco(run: BF) -> BF:
        BENCHMARKS.add(name, run, summary=summary)
        return run

    return deco


def register_command(name: str) -> Callable[[T], T]:
    """Register a click command or group as the top-level command `schedlab NAME`."""

    def deco(cmd: T) -> T:
        COMMANDS.add(name, cmd)
        return cmd

    return deco


def register_policy(
    subject: str, name: str, *, summary: str, tags: Sequence[str] = (), **meta: Any
) -> Callable[[T], T]:
    """Register the decorated policy (a sort key, a class, ...) of `subject` under `name`.

    `meta` is what the subject's simulator reads of it (e.g. Synergy `uses_bump`, sojourn
    `preemptive`); tag "figure": the policies the subject's figures compare."""

    def deco(obj: T) -> T:
        POLICIES.add(name, obj, scope=subject, summary=summary, tags=tags, **meta)
        return obj

    return deco


def register_workload(
    subject: str,
    name: str,
    *,
    summary: str = "",
    options: type | None = None,
    tags: Sequence[str] = (),
    **meta: Any,
) -> Callable[[T], T]:
    """Register the decorated workload builder of `subject` under `name`.

    `options`: its typed options dataclass (flags of the subject's `simulate`); `meta`: what the
    subject's command line reads of it (e.g. Synergy `trace`, `default_servers`)."""

    def deco(build: T) -> T:
        WORKLOADS.add(
            name, build, scope=subject, summary=summary, options=options, tags=tags, **meta
        )
        return build

    return deco


def figures() -> dict[str, Entry[FigureFn]]:
    """All registered figures by name, sorted."""
    return {e.name: e for e in sorted(FIGURES.entries(), key=lambda e: e.name)}
