"""Benchmark `bench_slaq`: SLAQ's scheduler time per epoch, simulated epochs per second, and the
largest (jobs, cores) that the exact MILP and CP-SAT prove optimal within 60 s.

Scheduler time per epoch (target: < 100 ms for 1,000 jobs on 10,000 cores, < 1 s for 10,000
jobs on 100,000 cores) is the simulator's own epoch, `simulator.allocate` (what `schedlab slaq
simulate` reports as `scheduler_ms_per_epoch`): refit the predictor of every job that gained
loss points (here: every job) + the marginal-gain heap. Jobs are the simulator's workload, all
running at random points of their curves; timed cold (the default: full offset search) and
warm-started (`SimConfig.warm_fits`). `python -m schedlab.experiments.bench bench_slaq` (a few
minutes; --quick: seconds). SCHEDLAB_BENCH_SLAQ_PARTS=epoch (or sim, exact; comma-separated)
runs only those parts.
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
from schedlab.experiments.registry import POLICIES, register_benchmark
from schedlab.experiments.slaq.simulator import (
    SimConfig,
    SimJob,
    allocate,
    make_jobs,
    qualities,
    simulate,
)
from schedlab.solvers.result import Status
from schedlab.solvers.slaq.curves import shipped_curve, shipped_names


def histories(count: int, seed: int) -> list[np.ndarray]:
    """Random prefixes (>= 5 points) of the shipped curves."""
    rng = np.random.default_rng(seed)
    names = shipped_names()
    out = []
    for _ in range(count):
        c = shipped_curve(names[int(rng.integers(len(names)))])
        out.append(c[: int(rng.integers(5, len(c)))])
    return out


def running_jobs(jobs: int, cores: int, seed: int, warm: bool) -> tuple[SimConfig, list[SimJob]]:
    """The simulator's workload (`make_jobs`) with every job running, at a random point of its
    curve (>= 5 points observed): the state of a busy epoch."""
    cfg = SimConfig(jobs=jobs, cores=cores, seed=seed, warm_fits=warm)
    rng = np.random.default_rng(seed)
    js = make_jobs(cfg)
    for j in js:
        j.progress = float(rng.integers(4, j.last - GAINED))
    return cfg, js


GAINED = 5  # new loss points per job between the two timed epochs (every job is refit)


def epoch_s(jobs: int, cores: int, seed: int, warm: bool) -> dict[str, float]:
    """One simulator epoch (`simulator.allocate`, the code `schedlab slaq simulate` times as
    scheduler time) after every job gained `GAINED` points since its last fit, so every job is
    refit: seconds of wall (`epoch`) and CPU (`epoch_cpu`) time. In a second copy of the same
    state, the epoch's two parts are timed apart with the functions `allocate` calls: the
    refit (`simulator.qualities`) and the policy's allocation (`alloc`). `first`: the first
    epoch, every job fitted with no previous fit."""
    policy = POLICIES.get("slaq", scope="slaq")
    out: dict[str, float] = {}
    for split in (False, True):
        cfg, js = running_jobs(jobs, cores, seed, warm)
        t0 = time.perf_counter()
        allocate(js, cfg, policy)
        out["first"] = time.perf_counter() - t0
        for j in js:
            j.progress += GAINED
        if not split:
            t0, c0 = time.perf_counter(), time.process_time()
            allocate(js, cfg, policy)
            out["epoch"], out["epoch_cpu"] = time.perf_counter() - t0, time.process_time() - c0
            continue
        base = [min(cfg.min_cores, cores // jobs)] * jobs
        t0 = time.perf_counter()
        qs = qualities(js, cfg)
        t1 = time.perf_counter()
        policy.obj(qs, base, cores - sum(base), cores // jobs)
        out["refit"], out["alloc"] = t1 - t0, time.perf_counter() - t1
    return out


MEMORY_CAP_BYTES = 6 * 2**30
_ONE = (
    "import json, sys\n"
    "from schedlab.solvers.slaq.generate import random_snapshot\n"
    "from schedlab.solvers.solve import solve\n"
    "m, j, c, lim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])\n"
    "o = {'num_workers': 1} if m == 'cpsat' else None\n"
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


@register_benchmark("bench_slaq")
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
    """Scheduler time per epoch at the target sizes: the simulator's epoch with every job
    refit, cold (the default) and warm-started (`SimConfig.warm_fits`); each column the best
    of `reps` runs (ms)."""
    cfg, js = running_jobs(20, 200, 0, False)  # load the compiled code (numba cache) first
    allocate(js, cfg, POLICIES.get("slaq", scope="slaq"))
    rows = []
    for jobs, cores in ((1_000, 10_000), (10_000, 100_000)):
        if quick and jobs > 1_000:
            continue
        reps = 1 if quick else 3
        cold = [epoch_s(jobs, cores, 1, False) for _ in range(reps)]
        warm = [epoch_s(jobs, cores, 1, True) for _ in range(reps)]

        def best(runs: list[dict[str, float]], key: str) -> float:
            return round(1e3 * min(r[key] for r in runs), 1)

        keys = ("epoch", "epoch_cpu", "refit", "alloc", "first")
        rows.append([jobs, cores, *(best(cold, k) for k in keys), best(warm, "epoch")])
    heads = ["jobs", "cores", "epoch_ms", "epoch_cpu_ms", "refit_ms", "alloc_ms"]
    print(format_table([*heads, "first_epoch_ms", "warm_epoch_ms"], rows))


def sim_rate(quick: bool) -> None:
    """Simulated epochs per second, SLAQ and fair, on our workload and the authors'."""
    sim_rows = []
    for workload, cores, mean_s in (("shipped-curves", 64, 6.0), ("authors", 32, 20.0)):
        cfg = SimConfig(jobs=12 if quick else 40, cores=cores, arrival_mean_s=mean_s, seed=0)
        for p in ("slaq", "fair"):
            t0 = time.perf_counter()
            out = simulate(cfg, p, workload)
            dt = time.perf_counter() - t0
            n = len(out["times_s"])
            sim_rows.append([workload, p, cfg.jobs, n, round(n / dt, 1)])
    print(format_table(["workload", "policy", "jobs", "epochs", "epochs_per_s"], sim_rows))


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
