"""Benchmark of the Synergy simulator: one point of the default workload and the trace replays.

The issue's target: one point of the Philly-derived workload at 9 jobs/h (about 6,000 jobs,
700 simulated hours, JCT over jobs 4000-4999) in <= 60 s on one core, with FIFO and both
GPU-proportional and TUNE allocation (Synergy's Python simulator: 18-20 min). Also both
100-job trace replays (static: makespan; dynamic: average JCT) on 4 servers.
Run: `python -m schedlab.experiments.bench bench_sim [--quick]`.
"""

from __future__ import annotations

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.experiments.synergy.simulator import SimConfig, simulate
from schedlab.experiments.synergy.traces import builtin_trace
from schedlab.experiments.synergy.workloads import philly_derived

TARGET_S = 60.0


def _point(alloc: str, window: tuple[int, int] | None) -> list[object]:
    res = simulate(
        philly_derived(9.0, seed=0), SimConfig(policy="fifo", alloc=alloc, window=window)
    )
    d = res.to_dict()
    return [
        "philly-derived 9 jobs/h",
        "fifo",
        alloc,
        d["jobs_arrived"],
        round(d["sim_time_h"], 1),
        d["mean_jct_h"],
        None,
        round(d["runtime_s"], 2),
        "yes" if d["runtime_s"] <= TARGET_S else "NO",
    ]


@register_benchmark("bench_sim")
def run(quick: bool = False) -> None:
    window = (400, 800) if quick else None
    headers = [
        "workload",
        "policy",
        "alloc",
        "jobs",
        "sim_h",
        "mean_jct_h",
        "makespan_h",
        "runtime_s",
        f"<= {TARGET_S:g} s",
    ]
    rows = [_point(a, window) for a in ("proportional", "tune")]
    print(format_table(headers, rows), flush=True)
    prop, tune = float(rows[0][5]), float(rows[1][5])  # type: ignore[arg-type]
    print(
        f"mean JCT proportional / TUNE at 9 jobs/h: {prop / tune:.2f}x (window "
        f"{'jobs 400-799, quick' if quick else 'jobs 4000-4999'}, seed 0)\n",
        flush=True,
    )

    trows = []
    for name in ("static-100job", "dynamic-100job"):
        for policy in ("fifo", "srtf"):
            for alloc in ("proportional", "greedy", "tune", "opt"):
                d = simulate(builtin_trace(name), SimConfig(policy=policy, alloc=alloc)).to_dict()
                trows.append(
                    [
                        name,
                        policy,
                        alloc,
                        d["jobs_arrived"],
                        round(d["sim_time_h"], 2),
                        d["mean_jct_h"],
                        d["makespan_h"],
                        round(d["runtime_s"], 3),
                        "",
                    ]
                )
    print(format_table(headers, trows), flush=True)
    for name in ("static-100job", "dynamic-100job"):
        for policy in ("fifo", "srtf"):
            sel = {r[2]: r for r in trows if r[0] == name and r[1] == policy}
            key = 6 if name.startswith("static") else 5
            what = "makespan" if key == 6 else "mean JCT"
            ratio = sel["proportional"][key] / sel["tune"][key]  # type: ignore[operator]
            print(f"{name} {policy}: {what} proportional / TUNE = {ratio:.2f}x")


# ---- the 1M-job replay and the studies' budget (issues 36 and 39) -------------------------------
REPLAY_TARGET_S = 60.0  # issue 36: the 1M-job replay on this 2-core machine
BUDGET_CPU_S = {"small": 20.0, "full": 360.0}  # Synergy's studies and claim 13 together
IN_REPRODUCE = ("synergy-gap", "synergy-jct", "synergy-authors", "synergy-motivation")


def in_fresh_interpreter(func: str, *args: object) -> dict:
    """`func(*args)` of this module in a new Python process; its JSON result (nothing of this
    process, its caches or allocations, carries over)."""
    import json
    import subprocess
    import sys

    call = f"{func}({', '.join(map(repr, args))})"
    code = f"import json; from {__name__} import {func}; print(json.dumps({call}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def replay_run(n: int = 1_000_000) -> dict[str, object]:
    """`synergy simulate --jobs N --window 0:N --servers 1250 --load 500 --policy fifo
    --alloc tune` (bench_scale's largest point): wall and CPU seconds of the simulation call."""
    import time

    from schedlab.experiments.synergy.workloads import philly_derived as stream

    cfg = SimConfig(policy="fifo", alloc="tune", servers=1250, window=(0, n))
    simulate(stream(500.0, 0, max_jobs=20), cfg)  # numba's cached compilation, once
    t0, c0 = time.perf_counter(), time.process_time()
    d = simulate(stream(500.0, 0, max_jobs=n), cfg).to_dict()
    return {
        "jobs": n,
        "rounds": d["rounds"],
        "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - c0,
        "mean_jct_h": d["mean_jct_h"],
    }


@register_benchmark("bench_synergy_replay", summary="the 1M-job Synergy replay (target 60 s)")
def run_replay(quick: bool = False) -> None:
    """Wall and CPU time of the 1M-job replay (--quick: 100k jobs) in a fresh interpreter.
    CPU seconds are what a quiet 2-core machine's wall time would be (one process)."""
    n = 100_000 if quick else 1_000_000
    r = in_fresh_interpreter("replay_run", n)
    ok = "yes" if r["wall_s"] <= REPLAY_TARGET_S else "NO (wall; see cpu_s on a shared machine)"
    headers = ["jobs", "rounds", "wall_s", "cpu_s", "mean_jct_h", f"<= {REPLAY_TARGET_S:g} s"]
    row = [r["jobs"], r["rounds"], round(r["wall_s"], 1), round(r["cpu_s"], 1)]
    print(format_table(headers, [[*row, round(r["mean_jct_h"], 4), ok]]), flush=True)


def _study_cpu(name: str, size: str, outdir: str) -> dict[str, object]:
    """One study from an empty results folder, in-process (workers=1): its CPU seconds."""
    import time
    from pathlib import Path

    from schedlab.experiments.registry import figures

    c0, t0 = time.process_time(), time.perf_counter()
    figures()[name].obj(size, 0, Path(outdir))
    return {"study": name, "cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - t0}


@register_benchmark("bench_synergy_budget", summary="CPU seconds of Synergy's studies vs budget")
def run_budget(quick: bool = False) -> None:
    """CPU seconds of each Synergy study in `reproduce` at size small (--quick) or both sizes,
    from empty results folders, against Synergy's budget (claim 13: `schedlab verify 13`)."""
    import tempfile

    for size in ("small",) if quick else ("small", "full"):
        rows, total = [], 0.0
        for name in IN_REPRODUCE:
            with tempfile.TemporaryDirectory() as tmp:
                r = in_fresh_interpreter("_study_cpu", name, size, tmp)
            total += float(r["cpu_s"])
            rows.append([size, name, round(float(r["cpu_s"]), 1), round(float(r["wall_s"]), 1), ""])
        ok = "yes" if total <= BUDGET_CPU_S[size] else "NO"
        rows.append([size, "all (without claim 13)", round(total, 1), "", ok])
        print(format_table(["size", "study", "cpu_s", "wall_s", "within budget"], rows))
