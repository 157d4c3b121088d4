"""Benchmark `bench_esg_measured`: ESG's A* against brute force on a pipeline built from measured
A100 MIG profiles (`solvers/esg/data/parvagpu_a100_*.csv`, see its ATTRIBUTION.md).

`python -m schedlab.experiments.bench bench_esg_measured [--quick]` plans the chain
mobilenetv2 -> resnet50 -> densenet121 -> bert (`generate.measured_app`; 41 x 38 x 38 x 45
configurations: MIG 1g/2g/3g/4g/7g x batch 1-256 where measured, one process per instance) at
a ladder of SLOs, from below the fastest plan (infeasible) up, with A* (defaults) and `brute`
(every path, numba CPU kernel), and prints per SLO both statuses and costs, A*'s nodes expanded,
both times (brute's kernel compiled before) and A*'s plan (MIG slices and batch per
function). `--quick`: three SLOs.
"""

from __future__ import annotations

import math
from typing import Any

from schedlab.experiments.registry import register_benchmark

MODELS = ["mobilenetv2", "resnet50", "densenet121", "bert"]
SLOS_MS = [30.0, 36.0, 40.0, 50.0, 75.0, 100.0, 150.0, 250.0, 500.0]
QUICK_SLOS_MS = [30.0, 50.0, 150.0]


def _plan_text(app: Any, res: Any) -> str:
    """The plan as `<slices>g/b<batch>` per function, in chain order."""
    if res.solution is None:
        return "-"
    parts = []
    for f in app.functions:
        c = f.configs[res.solution.configs[f.id]]
        parts.append(f"{round(c.gpu_share * 7)}g/b{c.batch}")
    return " ".join(parts)


def measured_rows(slos: list[float]) -> list[list[Any]]:
    """One row per SLO: statuses, costs (1e-6 price units per request), agreement, nodes, ms."""
    from schedlab.solvers.esg.generate import measured_app
    from schedlab.solvers.solve import solve

    solve(measured_app(MODELS[:1], 100.0), "brute", options={"backend": "cpu"})  # JIT warm-up
    rows = []
    for slo in slos:
        app = measured_app(MODELS, slo)
        a, b = solve(app, "astar"), solve(app, "brute", options={"backend": "cpu"})
        va, vb = a.value, b.value
        same = a.status is b.status and (
            (va is None and vb is None)
            or (va is not None and vb is not None and math.isclose(va, vb, rel_tol=1e-9))
        )
        cost = [f"{1e6 * r.value:.4f}" if r.value is not None else "-" for r in (a, b)]
        rows.append(
            [slo, a.status.value, b.status.value, *cost, same, a.stats["nodes_expanded"]]
            + [f"{1000 * a.runtime_s:.1f}", f"{1000 * b.runtime_s:.1f}", _plan_text(app, a)]
        )
    return rows


@register_benchmark("bench_esg_measured")
def run(quick: bool) -> None:
    from schedlab.experiments.output import format_table
    from schedlab.solvers.esg.generate import measured_app

    app = measured_app(MODELS, 1.0)
    sizes = " x ".join(str(len(f.configs)) for f in app.functions)
    print(f"A* vs brute force, chain {' -> '.join(MODELS)} ({sizes} measured configurations)")
    head = ["slo_ms", "astar", "brute", "astar_cost", "brute_cost", "same", "nodes_expanded"]
    head += ["astar_ms", "brute_ms", "astar_plan"]
    print(format_table(head, measured_rows(QUICK_SLOS_MS if quick else SLOS_MS)))
