"""Benchmark: lpcut on PACE graphs with its incumbent-cycle separation as it is and as the
compiled kernel `solvers.kernels.tight_cycles` (measured here; lpcut does not use the kernel).

lpcut's LP rounds on a crossing block separate, every round, the 3-cycles violated among the
triangle rows tight at the best order (`exact_lpcut.incumbent_cycles`: for each position a
whole-array slice, the best `per_pair` middles of every reversed pair by `np.argpartition`).
The kernel finds the same violations with the same scores in compiled loops (10 times faster
on PACE #67's rounds), but among equal scores, which LP solutions make common, it picks by a
rule of its own (`tight_cycles.TIES`), where argpartition's pick is whatever its selection
leaves. So the rows added differ, and with them the rounds that follow. This benchmark solves
each graph with every variant in one process (a short warm-up solve first, so that no variant
pays numba's first calls) and prints status, value, bound, CPU seconds (the forked MIP's
included) and LP rounds:

- `lpcut`: `exact_lpcut.incumbent_cycles` as it is;
- `kernel-first`, `kernel-hash`: `tight_cycles` with ties to the smaller middle, or to the
  smaller hash of the triple (patched in for the solve, `unittest.mock.patch`).

Run: `python -m schedlab.experiments.bench bench_tight_cycles [--quick] [--lop-dir DIR]
[--time-limit S]`: every PACE `.gr` in DIR, else seeded random graphs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.errors import InvalidInput

if TYPE_CHECKING:
    from schedlab.solvers.sojourn.lop_graph import OcrGraph

VARIANTS = ("lpcut", "kernel-first", "kernel-hash")
TIME_LIMIT_S = 120.0
QUICK_LIMIT_S = 30.0
WARMUP_S = 5.0  # the warm-up solve's limit (its result is not reported)
RANDOM = ((60, 60, 7), (80, 80, 8))  # (n0, n1, seed) of `lop_graph.random_ocr_graph`
QUICK_RANDOM = ((60, 60, 7),)


def _cpu_s() -> float:
    """CPU seconds of this process and of its children waited for (lpcut runs HiGHS's MIP
    after a stall in a forked child, `kit.forked`)."""
    return float(sum(os.times()[:4]))


def kernel_cycles(tie: str) -> Callable[..., np.ndarray]:
    """`exact_lpcut.incumbent_cycles`' contract by the compiled kernel, ties by `tie`."""
    from schedlab.solvers.kernels.tight_cycles import tight_cycles
    from schedlab.solvers.sojourn.exact_lpcut import PER_PAIR, VIOL_TOL

    def cycles(
        Y: np.ndarray, order: Sequence[int], D: np.ndarray, per_pair: int = PER_PAIR
    ) -> np.ndarray:
        o = np.asarray(order, dtype=np.int64)
        Yp, Dp = Y[np.ix_(o, o)], D[np.ix_(o, o)]
        return o[tight_cycles(Yp, Dp, per_pair, VIOL_TOL, tie=tie)]

    return cycles


def solve_variant(g: OcrGraph, variant: str, time_limit: float, seed: int = 0) -> dict[str, Any]:
    """One solve of g by `lop_graph.solve_graph` with `variant`'s separation; its table row."""
    from schedlab.solvers.sojourn import exact_lpcut
    from schedlab.solvers.sojourn.lop_graph import solve_graph

    if variant not in VARIANTS:
        raise InvalidInput(f"variant: one of {', '.join(VARIANTS)} (got {variant!r})")
    impl = exact_lpcut.incumbent_cycles if variant == "lpcut" else kernel_cycles(variant[7:])
    t = _cpu_s()
    with mock.patch.object(exact_lpcut, "incumbent_cycles", impl):
        r = solve_graph(g, time_limit=time_limit, seed=seed)
    cpu = _cpu_s() - t
    return {"instance": Path(g.name).name, "variant": variant, "status": r.status.value,
            "value": r.value, "bound": r.bound, "CPU s": round(cpu, 2),
            "LP rounds": r.stats.get("lp_rounds", 0),
            "stalled": r.stats.get("lp_stalled", 0)}  # fmt: skip


def graphs(quick: bool, lop_dir: str | None) -> Iterator[OcrGraph]:
    """Every PACE `.gr` file in lop_dir (natural order), else seeded random graphs."""
    from schedlab.solvers.sojourn.lop_graph import random_ocr_graph, read_ocr_file

    if lop_dir is not None:
        files = sorted(Path(lop_dir).glob("*.gr"), key=lambda p: (len(p.stem), p.stem))
        if not files:
            raise InvalidInput(f"--lop-dir: no .gr file in {lop_dir}")
        return (read_ocr_file(p) for p in files)
    made = []
    for n0, n1, seed in QUICK_RANDOM if quick else RANDOM:
        g = random_ocr_graph(n0, n1, seed, mean_degree=3.0, span=n1 // 2, isolated_share=0.0)
        made.append(replace(g, name=f"random {n0}x{n1} seed={seed}"))
    return iter(made)


@register_benchmark("bench_tight_cycles")
def run(quick: bool = False, lop_dir: str | None = None, time_limit: float | None = None) -> None:
    """Print the table of `solve_variant` over `graphs(quick, lop_dir)` and `VARIANTS`."""
    from schedlab.solvers.validate import check_time_limit

    time_limit = check_time_limit(time_limit, "--time-limit")
    limit = time_limit if time_limit is not None else QUICK_LIMIT_S if quick else TIME_LIMIT_S
    rows: list[list[Any]] = []
    warm = False
    for g in graphs(quick, lop_dir):
        if not warm:  # numba's first calls and the kernels' cache loads, for every variant
            for variant in VARIANTS:
                solve_variant(g, variant, min(limit, WARMUP_S))
            warm = True
        for variant in VARIANTS:
            row = solve_variant(g, variant, limit)
            rows.append(list(row.values()))
            print(format_table(list(row), rows[-1:]), flush=True)
    if rows:
        print("\n" + format_table(list(row), rows), flush=True)
