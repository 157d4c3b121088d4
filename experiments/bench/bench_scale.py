"""Scale of one run: the Synergy and sojourn simulators at 10^4, 10^5 and 10^6 jobs.

Issue target (`make bench`, 2 cores): a 1,000,000-job synthetic replay on 10,000 GPUs in under
5 minutes and under 2 GB of peak memory, for both
- `schedlab synergy simulate --policy fifo --alloc tune --load 500 --servers 1250
  --window 0:N` (Philly-derived single-GPU jobs at 500 jobs/h on 1,250 servers x 8 GPUs; every
  job of the window measured; the endless stream keeps arriving until the window's last job
  finishes, so more than N jobs are simulated: column `jobs_sim`), and
- `schedlab sojourn simulate --workload synthetic --servers 10000 --policy gittins --load 0.8
  --jobs N --replications 1`.
Each size runs in a fresh interpreter (`bench_kernels.in_fresh_interpreter`), so the peak
resident memory (VmHWM) is that run's alone. `wall_s` times the simulation call (imports and
numba's cached compilation excluded); jobs/s = window jobs (N) / wall_s.
Run: `python -m schedlab.experiments.bench bench_scale [--quick]` (--quick: 10^4 only);
`SCHEDLAB_BENCH_SCALE_SIZES=N,N,...` chooses the sizes (e.g. 1000000 alone).
"""

from __future__ import annotations

import os
import time
from typing import Any

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.experiments.sojourn.bench_kernels import in_fresh_interpreter, peak_rss_gb
from schedlab.solvers.errors import InvalidInput

THIS = "schedlab.experiments.bench.bench_scale"
SIZES = (10_000, 100_000, 1_000_000)
SIZES_ENV = "SCHEDLAB_BENCH_SCALE_SIZES"
TARGET_S = 300.0
TARGET_GB = 2.0
SERVERS = 1250  # x 8 GPUs = 10,000 GPUs
LOAD_JOBS_PER_H = 500.0


def synergy_run(n: int, seed: int = 0) -> dict[str, Any]:
    """`synergy simulate --policy fifo --alloc tune --load 500 --servers 1250 --window 0:n`."""
    from schedlab.experiments.synergy.simulator import SimConfig, simulate
    from schedlab.experiments.synergy.workloads import philly_derived

    cfg = SimConfig(policy="fifo", alloc="tune", servers=SERVERS, window=(0, n))
    simulate(philly_derived(LOAD_JOBS_PER_H, seed, max_jobs=20), cfg)  # load numba's cache
    t0 = time.perf_counter()
    res = simulate(philly_derived(LOAD_JOBS_PER_H, seed), cfg)
    wall = time.perf_counter() - t0
    d = res.to_dict()
    return {
        "jobs": n,
        "jobs_sim": d["jobs_arrived"],
        "rounds": d["rounds"],
        "wall_s": wall,
        "peak_gb": peak_rss_gb(),
        "mean": d["mean_jct_h"],
    }


def sojourn_run(n: int, seed: int = 0) -> dict[str, Any]:
    """`sojourn simulate --workload synthetic --servers 10000 --policy gittins --load 0.8
    --jobs n --replications 1`."""
    from schedlab.experiments.registry import WORKLOADS
    from schedlab.experiments.sojourn.policies import get_policy
    from schedlab.experiments.sojourn.runner import evaluate_policy
    from schedlab.solvers.options import NoOptions, parse_options

    servers = 8 * SERVERS
    entry = WORKLOADS.get("synthetic", scope="sojourn")
    opts: Any = parse_options(entry.options or NoOptions, None, where="workload synthetic")
    t0 = time.perf_counter()
    wr = entry.obj(servers, jobs=n, load=0.8, options=opts)
    res = evaluate_policy(wr.source, get_policy("gittins"), servers, seed=seed, replications=1)
    wall = time.perf_counter() - t0
    return {
        "jobs": n,
        "jobs_sim": n,
        "rounds": None,
        "wall_s": wall,
        "peak_gb": peak_rss_gb(),
        "mean": res["mean_sojourn_successful"],
    }


def rows(sizes: tuple[int, ...]) -> list[list[Any]]:
    """One row per simulator and size, each measured in a fresh interpreter."""
    out = []
    for name, func in (("synergy", "synergy_run"), ("sojourn", "sojourn_run")):
        for n in sizes:
            r = in_fresh_interpreter(THIS, func, n)
            ok = r["wall_s"] <= TARGET_S and r["peak_gb"] <= TARGET_GB
            out.append(
                [
                    name,
                    r["jobs"],
                    r["jobs_sim"],
                    r["rounds"],
                    round(r["wall_s"], 2),
                    round(r["jobs"] / r["wall_s"]),
                    round(r["peak_gb"], 3),
                    r["mean"],
                    "yes" if ok else "NO",
                ]
            )
            print(format_table(HEADERS, out[-1:]), flush=True)
    return out


HEADERS = [
    "simulator",
    "jobs",
    "jobs_sim",
    "rounds",
    "wall_s",
    "jobs_per_s",
    "peak_gb",
    "mean_h_or_s",
    f"<= {TARGET_S:g} s, {TARGET_GB:g} GB",
]


def chosen_sizes(quick: bool) -> tuple[int, ...]:
    """$SIZES_ENV (comma-separated job counts) when set, else 10^4 (quick) or all of SIZES."""
    text = os.environ.get(SIZES_ENV, "").strip()
    if not text:
        return SIZES[:1] if quick else SIZES
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise InvalidInput(f"{SIZES_ENV}: give positive job counts, comma-separated (got {text!r})")
    return sizes


@register_benchmark("bench_scale")
def run(quick: bool = False) -> None:
    sizes = chosen_sizes(quick)
    table = rows(sizes)
    print("\n" + format_table(HEADERS, table), flush=True)
    print(
        "synergy: fifo + tune, 1,250 servers x 8 GPUs, 500 jobs/h, window 0:N, seed 0; "
        "sojourn: gittins, 10,000 servers, load 0.8, 1 replication, seed 0",
        flush=True,
    )
