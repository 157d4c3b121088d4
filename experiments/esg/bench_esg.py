"""Benchmark `bench_esg`: decision time of A* versus the MILP and CP-SAT on chains of 3-10
stages with 100-500 configurations per stage, and the simulator's requests per second on the
Azure LLM code trace: the whole trace (`$SCHEDLAB_AZURE_TRACE`, default
`../shared/data/azure_llm/AzureLLMInferenceTrace_code.csv` beside the checkout) when present,
else the shipped 3,000-arrival sample's gaps tiled to the trace's 8,818 requests; rescaled to
the load.

`SCHEDLAB_BENCH_ESG_PARTS=decision` (or `sim`; default both) selects the parts. Column
`astar_h0_ms` is A* with the plain heuristic (sum of minimum costs, `dp_buckets=0`)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark

SHARED_TRACE = Path("..") / "shared" / "data" / "azure_llm" / "AzureLLMInferenceTrace_code.csv"


def decision_table(quick: bool) -> list[list[Any]]:
    from schedlab.solvers.esg.generate import generate
    from schedlab.solvers.solve import solve

    sizes = [(3, 100), (5, 300), (10, 500)] if quick else [
        (3, 100), (3, 500), (5, 100), (5, 300), (5, 500), (10, 100), (10, 300), (10, 500)
    ]  # fmt: skip
    reps = 3 if quick else 10
    rows = []
    for k, c in sizes:
        times: dict[str, list[float]] = {"astar": [], "astar_h0": [], "milp": [], "cpsat": []}
        agree = 0
        for r in range(reps):
            app = generate(k, c, 1000 * k + r)
            res = {m: solve(app, m, time_limit=60.0) for m in ("astar", "milp", "cpsat")}
            res["astar_h0"] = solve(app, "astar", options={"dp_buckets": 0})
            for m, x in res.items():
                times[m].append(1000 * x.runtime_s)
            vm = res["milp"].value
            agree += all(
                (va is None and vm is None)
                or (
                    va is not None
                    and vm is not None
                    and abs(va - vm) <= 1e-9 * max(abs(vm), 1e-300)
                )
                for va in (res["astar"].value, res["astar_h0"].value)
            )
        rows.append(
            [k, c, reps, agree]
            + [f"{np.median(times[m]):.2f}/{np.percentile(times[m], 99):.2f}" for m in times]
        )
    return rows


def sim_rate(quick: bool) -> tuple[int, float, str]:
    from schedlab.experiments.esg.simulator import SimConfig, simulate, trace_offsets
    from schedlab.solvers.esg.generate import generate

    apps = [generate(3, 50, 1), generate(5, 50, 2, shape="dag")]
    path = os.environ.get("SCHEDLAB_AZURE_TRACE", str(SHARED_TRACE))
    trace: str | None = path if not quick and Path(path).is_file() else None
    if trace is not None:
        n, source = len(trace_offsets(trace)), f"the whole Azure code trace ({trace})"
    else:
        n = 3000 if quick else 8818
        source = "Azure code sample" if quick else "Azure code sample tiled to the trace's 8,818"
    cfg = SimConfig(load=0.2, arrivals="azure", requests=n, seed=0, trace=trace)
    t0 = time.perf_counter()
    m = simulate(apps, "esg", cfg)
    return m["requests"], time.perf_counter() - t0, source


@register_benchmark("bench_esg")
def run(quick: bool) -> None:
    """Print the decision-time table (median/p99 ms) and the simulator's throughput."""
    parts = os.environ.get("SCHEDLAB_BENCH_ESG_PARTS", "decision,sim").split(",")
    if "decision" in parts:
        rows = decision_table(quick)
        head = ["stages", "configs", "apps", "astar=milp", "astar_ms", "astar_h0_ms", "milp_ms",
                "cpsat_ms"]  # fmt: skip
        print(format_table(head, rows))
    if "sim" not in parts:
        return
    n, secs, source = sim_rate(quick)
    print(f"simulator (esg policy, {source}): {n} requests in {secs:.2f} s = {n / secs:.0f} req/s")
