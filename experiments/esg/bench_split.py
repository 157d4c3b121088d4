"""Benchmark `bench_split`: the SLO split's gap to the MILP optimum on the same DAGs, for the
paper's two rules (`split --rule min_latency`, `--rule slack`) and the optimal split
(`split_opt`, ours), with the time of each (the MILP's too).

`python -m schedlab.experiments.bench bench_split [--quick]` prints one row per (DAG family,
method): DAGs, mean and worst gap (%), how many equal the MILP's cost (1e-9 relative), how many
`split_opt` proved optimal, mean and worst time (ms). Families (10 configurations per function,
seed 0, the SLO as `generate` sets it): "random" = `generate(5-8, shape="dag")` as the ESG
figure draws them (layers of 1-3 functions), and "layered DxW" = D layers of W functions
between a source and a sink, each function linked to 1-2 functions of the next layer.

Then the split online (`schedlab esg simulate --split ...`): the esg policy with each split on
`ONLINE_APPS` (`generate(7, 30, seed, shape="dag")`, one app per run), Poisson arrivals,
`ONLINE_REQUESTS` requests, 4 invokers, simulator seed 0, at each of `ONLINE_LOADS`: SLO hit rate,
cost per request (1e-6 price units) and p99 latency. Last, the workload the ESG figure ran
before its evaluation of four apps (a 3-stage chain and a 5-function DAG, 600 requests, seed 0,
copied here) with the esg policy under each split.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.esg.sizes import LAYERED_PER_SHAPE, LAYERED_SHAPES, SPLIT_MILP_LIMIT_S
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.esg.generate import generate_layered

layered = generate_layered  # the benchmark's layered DAGs, by their old name here

CONFIGS = 10
#: (depth, width) of the layered DAGs, each with `PER_SHAPE` seeds: the gap study's "layered"
#: family runs the same (both read them from `sizes`).
SHAPES, PER_SHAPE = LAYERED_SHAPES, LAYERED_PER_SHAPE
RANDOM_DAGS = 12
MILP_LIMIT_S = SPLIT_MILP_LIMIT_S
ONLINE_APPS, ONLINE_LOADS, ONLINE_REQUESTS = (1, 2, 3), (0.2, 0.4), 2000
FIGURE_LOADS = (0.1, 0.2, 0.3, 0.5)
METHODS: list[tuple[str, str, dict[str, Any]]] = [
    ("paper min_latency", "split", {"rule": "min_latency"}),
    ("paper slack", "split", {"rule": "slack"}),
    ("opt (ours)", "split_opt", {}),
]


def studies(quick: bool, outdir: Path) -> list[Any]:
    """The gap study (`experiments/esg/gapspec.py`) on the random DAGs (family "split": the
    ESG figure's DAGs at seed 0, `CONFIGS` configurations) and the layered ones (family
    "layered", seeds 1000 D + 100 W + s), every method of `METHODS` against the MILP."""
    from schedlab.experiments.esg.gapspec import dag_rungs
    from schedlab.experiments.gap.spec import Rung
    from schedlab.experiments.gap.study import run_study

    methods = [
        f"{m}[{','.join(f'{k}={v}' for k, v in o.items())}]" if o else m for _, m, o in METHODS
    ]
    shapes = SHAPES[:2] if quick else SHAPES
    layered_rungs = [
        Rung(
            "layered",
            d * w + 2,
            f"layered {d}x{w}",
            "dag",
            {"depth": d, "width": w},
            1 if quick else PER_SHAPE,
            ("milp",),
            MILP_LIMIT_S,
        )
        for d, w in shapes
    ]
    random = dag_rungs(3 if quick else RANDOM_DAGS, CONFIGS, MILP_LIMIT_S)
    return [
        run_study("esg", "split", "", 0, outdir, methods=methods, rungs=random),
        run_study("esg", "layered", "", 0, outdir, methods=methods, rungs=layered_rungs),
    ]


def rows(quick: bool) -> tuple[list[list[Any]], list[list[Any]]]:
    """(summary rows per method over all DAGs, rows per family and method)."""
    from schedlab.solvers.esg.generate import generate
    from schedlab.solvers.solve import solve

    app = generate(5, CONFIGS, 0, shape="dag")
    for _, method, options in METHODS:  # warm-up: imports (networkx, PuLP) are not timed
        solve(app, method, options=options)
    solve(app, "milp")
    labels = {
        (f"{m}[{','.join(f'{k}={v}' for k, v in o.items())}]" if o else m): label
        for label, m, o in METHODS
    }
    per: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:  # nothing cached: every solve is timed here
        found = studies(quick, Path(tmp))
    for study in found:
        by: dict[tuple[str, int], dict[str, Any]] = {}
        for r in study.rows:
            by.setdefault((r["rung"], r["i"]), {})[r["method"]] = r
        for (rung, _), cells in by.items():
            opt = cells["milp"]
            fam = "random" if study.family == "split" else rung
            rec: dict[str, Any] = {
                "family": fam,
                "milp_ms": 1000 * opt["runtime_s"],
                "ok": opt["proven"],
            }
            for method, label in labels.items():
                r = cells[method]
                gap = 100.0 * r["gap"] if r["gap"] is not None and opt["proven"] else None
                rec[label] = (gap, 1000 * r["runtime_s"], r["status"] == "optimal")
            per.append(rec)
    fams = sorted({r["family"] for r in per}, key=lambda f: (f != "random", f))
    return _table(per, "all"), [row for f in fams for row in _table(per, f)]


def _table(per: list[dict[str, Any]], family: str) -> list[list[Any]]:
    """Rows (method, DAGs, mean / worst gap %, = MILP, proved optimal, mean / max ms)."""
    sel = [r for r in per if family == "all" or r["family"] == family]
    sel = [r for r in sel if r["ok"]]
    out = []
    for label, _, _ in METHODS:
        gaps = [r[label][0] for r in sel if r[label][0] is not None]
        ms = [r[label][1] for r in sel]
        equal = sum(g is not None and g <= 1e-7 for g in gaps)
        proved = sum(r[label][2] for r in sel)
        out.append(
            [
                family,
                label,
                len(sel),
                _f(np.mean(gaps)),
                _f(np.max(gaps)),
                equal,
                proved,
                _f(np.mean(ms)),
                _f(np.max(ms)),
            ]
        )
    ms = [r["milp_ms"] for r in sel]
    out.append(
        [
            family,
            "milp (optimum)",
            len(sel),
            "0.00",
            "0.00",
            len(sel),
            len(sel),
            _f(np.mean(ms)),
            _f(np.max(ms)),
        ]
    )
    return out


def _f(x: float) -> str:
    return "-" if x is None or not math.isfinite(float(x)) else f"{float(x):.2f}"


def online_rows(quick: bool) -> list[list[Any]]:
    """One row per (app seed, load, split): the esg policy online with that split."""
    from schedlab.experiments.esg.policies import SPLITS, make_policy
    from schedlab.experiments.esg.simulator import SimConfig, simulate
    from schedlab.solvers.esg.generate import generate

    out = []
    for seed in ONLINE_APPS[:1] if quick else ONLINE_APPS:
        app = generate(7, 30, seed, shape="dag")
        for load in ONLINE_LOADS[:1] if quick else ONLINE_LOADS:
            cfg = SimConfig(load=load, requests=500 if quick else ONLINE_REQUESTS, seed=0)
            for split in SPLITS:
                m = simulate([app], make_policy("esg", split), cfg)
                out.append(
                    [
                        app.name,
                        load,
                        m["split"],
                        f"{100 * m['slo_hit_rate']:.1f}",
                        f"{1e6 * m['cost']:.3f}",
                        f"{m['p99_latency_ms']:.1f}",
                    ]
                )
    return out


def figure_rows(quick: bool) -> list[list[Any]]:
    """One row per load of the ESG figure's small simulation as of this benchmark (a 3-stage
    chain and a 5-function DAG, 30 configurations, seeds 0 and 1, 600 requests, seed 0): the
    esg policy's hit rate and cost under each split."""
    from schedlab.experiments.esg.policies import SPLITS, make_policy
    from schedlab.experiments.esg.simulator import SimConfig, simulate
    from schedlab.solvers.esg.generate import generate

    apps, out = [generate(3, 30, 0), generate(5, 30, 1, shape="dag")], []
    for load in FIGURE_LOADS[:1] if quick else FIGURE_LOADS:
        row: list[Any] = [load]
        for split in SPLITS:
            sc = SimConfig(load=load, requests=600, seed=0)
            m = simulate(apps, make_policy("esg", split), sc)
            row.append(f"{100 * m['slo_hit_rate']:.1f} / {1e6 * m['cost']:.2f}")
        out.append(row)
    return out


@register_benchmark("bench_split", summary="SLO split gap to the MILP: paper rules vs optimal")
def run(quick: bool) -> None:
    from schedlab.experiments.esg.policies import SPLITS
    from schedlab.experiments.output import format_table

    head = [
        "dags",
        "method",
        "n",
        "mean_gap_%",
        "worst_gap_%",
        "=milp",
        "proved_optimal",
        "mean_ms",
        "max_ms",
    ]
    total, fams = rows(quick)
    print(format_table(head, total))
    print()
    print(format_table(head, fams))
    print()
    head = ["app", "load", "split", "hit_rate_%", "cost_1e-6", "p99_ms"]
    print(format_table(head, online_rows(quick)))
    print()
    head = ["figure load", *(f"{x} hit_% / cost" for x in SPLITS)]
    print(format_table(head, figure_rows(quick)))
