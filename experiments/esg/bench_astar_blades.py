"""Benchmark `bench_astar_blades`: what each pruning switch of ESG's A* saves, in nodes expanded,
nodes generated and time, on random chains of 10 stages x 500 configurations.

`python -m schedlab.experiments.bench bench_astar_blades [--quick]` runs every combination of the
latency blade, the cost blade, the Pareto pre-filter and the dominance pruning, each with the
paper's heuristic (sum of the remaining minimum costs, `dp_buckets=0`) and ours (the DP lower
bound, `dp_buckets=1024`): 32 settings x 3 chains (`generate(10, 500, seed)`, seeds 10000-10002,
budget the generated SLO), each run under a time limit of 5 s (`--quick`: one chain, 1 s). A run
stopped by the limit is counted in `timeouts`; its node counts are those at the stop (lower
bounds on what it would need). Column `agree`: runs that finished with the optimal cost of the
default setting (relative 1e-9). Times are wall-clock on whatever else the machine runs.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from schedlab.experiments.registry import register_benchmark

STAGES, CONFIGS, SEED0 = 10, 500, 10_000
SWITCHES = ("latency_blade", "cost_blade", "pareto", "dominance")


def settings() -> list[dict[str, Any]]:
    """Every on/off combination of the four switches, with each heuristic (defaults first)."""
    out = []
    for dp in (1024, 0):
        for on in itertools.product((True, False), repeat=len(SWITCHES)):
            out.append({**dict(zip(SWITCHES, on, strict=True)), "dp_buckets": dp})
    return out


def blade_rows(seeds: list[int], limit_s: float) -> list[list[Any]]:
    """One row per setting: switches, chains, agreements, timeouts, median nodes and time."""
    from schedlab.solvers.esg.generate import generate
    from schedlab.solvers.result import Status
    from schedlab.solvers.solve import solve

    apps = [generate(STAGES, CONFIGS, s) for s in seeds]
    ref = [solve(app, "astar").value for app in apps]  # also warms the imports up
    rows = []
    for opts in settings():
        exp, gen, ms, agree, stopped = [], [], [], 0, 0
        for app, want in zip(apps, ref, strict=True):
            r = solve(app, "astar", time_limit=limit_s, options=opts)
            exp.append(r.stats["nodes_expanded"])
            gen.append(r.stats["nodes_generated"])
            ms.append(1000.0 * r.runtime_s)
            stopped += bool(r.stats.get("stopped_by_time_limit"))
            agree += (
                r.status is Status.OPTIMAL
                and want is not None
                and r.value is not None
                and math.isclose(r.value, want, rel_tol=1e-9)
            )
        flags = ["on" if opts[k] else "off" for k in SWITCHES]
        heur = "dp" if opts["dp_buckets"] else "sum"
        rows.append(
            [*flags, heur, len(apps), agree, stopped]
            + [f"{np.median(exp):.0f}", f"{np.median(gen):.0f}", f"{np.median(ms):.1f}"]
            + [f"{max(ms):.1f}"]
        )
    return rows


@register_benchmark("bench_astar_blades")
def run(quick: bool) -> None:
    from schedlab.experiments.output import format_table

    seeds = [SEED0] if quick else [SEED0 + i for i in range(3)]
    head = [*SWITCHES, "heuristic", "chains", "agree", "timeouts"]
    head += ["nodes_expanded", "nodes_generated", "median_ms", "max_ms"]
    print(f"A* pruning switches, {STAGES} stages x {CONFIGS} configurations, medians over chains")
    print(format_table(head, blade_rows(seeds, 1.0 if quick else 5.0)))
