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

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.esg import eval_figure as ef
from schedlab.experiments.esg.eval_studies import FACTOR_TABLE_ARMS, config_space, main_study
from schedlab.experiments.esg.sizes import FIGURE_CONFIGS
from schedlab.experiments.plotting import (
    Series,
    new_figure,
    no_data,
    plain_log_ticks,
    plot_series,
    save_figure,
)
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import results_dir, write_csv, write_json

NAME = "esg"
#: The exact part's sizes; the gap study's families run the same (both read `sizes`).
CONFIGS = FIGURE_CONFIGS


def _same_value(x: float | None, y: float | None) -> bool:
    """Both infeasible, or equal costs within 1e-9 relative."""
    if x is None or y is None:
        return x is None and y is None
    return math.isclose(x, y, rel_tol=1e-9)


def _instances(rows: list[dict[str, Any]]) -> dict[tuple[float, int], dict[str, Any]]:
    """A gap study's rows by instance (size, i), then by method."""
    out: dict[tuple[float, int], dict[str, Any]] = {}
    for r in rows:
        out.setdefault((r["size"], r["i"]), {})[r["method"]] = r
    return out


def exact_rows(cfg: dict[str, Any], seed: int, outdir: Path) -> list[dict[str, Any]]:
    """The exact comparison, from the shared gap study (`experiments/esg/gapspec.py`): on
    `cfg["chains"]` chains A* against CP-SAT and, where the raw space is within brute force's
    default cap (full size has chains of 1e12 paths), brute force (family "astar"); on
    `cfg["dags"]` DAGs the SLO split's paper rules against the MILP optimum (family "split")."""
    from schedlab.experiments.esg.gapspec import CHAIN_STAGES, DAG_STAGES, chain_rungs, dag_rungs
    from schedlab.experiments.gap.study import run_study

    chains = run_study("esg", "astar", "", seed, outdir,
                       rungs=chain_rungs(cfg["chains"], cfg["configs"]))  # fmt: skip
    dags = run_study("esg", "split", "", seed, outdir,
                     rungs=dag_rungs(cfg["dags"], max(cfg["configs"] // 3, 4)))  # fmt: skip
    out = []
    for (stages, i), by in _instances(chains.rows).items():
        a, c, b = by["astar"], by["cpsat"], by.get("brute")
        out.append({
            "kind": "chain", "i": 4 * i + CHAIN_STAGES.index(int(stages)),
            "status": a["status"],
            "agree_brute": None if b is None else _same_value(a["value"], b["value"]),
            "agree_cpsat": _same_value(a["value"], c["value"]),
            "nodes_expanded": a["nodes_expanded"], "raw_space": a["raw_space"],
            "astar_ms": 1000 * a["runtime_s"],
        })  # fmt: skip
    for (stages, i), by in _instances(dags.rows).items():
        opt = by["milp"]
        row: dict[str, Any] = {
            "kind": "dag",
            "i": 4 * i + DAG_STAGES.index(int(stages)),
            "status": opt["status"],
            "dag": opt["problem_kind"] == "dag",
        }
        for rule in ("min_latency", "slack"):
            r = by[f"split[rule={rule}]"]
            row[f"gap_{rule}"] = r["gap"] if opt["proven"] else None
        out.append(row)
    return sorted(out, key=lambda r: (r["kind"], r["i"]))


def _parts() -> set[str]:
    """The parts to run (`SCHEDLAB_FIG_ESG_PARTS`, default both)."""
    return set(os.environ.get("SCHEDLAB_FIG_ESG_PARTS", "sim,exact").split(","))


def compute(cfg: dict[str, Any], seed: int, outdir: Path, size: str) -> dict[str, Any]:
    parts = _parts()
    sim: Any = None
    if "sim" in parts:
        sim = ef.evaluate(main_study(size), size, seed, outdir)
    ex_rows = exact_rows(cfg, seed, outdir) if "exact" in parts else []
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
    if not chains:
        no_data(ax, "no chain solved to optimality at this size")
        return
    ax.loglog(
        [r["raw_space"] for r in chains], [max(r["nodes_expanded"], 1) for r in chains], "o",
        label="A* (both blades, Pareto, dominance)",
    )  # fmt: skip
    ax.set_xlabel("raw configuration paths")
    ax.set_ylabel("A* nodes expanded")
    ax.legend(fontsize=8)
    plain_log_ticks(ax)


def cost_panel(ax: Any, tables: dict[str, Any]) -> None:
    """Each baseline's extra cost over ESG (cost_b / cost_ESG - 1, %) against load, the mean
    over the scenarios (each a paired bootstrap estimate); one load: the baselines as
    categories."""
    from schedlab.experiments.esg.evaluation import BASELINES

    series = []
    for arm in BASELINES:
        rs = [r for r in tables["paired"] if r["arm"] == arm]
        loads = sorted({r["load"] for r in rs})
        y = [float(np.mean([r["cost_saving_pct"] for r in rs if r["load"] == x])) for x in loads]
        series.append(Series(arm, loads, y))
    plot_series(ax, series, xlabel="offered load")
    if not ax.axison:
        return
    ax.axhspan(47, 187, color="0.85", label="paper: 47-187 %", zorder=0)
    ax.set_ylabel("cost_b / cost_ESG - 1 (%), mean over apps")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def plot(study: Any, tables: Any, rows: dict[str, Any], stem: Path, caption: str) -> list[Path]:
    """Per app: hit rate vs load per policy and ESG's factor ablations (paired differences);
    last column: A*'s nodes expanded vs the raw space, and the baselines' extra cost."""
    n = len(study.scenarios) if tables else 0
    fig, axes = new_figure(2, n + 1, figsize=(3.6 * (n + 1) + 0.6, 7.0), squeeze=False)
    if tables:
        ef.plot_study(study, tables, list(axes[0][:n]), list(axes[1][:n]), FACTOR_TABLE_ARMS)
        cost_panel(axes[1][n], tables)
    else:
        no_data(axes[1][n], "no simulation at this size")
    exact_panel(axes[0][n], rows)
    if axes[0][n].axison:
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
    caption = ef.caption_of(study, size, seed, tables)
    if summary.get("chains"):
        caption += (
            f"; A*: {summary['astar_agrees_brute']}/{summary['chains_brute']} chains equal "
            f"brute force, {summary['astar_agrees_cpsat']}/{summary['chains']} equal CP-SAT"
        )
    return sorted(set(paths)) + plot(study, tables, rows, d / NAME, caption)
