"""Registries of figures and benchmarks, filled by each subject's modules.

A figure is `func(size: str, seed: int, outdir: Path) -> list[Path]` registered under a name
(`schedlab figure NAME`); `schedlab reproduce` runs every figure marked `in_reproduce`.
Add the module that registers it to FIGURE_MODULES.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FIGURE_MODULES: list[str] = [
    "schedlab.experiments.sojourn.fig_online",
    "schedlab.experiments.sojourn.fig_gap",
    "schedlab.experiments.sojourn.fig_heuristics",
    "schedlab.experiments.synergy.fig_gap",
    "schedlab.experiments.synergy.fig_jct",
]
BENCH_MODULES: list[str] = [
    "schedlab.experiments.sojourn.bench_online",
    "schedlab.experiments.sojourn.bench_exact",
    "schedlab.experiments.sojourn.bench_kernels",
    "schedlab.experiments.sojourn.bench_kernel_steps",
    "schedlab.experiments.synergy.bench_alloc",
    "schedlab.experiments.synergy.bench_sim",
]

SIZES = ("small", "full")


@dataclass(frozen=True)
class FigureSpec:
    name: str
    func: Callable[[str, int, Path], list[Path]]
    summary: str
    in_reproduce: bool


_FIGURES: dict[str, FigureSpec] = {}


def register_figure(
    name: str, *, summary: str, in_reproduce: bool = True
) -> Callable[[Callable[[str, int, Path], list[Path]]], Callable[[str, int, Path], list[Path]]]:
    def deco(
        func: Callable[[str, int, Path], list[Path]],
    ) -> Callable[[str, int, Path], list[Path]]:
        if name in _FIGURES:
            raise ValueError(f"figure {name!r} registered twice")
        _FIGURES[name] = FigureSpec(name, func, summary, in_reproduce)
        return func

    return deco


def figures() -> dict[str, FigureSpec]:
    """All registered figures (imports FIGURE_MODULES on first use)."""
    for mod in FIGURE_MODULES:
        importlib.import_module(mod)
    return dict(sorted(_FIGURES.items()))
