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
