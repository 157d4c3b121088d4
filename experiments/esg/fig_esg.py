"""Figure `esg`: SLO hit rate and cost per policy, app, load and share grid with 95 % confidence
intervals over seeds, ESG's ablations, and the A* / exact comparison (agreement with brute force
and CP-SAT on random chains, nodes expanded versus the raw space, optimality gap of the
dominator SLO split on random DAGs versus the MILP).

Evaluation (the simulator part): every app of `workloads.app_names()` (chains and DAGs of
different depth and width) alone on the cluster, drawn per seed with `sim_configs` GPU
configurations on each share grid (MIG profiles; MPS 5 % steps) plus `cpu_configs` CPU-only
ones, so every policy has configurations of its kind. Each run leaves out its earliest
`warmup_frac` of the arrivals (steady state). Metrics as ESG's paper states them: the SLO hit
rate (share of requests finishing within the SLO) and the cost per request, also relative to
REFERENCE (`cost_rel`, paired per seed: cost / cost of REFERENCE on the same app, seed and
load), and REFERENCE's hit-rate gain over each policy (points, paired per seed). Every mean has
a 95 % t-interval over the seeds (`t_interval`).

Rows are journaled (results/esg/esg-*-SIZE.jsonl), so a rerun resumes (`--workers N` runs
cells side by side). Writes results/esg/esg-sim.csv (aggregated, with CIs), esg-sim-runs.csv
(one row per run), esg-table.md (the tables of docs/esg.md), esg-exact.csv, esg-split.csv,
esg-summary.json and esg.{png,pdf}. `SCHEDLAB_FIG_ESG_PARTS=sim` (or `exact`) runs one part.
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import POLICIES, register_figure
from schedlab.experiments.stats import t_half_width
from schedlab.experiments.store import RowStore, results_dir, write_csv, write_json

NAME = "esg"
#: The policy costs are measured against (ESG's paper: "saving 47 %-187 % costs over prior
#: work" is a baseline's cost over ESG's) and whose hit-rate gain over the others is reported.
REFERENCE = "esg"
#: ESG's ablations (name -> SimConfig fields), run with policy REFERENCE. "cold-start": the
#: main runs use the warm-start model (0 ms, docs/esg.md), so the ablation turns them on.
#: "no-split": the esg policy planning the remaining critical path within the whole remaining
#: budget (`--split critical_path`) instead of its default optimal SLO split (`split` is read
#: by `sim_row`, the rest are SimConfig fields).
ABLATIONS: dict[str, dict[str, Any]] = {
    "no-locality": {"dispatch": "no-locality"},
    "cold-start": {"cold_start_ms": 10.0},
    "no-split": {"split": "critical_path"},
}
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {
        "loads": [0.1], "seeds": 2, "requests": 150, "warmup_frac": 0.2,
        "apps": ["chain3", "dag-wide"], "grids": ["mig"], "sim_configs": 30, "cpu_configs": 30,
        "ablation_loads": [0.1], "chains": 4, "dags": 4, "configs": 15,
    },
    "small": {
        "loads": [0.1, 0.3], "seeds": 3, "requests": 400, "warmup_frac": 0.2,
        "apps": ["chain3", "dag-wide"], "grids": ["mig"], "sim_configs": 60, "cpu_configs": 30,
        "ablation_loads": [0.3], "chains": 12, "dags": 12, "configs": 30,
    },
    "full": {
        "loads": [0.1, 0.3, 0.5], "seeds": 10, "requests": 1500, "warmup_frac": 0.2,
        "apps": ["chain3", "chain6", "dag-wide", "dag-deep"], "grids": ["mig", "mps"],
        "sim_configs": 60, "cpu_configs": 30, "ablation_loads": [0.1, 0.3, 0.5],
        "chains": 60, "dags": 60, "configs": 100,
    },
}  # fmt: skip


def policy_names() -> tuple[str, ...]:
    """The ESG policies this figure compares: those tagged "figure", in registration order."""
    return tuple(POLICIES.names(scope="esg", tag="figure"))


def t_interval(xs: Sequence[float], confidence: float = 0.95) -> tuple[float, float | None]:
    """Mean and half-width of the two-sided t-interval (None with fewer than 2 values)."""
    x = np.asarray(xs, dtype=float)
    return float(x.mean()), t_half_width(x, confidence)


def sim_keys(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """Every run: the main runs (all policies) per grid, REFERENCE's ablations on the first
    grid right after that grid's main runs (a partial journal then holds whole tables)."""

    def main(g: str) -> list[dict[str, Any]]:
        return [
            {"grid": g, "app": a, "policy": p, "load": x, "seed": s, "ablation": "none"}
            for a in cfg["apps"]
            for x in cfg["loads"]
            for p in policy_names()
            for s in range(cfg["seeds"])
        ]

    first = cfg["grids"][0]
    ablations = [
        {"grid": first, "app": a, "policy": REFERENCE, "load": x, "seed": s, "ablation": ab}
        for ab in ABLATIONS
        for a in cfg["apps"]
        for x in cfg["ablation_loads"]
        for s in range(cfg["seeds"])
    ]
    return main(first) + ablations + [k for g in cfg["grids"][1:] for k in main(g)]


def sim_row(key: dict[str, Any], cfg: dict[str, Any], seed: int) -> dict[str, Any]:
    """One simulation: app `key["app"]` drawn for seed + key seed on the key's share grid."""
    from schedlab.experiments.esg.policies import make_policy
    from schedlab.experiments.esg.simulator import SimConfig, simulate
    from schedlab.experiments.esg.workloads import build_app

    s = seed + key["seed"]
    app = build_app(
        key["app"], s, cfg["sim_configs"], shares=key["grid"], cpu_configs=cfg["cpu_configs"]
    )
    over = dict(ABLATIONS.get(key["ablation"], {}))
    split = over.pop("split", None)
    policy = make_policy(key["policy"], split)
    sc = SimConfig(
        load=key["load"], requests=cfg["requests"], seed=s, warmup_frac=cfg["warmup_frac"], **over
    )
    m = simulate([app], policy, sc)
    keep = ("slo_hit_rate", "cost", "p99_latency_ms", "decision_ms_p99", "cold_starts")
    return {k: m[k] for k in keep}


def config_space(cfg: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Per share grid and policy: configurations per function the policy may use (mean over
    the apps' functions at the first seed) out of all."""
    from schedlab.experiments.esg.workloads import build_app
    from schedlab.solvers.esg.heuristics import MASKS

    out = []
    for g in cfg["grids"]:
        apps = [
            build_app(a, seed, cfg["sim_configs"], shares=g, cpu_configs=cfg["cpu_configs"])
            for a in cfg["apps"]
        ]
        fs = [f for app in apps for f in app.functions]
        for p in policy_names():
            mask = MASKS.get(p, MASKS["greedy"])
            n = float(np.mean([mask(f).sum() for f in fs]))
            out.append({"grid": g, "policy": p, "configs_per_function": n,
                        "of": float(np.mean([len(f.configs) for f in fs]))})  # fmt: skip
    return out


def aggregate(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (grid, app, policy, load, ablation): means with 95 % t-intervals over seeds, and
    the paired comparisons with REFERENCE (same grid, app, load, seed, main runs)."""
    ref = {
        (r["grid"], r["app"], r["load"], r["seed"]): r
        for r in runs
        if r["policy"] == REFERENCE and r["ablation"] == "none"
    }
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in runs:
        groups[(r["grid"], r["app"], r["policy"], r["load"], r["ablation"])].append(r)
    out = []
    for (g, a, p, x, ab), rs in groups.items():
        row: dict[str, Any] = {"grid": g, "app": a, "policy": p, "load": x, "ablation": ab,
                               "seeds": len(rs)}  # fmt: skip
        for name, vals in (
            ("hit", [r["slo_hit_rate"] for r in rs]),
            ("cost", [r["cost"] for r in rs]),
            ("cost_rel", [r["cost"] / ref[(g, a, x, r["seed"])]["cost"] for r in rs]),
            ("hit_gain_pts", [
                100 * (ref[(g, a, x, r["seed"])]["slo_hit_rate"] - r["slo_hit_rate"])
                for r in rs
            ]),
        ):  # fmt: skip
            row[name], row[f"{name}_ci"] = t_interval(vals)
        out.append(row)
    return sorted(out, key=lambda r: (r["ablation"] != "none", r["ablation"], r["grid"],
                                      r["app"], r["load"], policy_order(r["policy"])))  # fmt: skip


def policy_order(p: str) -> int:
    """Position of a policy in the figure's order."""
    names = policy_names()
    return names.index(p) if p in names else len(names)


def _pm(x: float, ci: float | None, scale: float = 1.0, digits: int = 1) -> str:
    """'mean ± half' (half omitted when unknown)."""
    if ci is None:
        return f"{scale * x:.{digits}f}"
    return f"{scale * x:.{digits}f} ± {scale * ci:.{digits}f}"


def markdown(agg: list[dict[str, Any]], space: list[dict[str, Any]], cfg: dict[str, Any]) -> str:
    """The tables of docs/esg.md: main results, paper-style comparison, ablations, spaces."""
    lines = [
        f"Seeds: {cfg['seeds']}; requests per run: {cfg['requests']} (first "
        f"{100 * cfg['warmup_frac']:.0f} % of arrivals dropped); mean ± 95 % t-interval.",
        "",
        "| grid | app | load | policy | hit rate % | cost (1e-6) | cost / esg | esg gain (pts) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in (r for r in agg if r["ablation"] == "none"):
        lines.append(
            f"| {r['grid']} | {r['app']} | {r['load']:g} | {r['policy']} | "
            f"{_pm(r['hit'], r['hit_ci'], 100)} | {_pm(r['cost'], r['cost_ci'], 1e6, 2)} | "
            f"{_pm(r['cost_rel'], r['cost_rel_ci'], 1, 2)} | "
            f"{_pm(r['hit_gain_pts'], r['hit_gain_pts_ci'])} |"
        )
    lines += ["", "Paper-style summary over apps and loads (ranges of the per-cell means): ESG's "
              "hit-rate improvement relative to the baseline (hit_esg / hit_b - 1) and the "
              "baseline's extra cost (cost_b / cost_esg - 1).", "",
              "| grid | baseline | hit-rate improvement % (min..max) | extra cost % (min..max) |",
              "|---|---|---|---|"]  # fmt: skip
    main = [r for r in agg if r["ablation"] == "none"]
    hit = {(r["grid"], r["app"], r["load"], r["policy"]): r["hit"] for r in main}
    for g in cfg["grids"]:
        for p in policy_names():
            if p == REFERENCE:
                continue
            rs = [r for r in main if r["grid"] == g and r["policy"] == p]
            imp = [
                100 * (hit[(g, r["app"], r["load"], REFERENCE)] / r["hit"] - 1)
                for r in rs
                if r["hit"] > 0
            ]
            extra = [100 * (r["cost_rel"] - 1) for r in rs]
            zero = sum(r["hit"] == 0 for r in rs)
            imp_s = f"{min(imp):.0f}..{max(imp):.0f}" if imp else "-"
            if zero:
                imp_s += f" ({zero} cells at 0 %)"
            lines.append(f"| {g} | {p} | {imp_s} | {min(extra):.0f}..{max(extra):.0f} |")
    abl = [r for r in agg if r["policy"] == REFERENCE and r["grid"] == cfg["grids"][0]]
    abl = [r for r in abl if r["load"] in cfg["ablation_loads"]]
    if any(r["ablation"] != "none" for r in abl):
        names = ["none", *ABLATIONS]
        lines += ["", f"Ablations of {REFERENCE} ({cfg['grids'][0]} grid): hit rate % / cost "
                  "(1e-6)", "", "| app | load | " + " | ".join(names) + " |",
                  "|---|---|" + "---|" * len(names)]  # fmt: skip
        cell = {(r["app"], r["load"], r["ablation"]): r for r in abl}
        for a in cfg["apps"]:
            for x in cfg["ablation_loads"]:
                parts = []
                for n in names:
                    c = cell.get((a, x, n))
                    parts.append(
                        "-"
                        if c is None
                        else f"{_pm(c['hit'], c['hit_ci'], 100)} / "
                        f"{_pm(c['cost'], c['cost_ci'], 1e6, 2)}"
                    )
                lines.append(f"| {a} | {x:g} | " + " | ".join(parts) + " |")
    lines += [
        "",
        "Configurations per function each policy may use (mean over the apps' functions, "
        "first seed):",
        "",
        "| grid | policy | may use | of |",
        "|---|---|---|---|",
    ]
    for r in space:
        lines.append(
            f"| {r['grid']} | {r['policy']} | {r['configs_per_function']:.1f} | {r['of']:.0f} |"
        )
    return "\n".join(lines) + "\n"


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


def compute(cfg: dict[str, Any], seed: int, outdir: Path, size: str) -> dict[str, list[Any]]:
    d = results_dir(outdir, "esg")
    header = json.loads(json.dumps({**cfg, "seed": seed, "row_format": 4}))
    parts = _parts()
    sim_rows: list[Any] = []
    if "sim" in parts:
        sim = RowStore(
            d / f"esg-sim-{size}.jsonl",
            ["grid", "app", "policy", "load", "seed", "ablation"],
            config=header,
        )
        sim_rows = sim.run(sim_keys(cfg), partial(sim_row, cfg=cfg, seed=seed), desc="esg-sim")
    ex_rows = exact_rows(cfg, seed, outdir) if "exact" in parts else []
    return {"sim": sim_rows, "exact": ex_rows}


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


def plot(
    agg: list[dict[str, Any]], rows: dict[str, list[Any]], stem: Path, caption: str
) -> list[Path]:
    """Hit rate and cost versus load per policy (first grid, mean over apps, mean of the
    apps' CI half-widths as error bars), and A*'s nodes expanded versus the raw space."""
    fig, axes = new_figure(1, 3, figsize=(14, 4.2))
    main = [r for r in agg if r["ablation"] == "none"]
    grid = main[0]["grid"] if main else None
    for p in policy_names():
        by_load: dict[float, list[dict[str, Any]]] = defaultdict(list)
        for r in main:
            if r["policy"] == p and r["grid"] == grid:
                by_load[r["load"]].append(r)
        x = sorted(by_load)
        for ax, key, scale in ((axes[0], "hit", 100), (axes[1], "cost", 1e6)):
            y = [scale * float(np.mean([r[key] for r in by_load[v]])) for v in x]
            e = [scale * float(np.mean([r[f"{key}_ci"] or 0 for r in by_load[v]])) for v in x]
            ax.errorbar(x, y, yerr=e, marker="o", capsize=3, label=p)
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


@register_figure(
    NAME, summary="ESG: hit rate and cost per policy, app, load with 95% CIs; A* vs exact"
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    cfg = CONFIGS[size]
    rows = compute(cfg, seed, outdir, size)
    d = results_dir(outdir, "esg")
    summary = summarize(rows)
    runs = rows["sim"]
    agg = aggregate(runs) if runs else []
    space = config_space(cfg, seed)
    summary["config_space"] = space
    paths = [write_json(d / "esg-summary.json", summary)]
    if runs:
        paths += [
            write_csv(d / "esg-sim.csv", agg),
            write_csv(d / "esg-sim-runs.csv", runs),
        ]
        md = d / "esg-table.md"
        from schedlab.solvers.util import atomic_write_text

        atomic_write_text(md, markdown(agg, space, cfg))
        paths.append(md)
    if rows["exact"]:
        paths += [
            write_csv(d / "esg-exact.csv", [r for r in rows["exact"] if r["kind"] == "chain"]),
            write_csv(d / "esg-split.csv", [r for r in rows["exact"] if r["kind"] == "dag"]),
        ]
    caption = (
        f"esg, size={size}, seed={seed}: apps {', '.join(cfg['apps'])} alone, "
        f"{cfg['seeds']} seeds, {cfg['sim_configs']} GPU + {cfg['cpu_configs']} CPU-only "
        f"configs/function, Poisson, {cfg['requests']} requests "
        f"({100 * cfg['warmup_frac']:.0f} % warm-up), 4 invokers; "
        f"grid {cfg['grids'][0]} plotted"
    )
    if summary.get("chains"):
        caption += (
            f"; A*: {summary['astar_agrees_brute']}/{summary['chains_brute']} chains equal "
            f"brute force, {summary['astar_agrees_cpsat']}/{summary['chains']} equal CP-SAT"
        )
    return paths + plot(agg, rows, d / NAME, caption)
