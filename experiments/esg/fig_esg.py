"""Figure `esg`: ESG's evaluation on the illustrative profiles (hit rate and cost per policy,
app and load; ESG's factor ablations; paired comparisons with sequential seeds; the
paper-vs-ours table), and the A* / exact comparison (agreement with brute force and CP-SAT on
random chains, nodes expanded versus the raw space, optimality gap of the dominator SLO split
on random DAGs versus the MILP).

The evaluation part is the study `eval_studies.main_study(size)` run by the engine
(`evaluation.py`, tables `eval_report.py`, files `eval_figure.py`): every app of
`workloads.app_names()` alone on 4 invokers, Poisson arrivals, the MIG share grid, 60 GPU + 30
CPU-only configurations per function drawn per seed; arms ESG, the baselines and ESG with one
factor off. Writes results/esg/esg-{runs,cells,paired,paper}.csv, esg-table.md,
esg-summary.json (the exact part's summary and the evaluation's verdict counts) and
esg.{png,pdf}; the exact part esg-exact.csv and esg-split.csv. Rows are journaled
(results/esg/esg-SIZE.jsonl, esg-exact-SIZE.jsonl), so a rerun resumes.
`SCHEDLAB_FIG_ESG_PARTS=sim` (or `exact`) runs one part.
"""

from __future__ import annotations

import json
import math
import os
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import ticker

from schedlab.experiments.esg import eval_figure as ef
from schedlab.experiments.esg.eval_studies import FACTOR_TABLE_ARMS, config_space, main_study
from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv, write_json

NAME = "esg"
#: The exact part's sizes (the evaluation's are `eval_studies.main_study`).
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {"chains": 4, "dags": 4, "configs": 15},
    "small": {"chains": 12, "dags": 12, "configs": 30},
    "full": {"chains": 60, "dags": 60, "configs": 100},
}


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


def _parts() -> set[str]:
    """The parts to run (`SCHEDLAB_FIG_ESG_PARTS`, default both)."""
    return set(os.environ.get("SCHEDLAB_FIG_ESG_PARTS", "sim,exact").split(","))


def compute(cfg: dict[str, Any], seed: int, outdir: Path, size: str) -> dict[str, Any]:
    d = results_dir(outdir, "esg")
    header = json.loads(json.dumps({**cfg, "seed": seed, "row_format": 4}))
    parts = _parts()
    sim: Any = None
    if "sim" in parts:
        sim = ef.evaluate(main_study(size), size, seed, outdir)
    ex_rows: list[Any] = []
    if "exact" in parts:
        ex = RowStore(d / f"esg-exact-{size}.jsonl", ["kind", "i"], config=header)
        keys = [{"kind": "chain", "i": i} for i in range(cfg["chains"])]
        keys += [{"kind": "dag", "i": i} for i in range(cfg["dags"])]
        ex_rows = ex.run(keys, partial(exact_row, cfg=cfg, seed=seed), desc="esg-exact")
    return {"sim": sim, "exact": ex_rows}


def summarize(rows: dict[str, list[Any]]) -> dict[str, Any]:
    chains = [r for r in rows["exact"] if r["kind"] == "chain"]
    dags = [r for r in rows["exact"] if r["kind"] == "dag" and r["status"] == "optimal"]
    if not chains:
        return {"chains": 0}
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


def exact_panel(ax: Any, rows: dict[str, list[Any]]) -> None:
    """A*'s nodes expanded versus the raw space of the chains it solved optimally."""
    chains = [r for r in rows["exact"] if r["kind"] == "chain" and r["status"] == "optimal"]
    ax.loglog(
        [r["raw_space"] for r in chains], [max(r["nodes_expanded"], 1) for r in chains], "o",
        label="A* (both blades, Pareto, dominance)",
    )  # fmt: skip
    ax.set_xlabel("raw configuration paths")
    ax.set_ylabel("A* nodes expanded")
    ax.legend(fontsize=8)
    plain_log_ticks(ax)


def plain_log_ticks(ax: Any) -> None:
    """Log axes labelled with plain numbers (2, 3, 10, 30, ...) instead of 3x10^0: decades
    only when the axis spans more than one, else every integer tick."""
    for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        lo, hi = max(min(lim), 1e-300), max(lim)
        axis.set_major_formatter(ticker.FuncFormatter(_plain))
        if math.log10(hi / lo) <= 1.0:
            axis.set_minor_formatter(ticker.FuncFormatter(_plain))
        else:
            axis.set_minor_formatter(ticker.NullFormatter())


def _plain(v: float, _pos: int) -> str:
    """A tick label: an integer below 1e4, else 10^k."""
    if v <= 0:
        return ""
    if v < 1e4:
        return f"{v:g}"
    k = math.log10(v)
    return f"$10^{{{k:.0f}}}$" if abs(k - round(k)) < 1e-9 else ""


def cost_panel(ax: Any, tables: dict[str, Any]) -> None:
    """Each baseline's extra cost over ESG (cost_b / cost_ESG - 1, %) against load, the mean
    over the scenarios (each a paired bootstrap estimate)."""
    from schedlab.experiments.esg.evaluation import BASELINES

    for arm in BASELINES:
        rs = [r for r in tables["paired"] if r["arm"] == arm]
        loads = sorted({r["load"] for r in rs})
        y = [float(np.mean([r["cost_saving_pct"] for r in rs if r["load"] == x])) for x in loads]
        if loads:
            ax.plot(loads, y, marker="o", label=arm)
    ax.axhspan(47, 187, color="0.85", label="paper: 47-187 %")
    ax.set_xlabel("offered load")
    ax.set_ylabel("cost_b / cost_ESG - 1 (%), mean over apps")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def plot(study: Any, tables: Any, rows: dict[str, Any], stem: Path, caption: str) -> list[Path]:
    """Per app: hit rate vs load per policy and ESG's factor ablations (paired differences);
    last column: A*'s nodes expanded vs the raw space, and the baselines' extra cost."""
    n = len(study.scenarios) if tables else 0
    fig, axes = new_figure(2, n + 1, figsize=(3.6 * (n + 1) + 0.6, 6.4), squeeze=False)
    if tables:
        ef.plot_study(study, tables, list(axes[0][:n]), list(axes[1][:n]), FACTOR_TABLE_ARMS)
        cost_panel(axes[1][n], tables)
    else:
        axes[1][n].axis("off")
    exact_panel(axes[0][n], rows)
    axes[0][n].grid(True, alpha=0.3)
    return save_figure(fig, stem, caption)


@register_figure(
    NAME, summary="ESG: hit rate and cost per policy, app, load; factor ablations; A* vs exact"
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    cfg = CONFIGS[size]
    rows = compute(cfg, seed, outdir, size)
    d = results_dir(outdir, "esg")
    summary = summarize(rows)
    study = main_study(size)
    paths: list[Path] = []
    tables = None
    if rows["sim"] is not None:
        runs, status, tables = rows["sim"]
        space = config_space(study, seed)
        summary["config_space"] = space
        paths += ef.write_study(study, runs, status, tables, outdir,
                                factor_arms=FACTOR_TABLE_ARMS,
                                intro=ef.config_space_md(space))  # fmt: skip
        summary["evaluation"] = ef.summary_of(study, runs, status, tables)
    paths.append(write_json(d / "esg-summary.json", summary))
    if rows["exact"]:
        paths += [
            write_csv(d / "esg-exact.csv", [r for r in rows["exact"] if r["kind"] == "chain"]),
            write_csv(d / "esg-split.csv", [r for r in rows["exact"] if r["kind"] == "dag"]),
        ]
    caption = ef.caption_of(study, size, seed)
    if summary.get("chains"):
        caption += (
            f"; A*: {summary['astar_agrees_brute']}/{summary['chains_brute']} chains equal "
            f"brute force, {summary['astar_agrees_cpsat']}/{summary['chains']} equal CP-SAT"
        )
    return sorted(set(paths)) + plot(study, tables, rows, d / NAME, caption)
