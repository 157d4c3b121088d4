"""Benchmark: full Philly replay (82k jobs) per online policy; target <= 10 s each on one core.

Prints jobs per second per policy (one replication; outcome draws and index tables included,
trace parsing reported separately). The trace comes from $SCHEDLAB_PHILLY_TRACE or
../shared/data/philly/philly_jobs.csv; without either, the shipped 2,000-job subsample.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.experiments.sojourn.policies import get_policy, policy_names
from schedlab.experiments.sojourn.runner import evaluate_policy
from schedlab.experiments.sojourn.workload_philly import philly_workload, read_trace, sample_path

SERVERS = 256
LOAD = 0.8
TARGET_S = 10.0


def _trace_path() -> Path | None:
    env = os.environ.get("SCHEDLAB_PHILLY_TRACE")
    if env:
        return Path(env)
    shared = Path(__file__).resolve().parents[2].parent / "shared/data/philly/philly_jobs.csv"
    return shared if shared.exists() else None


@register_benchmark("bench_online")
def run(quick: bool = False) -> None:
    path = _trace_path()
    t0 = time.perf_counter()
    if path is None:
        with sample_path() as p:
            trace = read_trace(p)
        print("full trace not found: using the shipped 2,000-job subsample")
    else:
        trace = read_trace(path)
    t_read = time.perf_counter() - t0
    jobs = 10_000 if quick else None
    t0 = time.perf_counter()
    w = philly_workload(trace, SERVERS, jobs=jobs, load=LOAD)
    t_model = time.perf_counter() - t0
    print(
        f"trace {trace.source}: {trace.n} rows read in {t_read:.2f} s; outcome model "
        f"{t_model:.2f} s; {w.n} jobs simulated ({w.excluded_jobs} excluded: > {SERVERS} GPUs), "
        f"{SERVERS} servers, load {LOAD}, 1 replication, seed 0"
    )
    rows = []
    for name in policy_names():
        fresh = philly_workload(trace, SERVERS, jobs=jobs, load=LOAD)  # index tables not cached
        r = evaluate_policy(fresh, get_policy(name), SERVERS, seed=0, replications=1)
        verdict = "ok" if r["runtime_s"] <= TARGET_S else f"SLOW (> {TARGET_S:g} s)"
        rows.append(
            [
                name,
                r["jobs"],
                round(r["runtime_s"], 3),
                round(r["jobs_per_s"]),
                round(r["mean_sojourn_successful"], 1),
                round(r["mean_sojourn_all"], 1),
                round(r["utilization"], 4),
                r["preemptions_total"],
                verdict,
            ]
        )
    print(
        format_table(
            [
                "policy",
                "jobs",
                "runtime_s",
                "jobs_per_s",
                "mean_succ_s",
                "mean_all_s",
                "util",
                "preemptions",
                f"target {TARGET_S:g} s",
            ],
            rows,
        )
    )
