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
import time
from typing import Any

import numpy as np

from schedlab.experiments.registry import register_benchmark

CONFIGS = 10
#: (depth, width) of the layered DAGs; each with `PER_SHAPE` seeds.
SHAPES = [(2, 3), (3, 3), (4, 2), (3, 4), (5, 2), (2, 4)]
PER_SHAPE = 2
RANDOM_DAGS = 12
ONLINE_APPS, ONLINE_LOADS, ONLINE_REQUESTS = (1, 2, 3), (0.2, 0.4), 2000
FIGURE_LOADS = (0.1, 0.2, 0.3, 0.5)
METHODS: list[tuple[str, str, dict[str, Any]]] = [
    ("paper min_latency", "split", {"rule": "min_latency"}),
    ("paper slack", "split", {"rule": "slack"}),
    ("opt (ours)", "split_opt", {}),
]


def layered(depth: int, width: int, seed: int) -> Any:
    """A source, `depth` layers of `width` functions, a sink; every function linked to one or
    two functions of the next layer (and reached from one of the previous), seeded."""
    from schedlab.solvers.esg.generate import random_function
    from schedlab.solvers.esg.plan import longest_path
    from schedlab.solvers.esg.problem import App, Prices

    rng = np.random.default_rng(seed)
    n = depth * width + 2
    ids = [f"f{i}" for i in range(n)]
    funcs = tuple(random_function(fid, CONFIGS, rng) for fid in ids)
    layers = [[0]] + [list(range(1 + d * width, 1 + (d + 1) * width)) for d in range(depth)]
    layers.append([n - 1])
    edges: set[tuple[int, int]] = set()
    for a, b in zip(layers, layers[1:], strict=False):
        for u in a:
            for v in rng.choice(b, size=min(len(b), int(rng.integers(1, 3))), replace=False):
                edges.add((u, int(v)))
        for v in b:
            if not any(e[1] == v for e in edges):
                edges.add((a[int(rng.integers(len(a)))], v))
    named = tuple((ids[u], ids[v]) for u, v in sorted(edges))
    app = App(f"layered-{depth}x{width}-s{seed}", 1.0, funcs, named, Prices())
    q = [float(np.quantile([c.latency_ms for c in f.configs], 0.3)) for f in funcs]
    return App(app.name, round(longest_path(app, q), 1), funcs, named, Prices())


def dags(quick: bool) -> list[tuple[str, Any]]:
    """(family, app) for every DAG of the benchmark (seed 0)."""
    from schedlab.solvers.esg.generate import generate

    k = 3 if quick else RANDOM_DAGS
    out = [("random", generate(5 + i % 4, CONFIGS, 20_000 * 0 + i, shape="dag")) for i in range(k)]
    shapes = SHAPES[:2] if quick else SHAPES
    for d, w in shapes:
        for s in range(1 if quick else PER_SHAPE):
            out.append((f"layered {d}x{w}", layered(d, w, 1000 * d + 100 * w + s)))
    return out


def rows(quick: bool) -> tuple[list[list[Any]], list[list[Any]]]:
    """(summary rows per method over all DAGs, rows per family and method)."""
    from schedlab.solvers.result import Status
    from schedlab.solvers.solve import solve

    per: list[dict[str, Any]] = []
    apps = dags(quick)
    for _, method, options in METHODS:  # warm-up: imports (networkx, PuLP) are not timed
        solve(apps[0][1], method, options=options)
    solve(apps[0][1], "milp")
    for fam, app in apps:
        opt = solve(app, "milp", time_limit=120.0)
        rec: dict[str, Any] = {"family": fam, "milp_ms": 1000 * opt.runtime_s}
        best = opt.value if opt.status is Status.OPTIMAL else None
        rec["ok"] = best is not None
        for label, method, options in METHODS:
            t0 = time.perf_counter()
            r = solve(app, method, options=options)
            ms = 1000 * (time.perf_counter() - t0)
            gap = None
            if best is not None and r.value is not None:
                gap = 100.0 * (r.value - best) / best
            proved = r.status is Status.OPTIMAL
            rec[label] = (gap, ms, proved)
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
        out.append([family, label, len(sel), _f(np.mean(gaps)), _f(np.max(gaps)), equal,
                    proved, _f(np.mean(ms)), _f(np.max(ms))])  # fmt: skip
    ms = [r["milp_ms"] for r in sel]
    out.append([family, "milp (optimum)", len(sel), "0.00", "0.00", len(sel), len(sel),
                _f(np.mean(ms)), _f(np.max(ms))])  # fmt: skip
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
                out.append([app.name, load, m["split"], f"{100 * m['slo_hit_rate']:.1f}",
                            f"{1e6 * m['cost']:.3f}", f"{m['p99_latency_ms']:.1f}"])  # fmt: skip
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

    head = ["dags", "method", "n", "mean_gap_%", "worst_gap_%", "=milp", "proved_optimal",
            "mean_ms", "max_ms"]  # fmt: skip
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
