"""Benchmark `bench_slaq`: SLAQ's scheduler time per epoch, simulated epochs per second, and the
largest (jobs, cores) that the exact MILP and CP-SAT prove optimal within 60 s.

Scheduler time per epoch = refitting every job's predictor + the heap allocation; the refit
is timed cold (full offset search) and warm-started from each job's previous fit. Fits are
measured per job (on shipped-curve prefixes); the allocation at 1,000 jobs / 10,000 cores and
10,000 jobs / 100,000 cores reuses 200 distinct fitted predictors with per-job W (the heap's
work does not depend on which curve a job has). `python -m schedlab.experiments.bench
bench_slaq` (a few minutes; --quick: seconds). SCHEDLAB_BENCH_SLAQ_PARTS=epoch (or sim,
exact; comma-separated) runs only those parts.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import BENCHMARKS
from schedlab.experiments.slaq.simulator import SimConfig, simulate
from schedlab.solvers.result import Status
from schedlab.solvers.slaq.curves import shipped_curve, shipped_names
from schedlab.solvers.slaq.greedy import greedy_extra, heap_extra
from schedlab.solvers.slaq.predict import Fit, PredictorConfig, fit, fit_many
from schedlab.solvers.slaq.quality import JobQuality, largest_drop


def histories(count: int, seed: int) -> list[np.ndarray]:
    """Random prefixes (>= 5 points) of the shipped curves."""
    rng = np.random.default_rng(seed)
    names = shipped_names()
    out = []
    for _ in range(count):
        c = shipped_curve(names[int(rng.integers(len(names)))])
        out.append(c[: int(rng.integers(5, len(c)))])
    return out


def fitted_pool(count: int, seed: int) -> tuple[list[tuple[Fit, float]], float]:
    """`count` fitted predictors (fit, M_j), fitted one at a time; ms per fit."""
    hs = histories(count, seed)
    t0 = time.perf_counter()
    pool = [(fit(h, "auto", PredictorConfig()), largest_drop(h)) for h in hs]
    return pool, 1e3 * (time.perf_counter() - t0) / count


def batched_fit_s(count: int, seed: int, gained: int = 5) -> tuple[float, float]:
    """Seconds to refit `count` jobs at once (fit_many, auto): cold (full offset search), and
    warm-started from each job's fit `gained` points earlier (one epoch's new points)."""
    hs = histories(count, seed)
    cfg = PredictorConfig()
    prev = fit_many([h[: max(cfg.min_points, len(h) - gained)] for h in hs], "auto", cfg)
    t0 = time.perf_counter()
    fit_many(hs, "auto", cfg)
    t1 = time.perf_counter()
    fit_many(hs, "auto", cfg, warm=prev)
    return t1 - t0, time.perf_counter() - t1


def alloc_time(jobs: int, cores: int, pool: list, seed: int, reps: int, how=greedy_extra) -> float:
    """Best-of-`reps` seconds of the allocation (`how`: greedy_extra = threshold search when
    verified, else heap; heap_extra = the heap) of `cores` among `jobs` old jobs."""
    rng = np.random.default_rng(seed)
    qs = [
        JobQuality(
            pool[i % len(pool)][0],
            3.0 / float(rng.uniform(0.5, 8.0)),  # type: ignore[arg-type]
            pool[i % len(pool)][1],
        )
        for i in range(jobs)
    ]
    base = [min(3, cores // jobs)] * jobs
    free = cores - sum(base)
    best = np.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        extra = how(qs, base, free)
        best = min(best, time.perf_counter() - t0)
        assert sum(extra) == free
    return float(best)


MEMORY_CAP_BYTES = 6 * 2**30
_ONE = (
    "import json, sys\n"
    "from schedlab.solvers.slaq.generate import random_snapshot\n"
    "from schedlab.solvers.solve import solve\n"
    "m, j, c, lim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])\n"
    "o = {'workers': 1} if m == 'cpsat' else None\n"
    "r = solve(random_snapshot(j, c, seed=j, min_cores=1), m, time_limit=lim, options=o)\n"
    "print(json.dumps({'status': r.status.value, 'runtime_s': r.runtime_s}))\n"
)


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def solve_capped(method: str, jobs: int, cores: int, limit_s: float) -> tuple[str, float]:
    """One exact solve in a child process with a memory cap and a hard wall limit."""
    t0 = time.perf_counter()
    try:
        cp = subprocess.run(
            [sys.executable, "-c", _ONE, method, str(jobs), str(cores), str(limit_s)],
            capture_output=True,
            text=True,
            timeout=limit_s + 60,
            preexec_fn=_capped,
        )
    except subprocess.TimeoutExpired:
        return "killed (wall limit)", time.perf_counter() - t0
    if cp.returncode != 0:
        return f"failed (exit {cp.returncode}; memory cap?)", time.perf_counter() - t0
    out = json.loads(cp.stdout.strip().splitlines()[-1])
    return out["status"], out["runtime_s"]


def exact_ladder(method: str, limit_s: float, sizes: list[tuple[int, int]]) -> list[list]:
    """Solve growing snapshots until one is not proven optimal within `limit_s`."""
    rows = []
    for jobs, cores in sizes:
        status, runtime = solve_capped(method, jobs, cores, limit_s)
        rows.append([method, jobs, cores, status, round(runtime, 2)])
        print(f"  {method} {jobs} jobs / {cores} cores: {status} in {runtime:.1f} s", flush=True)
        if status != Status.OPTIMAL.value:
            break
    return rows


PARTS_ENV = "SCHEDLAB_BENCH_SLAQ_PARTS"


@BENCHMARKS.register("bench_slaq")
def run(quick: bool) -> None:
    """Parts (env SCHEDLAB_BENCH_SLAQ_PARTS, comma-separated, default all): `epoch` (scheduler
    time per epoch), `sim` (simulated epochs per second), `exact` (the MILP / CP-SAT ladder)."""
    parts = set(os.environ.get(PARTS_ENV, "epoch,sim,exact").split(","))
    if "epoch" in parts:
        epoch_times(quick)
    if "sim" in parts:
        sim_rate(quick)
    if "exact" in parts:
        exact_sizes(quick)


def epoch_times(quick: bool) -> None:
    """Heap allocation + refitting every job (cold, and warm-started) at the target sizes."""
    pool, fit_ms = fitted_pool(50 if quick else 200, 0)
    print(f"predictor fit one at a time (auto, shipped-curve prefixes): {fit_ms:.2f} ms per job")
    rows = []
    for jobs, cores in ((1_000, 10_000), (10_000, 100_000)):
        if quick and jobs > 1_000:
            continue
        t = alloc_time(jobs, cores, pool, 1, 1 if quick else 3)
        th = alloc_time(jobs, cores, pool, 1, 1, heap_extra)
        cold, warm = batched_fit_s(jobs, 2)
        ms = [round(1e3 * v, 1) for v in (th, t, cold, warm, t + cold, t + warm)]
        rows.append([jobs, cores, *ms])
    heads = ["jobs", "cores", "heap_alloc_ms", "alloc_ms", "fit_cold_ms", "fit_warm_ms"]
    print(format_table([*heads, "epoch_cold_ms", "epoch_warm_ms"], rows))


def sim_rate(quick: bool) -> None:
    """Simulated epochs per second, SLAQ and fair."""
    cfg = SimConfig(jobs=10 if quick else 40, cores=64, arrival_mean_s=6.0, seed=0)
    sim_rows = []
    for p in ("slaq", "fair"):
        t0 = time.perf_counter()
        out = simulate(cfg, p)
        dt = time.perf_counter() - t0
        sim_rows.append([p, cfg.jobs, len(out["times_s"]), round(len(out["times_s"]) / dt, 1)])
    print(format_table(["policy", "jobs", "epochs", "epochs_per_s"], sim_rows))


def exact_sizes(quick: bool) -> None:
    """The largest (jobs, cores) the MILP and CP-SAT prove optimal within the limit."""
    limit = 10.0 if quick else 60.0
    sizes = [(5, 50), (10, 100), (20, 200), (40, 400), (60, 600), (80, 800), (160, 1600)]
    if quick:
        sizes = sizes[:3]
    ex = []
    for m in ("milp", "cpsat"):
        ex += exact_ladder(m, limit, sizes)
    print(format_table(["method", "jobs", "cores", "status", "runtime_s"], ex))
