"""Figure `esg`: SLO hit rate and cost per request versus load for every policy, and the A* /
exact comparison (agreement with brute force and CP-SAT on random chains, nodes expanded versus
the raw space, optimality gap of the dominator SLO split on random DAGs versus the MILP).

Rows are journaled (results/esg/esg-*-SIZE.jsonl), so a rerun resumes. Writes
results/esg/esg-sim.csv, esg-exact.csv, esg-split.csv, esg-summary.json and esg.{png,pdf}.
"""

from __future__ import annotations

import json
import math
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import POLICIES, register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv, write_json

NAME = "esg"
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {"loads": [0.1, 0.3], "requests": 200, "chains": 4, "dags": 4, "configs": 15},
    "small": {
        "loads": [0.1, 0.2, 0.3, 0.5],
        "requests": 600,
        "chains": 12,
        "dags": 12,
        "configs": 30,
    },  # fmt: skip
    "full": {
        "loads": [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7],
        "requests": 4000,
        "chains": 60,
        "dags": 60,
        "configs": 100,
    },  # fmt: skip
}


def policy_names() -> tuple[str, ...]:
    """The ESG policies this figure compares: those tagged "figure", in registration order."""
    return tuple(POLICIES.names(scope="esg", tag="figure"))


def workload(seed: int, configs: int) -> list[Any]:
    """Two applications: a 3-stage chain and a 5-function DAG (seeded random profiles)."""
    from schedlab.solvers.esg.generate import generate

    return [generate(3, configs, seed), generate(5, configs, seed + 1, shape="dag")]


def sim_row(key: dict[str, Any], cfg: dict[str, Any], seed: int) -> dict[str, Any]:
    from schedlab.experiments.esg.simulator import SimConfig, simulate

    sc = SimConfig(load=key["load"], requests=cfg["requests"], seed=seed)
    m = simulate(workload(seed, cfg["configs"]), key["policy"], sc)
    return {k: m[k] for k in ("slo_hit_rate", "cost", "p99_latency_ms", "decision_ms_p99")}


def _same_value(x: float | None, y: float | None) -> bool:
    """Both infeasible, or equal costs within 1e-9 relative."""
    if x is None or y is None:
        return x is None and y is None
    return math.isclose(x, y, rel_tol=1e-9)


def exact_row(key: dict[str, Any], cfg: dict[str, Any], seed: int) -> dict[str, Any]:
    from schedlab.solvers.esg.exact_enum import BruteOptions
    from schedlab.solvers.esg.generate import generate
    from schedlab.solvers.solve import solve

    i = key["i"]
    if key["kind"] == "chain":
        app = generate(3 + i % 4, cfg["configs"], 10_000 * seed + i)
        a, c = solve(app, "astar"), solve(app, "cpsat")
        # brute force only within its default cap (full size has chains of 1e12 paths);
        # the larger chains are checked against CP-SAT only
        fits = a.stats["raw_space"] <= BruteOptions().max_paths
        b = solve(app, "brute") if fits else None
        return {
            "status": a.status.value,
            "agree_brute": None if b is None else _same_value(a.value, b.value),
            "agree_cpsat": _same_value(a.value, c.value),
            "nodes_expanded": a.stats["nodes_expanded"],
            "raw_space": a.stats["raw_space"],
            "astar_ms": 1000 * a.runtime_s,
        }
    app = generate(5 + i % 4, max(cfg["configs"] // 3, 4), 20_000 * seed + i, shape="dag")
    opt = solve(app, "milp")
    row: dict[str, Any] = {"status": opt.status.value, "dag": app.kind == "dag"}
    for rule in ("min_latency", "slack"):
        r = solve(app, "split", options={"rule": rule})
        gap = (r.value - opt.value) / opt.value if opt.value and r.value is not None else None
        row[f"gap_{rule}"] = gap
    return row


def compute(cfg: dict[str, Any], seed: int, outdir: Path, size: str) -> dict[str, list[Any]]:
    d = results_dir(outdir, "esg")
    header = json.loads(json.dumps({**cfg, "seed": seed, "row_format": 2}))
    sim = RowStore(d / f"esg-sim-{size}.jsonl", ["policy", "load"], config=header)
    keys = [{"policy": p, "load": x} for x in cfg["loads"] for p in policy_names()]
    sim_rows = sim.run(keys, partial(sim_row, cfg=cfg, seed=seed), desc="esg-sim")
    ex = RowStore(d / f"esg-exact-{size}.jsonl", ["kind", "i"], config=header)
    keys = [{"kind": "chain", "i": i} for i in range(cfg["chains"])]
    keys += [{"kind": "dag", "i": i} for i in range(cfg["dags"])]
    ex_rows = ex.run(keys, partial(exact_row, cfg=cfg, seed=seed), desc="esg-exact")
    return {"sim": sim_rows, "exact": ex_rows}


def summarize(rows: dict[str, list[Any]]) -> dict[str, Any]:
    chains = [r for r in rows["exact"] if r["kind"] == "chain"]
    dags = [r for r in rows["exact"] if r["kind"] == "dag" and r["status"] == "optimal"]
    out: dict[str, Any] = {
        "chains": len(chains),
        "chains_brute": sum(r["agree_brute"] is not None for r in chains),
        "astar_agrees_brute": sum(bool(r["agree_brute"]) for r in chains),
        "astar_agrees_cpsat": sum(r["agree_cpsat"] for r in chains),
        "infeasible_chains": sum(r["status"] == "infeasible" for r in chains),
        "nodes_expanded_median": float(np.median([r["nodes_expanded"] for r in chains])),
        "raw_space_median": float(np.median([r["raw_space"] for r in chains])),
        "dags_with_optimum": len(dags),
    }
    for rule in ("min_latency", "slack"):
        g = [100 * r[f"gap_{rule}"] for r in dags if r[f"gap_{rule}"] is not None]
        out[f"split_gap_{rule}_mean_pct"] = float(np.mean(g)) if g else None
        out[f"split_gap_{rule}_max_pct"] = float(np.max(g)) if g else None
    return out


def plot(rows: dict[str, list[Any]], stem: Path, caption: str) -> list[Path]:
    fig, axes = new_figure(1, 3, figsize=(14, 4.2))
    for p in policy_names():
        rs = sorted((r for r in rows["sim"] if r["policy"] == p), key=lambda r: r["load"])
        x = [r["load"] for r in rs]
        axes[0].plot(x, [100 * r["slo_hit_rate"] for r in rs], "o-", label=p)
        axes[1].plot(x, [1e6 * r["cost"] for r in rs], "o-", label=p)
    axes[0].set_xlabel("offered load (1 = GPUs busy at batch-1 configurations)")
    axes[0].set_ylabel("SLO hit rate (%)")
    axes[1].set_xlabel("offered load")
    axes[1].set_ylabel("cost per request (1e-6 price units)")
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    chains = [r for r in rows["exact"] if r["kind"] == "chain" and r["status"] == "optimal"]
    axes[2].loglog(
        [r["raw_space"] for r in chains], [max(r["nodes_expanded"], 1) for r in chains], "o",
        label="A* (both blades, Pareto, dominance)",
    )  # fmt: skip
    axes[2].set_xlabel("raw configuration paths")
    axes[2].set_ylabel("A* nodes expanded")
    axes[2].legend(fontsize=8)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    return save_figure(fig, stem, caption)


@register_figure(NAME, summary="ESG: hit rate and cost vs load per policy; A* vs exact")
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    cfg = CONFIGS[size]
    rows = compute(cfg, seed, outdir, size)
    d = results_dir(outdir, "esg")
    summary = summarize(rows)
    paths = [
        write_csv(d / "esg-sim.csv", sorted(rows["sim"], key=lambda r: (r["policy"], r["load"]))),
        write_csv(d / "esg-exact.csv", [r for r in rows["exact"] if r["kind"] == "chain"]),
        write_csv(d / "esg-split.csv", [r for r in rows["exact"] if r["kind"] == "dag"]),
        write_json(d / "esg-summary.json", summary),
    ]
    caption = (
        f"esg, size={size}, seed={seed}: simulation of a 3-stage chain + a 5-function DAG "
        f"({cfg['configs']} configs/function, Poisson, {cfg['requests']} requests, 4 invokers); "
        f"A*: {summary['astar_agrees_brute']}/{summary['chains_brute']} chains equal brute force "
        "(those brute force can enumerate), "
        f"{summary['astar_agrees_cpsat']}/{summary['chains']} equal CP-SAT"
    )
    return paths + plot(rows, d / NAME, caption)
