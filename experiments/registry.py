"""The experiment-side registries: figures, benchmarks, online policies and workloads.

All use the one `Registry` of `schedlab.solvers.registry` and are discovered by module name
under `schedlab.experiments`, so adding one is adding a file:

- a figure is `func(size: str, seed: int, outdir: Path) -> list[Path]`, registered with
  `@register_figure(name, summary=..., in_reproduce=...)` in a module named `fig_*`;
  `schedlab figure NAME` runs it, `schedlab reproduce` runs those marked `in_reproduce`;
- a benchmark is `run(quick: bool) -> None` printing a table, registered with
  `@BENCHMARKS.register(name)` in a module named `bench_*` (`make bench`);
- a top-level command of `schedlab` (a click command or group) registers in `COMMANDS` in a
  module named `cli`, `commands` or `theory_cli` (imported for `--help`: keep them light);
- an online policy registers in `POLICIES` (scope: its subject) in a module named
  `policies`/`policy_*`; a workload in `WORKLOADS` in a module named `workloads`/`workload*`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedlab.solvers.registry import Entry, Registry

SIZES = ("small", "full")

FigureFn = Callable[[str, int, Path], list[Path]]

FIGURES: Registry[FigureFn] = Registry(
    "figure", packages=("schedlab.experiments",), modules=("fig_*",)
)
BENCHMARKS: Registry[Callable[..., None]] = Registry(
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
    name: str, *, summary: str, in_reproduce: bool = True, tags: tuple[str, ...] = ()
) -> Callable[[FigureFn], FigureFn]:
    """Register a figure; `in_reproduce` puts it in `schedlab reproduce`."""
    return FIGURES.register(name, summary=summary, tags=tags, in_reproduce=in_reproduce)


def figures() -> dict[str, Entry[FigureFn]]:
    """All registered figures by name, sorted."""
    return {e.name: e for e in sorted(FIGURES.entries(), key=lambda e: e.name)}
