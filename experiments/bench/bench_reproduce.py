"""The main job's speed: `schedlab reproduce` from an empty results folder, then again.

Targets (issue #36, on the 2-core machine, 2 workers): size small <= 60 s with the venv built
and the results folder empty (numba's compiled kernels already cached by earlier runs, as they
are in any checkout whose venv has run once); size full <= 15 minutes. A second run with
unchanged code must compute no cell. Each run is a fresh `schedlab reproduce` process; the table
is read from its manifests (per study: cells, computed now, wall, CPU in cells + the main
process's share, peak memory of one cell), and the run's own wall time is measured outside it.

Run: `python -m schedlab.experiments.bench bench_reproduce [--quick]` (--quick: small only;
otherwise small, then full; `SCHEDLAB_BENCH_REPRODUCE_SIZES=full` picks the sizes,
`SCHEDLAB_BENCH_REPRODUCE_WORKERS` the workers, 2 by default).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.experiments.studies import read_manifests
from schedlab.solvers.errors import InvalidInput

TARGET_S = {"small": 60.0, "full": 15 * 60.0}
SIZES_ENV = "SCHEDLAB_BENCH_REPRODUCE_SIZES"
WORKERS_ENV = "SCHEDLAB_BENCH_REPRODUCE_WORKERS"


def run_reproduce(size: str, out: Path, workers: int) -> float:
    """One `schedlab reproduce` in a fresh process; its wall time (s). Raises on failure."""
    cmd = [
        sys.executable,
        "-m",
        "schedlab.experiments.cli",
        "reproduce",
        "--size",
        size,
        "--workers",
        str(workers),
        "--out",
        str(out),
    ]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise InvalidInput(f"reproduce --size {size} failed ({done.returncode}):\n{done.stderr}")
    return wall


def study_table(out: Path) -> list[list[Any]]:
    """Per study from the manifests: study, cells, computed now, wall, CPU cells + here, peak."""
    rows = []
    for name, m in sorted(read_manifests(out).items(), key=lambda kv: -kv[1].get("cpu_s", 0)):
        rows.append(
            [
                name,
                m["cells"],
                m["computed"],
                f"{m['wall_s']:.1f}",
                f"{m['cell_cpu_s']:.1f} + {m['main_cpu_s']:.1f}",
                f"{m['peak_mb']:.0f}",
            ]
        )
    return rows


def _sizes(quick: bool) -> list[str]:
    raw = os.environ.get(SIZES_ENV)
    if raw:
        sizes = [s.strip() for s in raw.split(",") if s.strip()]
        bad = [s for s in sizes if s not in TARGET_S]
        if bad:
            raise InvalidInput(f"{SIZES_ENV}: unknown size(s) {bad}; choose small, full")
        return sizes
    return ["small"] if quick else ["small", "full"]


@register_benchmark("bench_reproduce", summary="schedlab reproduce: cold, then rerun")
def run(quick: bool = False) -> None:
    try:
        workers = int(os.environ.get(WORKERS_ENV, "2"))
    except ValueError:
        raise InvalidInput(f"{WORKERS_ENV}: a number of workers, e.g. 2") from None
    summary = []
    for size in _sizes(quick):
        with tempfile.TemporaryDirectory(prefix=f"bench-reproduce-{size}-") as tmp:
            out = Path(tmp) / "results"
            cold = run_reproduce(size, out, workers)
            print(f"\nsize {size}, {workers} workers, empty results folder: {cold:.1f} s")
            table = study_table(out)
            print(
                format_table(
                    ["study", "cells", "computed", "wall s", "CPU s (cells + here)", "peak MB"],
                    table,
                )
            )
            cpu = sum(float(r[4].split(" + ")[0]) + float(r[4].split(" + ")[1]) for r in table)
            warm = run_reproduce(size, out, workers)
            recomputed = sum(int(r[2]) for r in study_table(out))
            summary.append(
                [
                    size,
                    f"{cold:.1f}",
                    f"{cpu:.0f}",
                    f"{TARGET_S[size]:.0f}",
                    "yes" if cold <= TARGET_S[size] else "NO",
                    f"{warm:.1f}",
                    recomputed,
                ]
            )
    print()
    print(
        format_table(
            [
                "size",
                "cold wall s",
                "CPU s",
                "target s",
                "met",
                "rerun wall s",
                "cells recomputed on rerun",
            ],
            summary,
        )
    )
