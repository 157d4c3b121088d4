"""Benchmark `bench_cuda`: the CUDA kernels against the numba CPU kernels, same inputs, one run.

`make gpu-check` runs it after `pytest -m gpu`. Per kernel: the CPU and CUDA times (best of 3
after one untimed run that compiles), their ratio, and the largest relative difference of the
CUDA results from the CPU ones (they must agree to 1e-9). Kernels: sojourn objective B and DK
on K random orders (`evaluate_orders`), Monte Carlo B on shared scenarios
(`monte_carlo_orders`), a `batchlocal` search, and ESG's brute force over configuration paths
(`kernels.paths.best_path`). Sizes finish in well under five minutes on one GPU; `--quick`
(used under numba's CUDA simulator by the tests) makes them tiny. The table is printed and
written atomically to `results/performance/gpu_check.md`, which docs/performance.md cites.
Without a CUDA device (and without the simulator) it says so and times nothing (`make bench` goes
on; `make gpu-check` stops before it, naming the missing device).
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark

OUT = Path("results") / "performance" / "gpu_check.md"
RTOL = 1e-9
BOTH = ("cpu", "cuda")


@dataclass(frozen=True)
class Sizes:
    """(n jobs, K orders) of the evaluation kernels, Monte Carlo (n, K, M samples), batchlocal's
    n, and (stages, configs per stage) of the path kernel."""

    evaluate: tuple[tuple[int, int], ...]
    mc: tuple[int, int, int]
    batchlocal: int
    paths: tuple[int, int]


FULL = Sizes(((100, 1_000_000), (500, 200_000)), (100, 4_096, 2_000), 200, (6, 24))
QUICK = Sizes(((8, 64),), (8, 16, 32), 8, (3, 4))


def _best_of(fn: Callable[[], Any], runs: int = 3) -> tuple[float, Any]:
    """One untimed run (compilation), then the best wall time of `runs` runs and the result."""
    out = fn()
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _rel_diff(a: Any, b: Any) -> float:
    """Largest relative difference of two arrays (or scalars)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(x - y) / np.maximum(np.abs(y), 1e-300)))


def _row(kernel: str, size: str, cpu: Callable[[], Any], gpu: Callable[[], Any]) -> dict:
    t_cpu, r_cpu = _best_of(cpu)
    t_gpu, r_gpu = _best_of(gpu)
    diff = _rel_diff(r_gpu, r_cpu)
    return {
        "kernel": kernel,
        "size": size,
        "cpu_s": f"{t_cpu:.4f}",
        "cuda_s": f"{t_gpu:.4f}",
        "cpu/cuda": f"{t_cpu / max(t_gpu, 1e-12):.1f}",
        "max_rel_diff": f"{diff:.1e}",
        "agrees": "yes" if diff <= RTOL else "NO",
    }


def _sojourn_rows(sizes: Sizes) -> list[dict]:
    from schedlab.solvers.sojourn.batch import evaluate_orders
    from schedlab.solvers.sojourn.generate import generate
    from schedlab.solvers.sojourn.montecarlo import monte_carlo_orders
    from schedlab.solvers.sojourn.objectives import Objective

    rows = []
    rng = np.random.default_rng(0)
    for n, k in sizes.evaluate:
        inst = generate(n, 1)
        orders = rng.permuted(np.tile(np.arange(n, dtype=np.int64), (k, 1)), axis=1)
        for obj in (Objective("B"), Objective("DK", max(1, n // 10))):
            cpu, gpu = (partial(evaluate_orders, inst, orders, obj, backend=b) for b in BOTH)
            rows.append(_row(f"evaluate {obj.kind}", f"n={n} K={k:,}", cpu, gpu))
    n, k, m = sizes.mc
    inst = generate(n, 2)
    orders = rng.permuted(np.tile(np.arange(n, dtype=np.int64), (k, 1)), axis=1)

    def mc(backend: str) -> np.ndarray:
        return monte_carlo_orders(inst, orders, Objective("B"), samples=m, backend=backend).mean

    rows.append(_row("monte carlo B", f"n={n} K={k:,} M={m:,}", lambda: mc("cpu"),
                     lambda: mc("cuda")))  # fmt: skip
    rows.append(_batchlocal_row(sizes.batchlocal))
    return rows


def _batchlocal_row(n: int) -> dict:
    from schedlab.solvers.sojourn.generate import generate
    from schedlab.solvers.sojourn.objectives import Objective
    from schedlab.solvers.sojourn.problem import SojournProblem
    from schedlab.solvers.solve import solve

    prob = SojournProblem(generate(n, 5), Objective("B"))

    def run(backend: str) -> float:
        res = solve(prob, "batchlocal", seed=1, options={"backend": backend})
        return float(res.value if res.value is not None else np.nan)

    return _row("batchlocal B (value)", f"n={n}", lambda: run("cpu"), lambda: run("cuda"))


def _paths_row(stages: int, configs: int) -> dict:
    from schedlab.solvers.kernels.paths import best_path

    rng = np.random.default_rng(3)
    lat = rng.uniform(5.0, 60.0, (stages, configs))
    cost = rng.uniform(1e-6, 1e-4, (stages, configs))
    counts = np.full(stages, configs, dtype=np.int64)
    budget = float(np.median(lat) * stages * 0.8)

    def run(backend: str) -> list[float]:
        r = best_path(lat, cost, counts, budget, backend=backend)
        choice = [] if r.choice is None else [float(c) for c in r.choice]
        return [float(r.cost), float(r.latency), float(r.feasible_paths), *choice]

    size = f"{stages} stages x {configs} = {float(configs) ** stages:.1e} paths"
    return _row("esg paths", size, lambda: run("cpu"), lambda: run("cuda"))


def _device() -> str:
    from numba import cuda

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return "numba CUDA simulator (CPU): timings say nothing about a GPU"
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return f"{name}, compute capability {dev.compute_capability}"


def write_table(rows: list[dict], header: str, out: Path = OUT) -> Path:
    """Write the markdown table atomically (temporary file, then rename)."""
    from schedlab.solvers.util import atomic_write_text

    cols = list(rows[0])
    lines = [header, "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, "\n".join(lines) + "\n")
    return out


@register_benchmark("bench_cuda")
def run(quick: bool = False) -> None:
    """CUDA vs CPU kernels (times, ratio, agreement), table to results/performance/."""
    import numba

    from schedlab.solvers.kernels import cuda_available

    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1" and not cuda_available():
        print("bench_cuda: no CUDA device (numba.cuda.is_available() is False): nothing timed")
        return
    sizes = QUICK if quick else FULL
    t0 = time.perf_counter()
    rows = _sojourn_rows(sizes) + [_paths_row(*sizes.paths)]
    header = (
        f"bench_cuda{' --quick' if quick else ''}: {_device()}; numba {numba.__version__}; "
        f"host {platform.node()}; {time.strftime('%Y-%m-%d %H:%M')}; "
        f"{time.perf_counter() - t0:.0f} s in all"
    )
    print(header)
    print(format_table(list(rows[0]), [list(r.values()) for r in rows]))
    print(f"written: {write_table(rows, header)}")
    if any(r["agrees"] != "yes" for r in rows):
        raise SystemExit("bench_cuda: CUDA results differ from the CPU's beyond 1e-9")
