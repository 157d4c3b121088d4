"""Run an evaluation study and write its files: STEM-runs.csv (every run), STEM-cells.csv
(per scenario, load and arm, 95 % bootstrap intervals over seeds), STEM-paired.csv (every
paired comparison with ESG), STEM-paper.csv (the paper-vs-ours cells with verdicts),
STEM-table.md (the tables of docs/esg.md) and STEM.{png,pdf}: hit rate per arm against load
(bootstrap intervals, inside [0, 100 %]) and the paired hit-rate difference ESG - arm of the
factor arms (t-intervals)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedlab.experiments.esg import eval_report as rep
from schedlab.experiments.esg.evaluation import (
    BASELINES,
    REFERENCE,
    Comparison,
    Study,
    run_study,
)
from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.store import results_dir, write_csv, write_json
from schedlab.solvers.util import atomic_write_text

FLAT = ("scenario", "load", "arm", "seed", "slo_hit_rate", "slo_hits", "measured_requests",
        "cost", "p50_latency_ms", "p99_latency_ms", "decision_ms_p50", "decision_ms_p99",
        "cold_starts", "local_transfer_share")  # fmt: skip


def evaluate(
    study: Study, size: str, seed: int, outdir: Path, stem: str | None = None
) -> tuple[list[dict[str, Any]], dict[Comparison, dict[str, Any]], dict[str, Any]]:
    """Run the study (journal results/esg/STEM-SIZE.jsonl) and compute its tables."""
    d = results_dir(outdir, "esg")
    stem = stem or study.name
    rows, status = run_study(study, seed, d / f"{stem}-{size}.jsonl")
    cells = rep.cell_rows(study, rows)
    paired = rep.paired_rows(study, rows, status)
    return rows, status, {"cells": cells, "paired": paired, "paper": rep.paper_rows(paired)}


def write_study(
    study: Study,
    rows: list[dict[str, Any]],
    status: dict[Comparison, dict[str, Any]],
    tables: dict[str, Any],
    outdir: Path,
    *,
    stem: str | None = None,
    factor_arms: Sequence[str] = (),
    intro: Sequence[str] = (),
) -> list[Path]:
    """The study's CSV files, its markdown tables and a JSON summary; returns the paths."""
    d = results_dir(outdir, "esg")
    stem = stem or study.name
    runs = [{k: r.get(k) for k in FLAT} | {"per_app_hit": json.dumps(r["per_app_hit"])}
            for r in rows]  # fmt: skip
    paths = [
        write_csv(d / f"{stem}-runs.csv", runs),
        write_csv(d / f"{stem}-cells.csv", tables["cells"]),
        write_csv(d / f"{stem}-paired.csv", tables["paired"]),
        write_csv(d / f"{stem}-paper.csv", tables["paper"]),
    ]
    md = (
        list(intro)
        + [""]
        + rep.seeds_md(study, status)
        + [
            "",
            "Per cell (95 % bootstrap "
            "intervals over seeds; pooled: all measured requests of the cell's runs):",
            "",
        ]
    )
    md += rep.cells_md(tables["cells"])
    arms = [a for a in factor_arms if a in study.arms]
    if arms:
        md += [
            "",
            "ESG minus each arm, paired per seed: hit-rate points [95 % t-interval] / "
            "the arm's extra cost (cost_arm / cost_ESG - 1); (cap): undecided at the seed "
            "cap; factor: which of the paper's three factors (GPU sharing, batching, "
            "re-planning) costs ESG most when switched off, in hit rate and in cost, among "
            "those whose interval excludes 0 (none: no significant loss):",
            "",
        ]
        md += rep.factors_md([r for r in tables["paired"] if r["arm"] in arms], arms,
                             tables["cells"])  # fmt: skip
    if arms and any(a in study.arms for a in rep.PAPER_FACTORS):
        md += [
            "",
            "Where ESG's advantage over each baseline comes from: the advantage of ESG, and "
            "of ESG with one of the paper's factors off, over the baseline on their common "
            "seeds: hit-rate points [95 % paired t] / the baseline's cost over the arm's - 1 "
            "(%) [95 % paired bootstrap]. A factor whose removal takes the advantage to 0 "
            "or below is where it comes from:",
            "",
        ]
        md += rep.attribution_md(rep.attribution_rows(study, rows))
    if tables["paper"]:
        md += [
            "",
            "Paper vs ours (primary readings first, alternatives beside them; verdicts "
            "from the catalogue's definitions, `eval_report.py`):",
            "",
        ]
        md += rep.paper_md(tables["paper"])
    md += [""] + rep.time_md(rows)
    atomic_write_text(d / f"{stem}-table.md", "\n".join(md) + "\n")
    paths.append(d / f"{stem}-table.md")
    return paths


def summary_of(
    study: Study, rows: list[dict[str, Any]], status: dict[Comparison, dict[str, Any]],
    tables: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    """The study's summary: verdict counts per baseline, comparisons, capped, runs."""
    cpu = sum(r["cpu_s"] for r in rows if r.get("cpu_s", math.nan) == r.get("cpu_s"))
    return {"study": study.name, "verdicts": rep.verdict_counts(tables["paper"]),
            "comparisons": len(status), "capped": sum(s["capped"] for s in status.values()),
            "runs": len(rows), "cpu_s_runs": cpu}  # fmt: skip


def config_space_md(space: list[dict[str, Any]]) -> list[str]:
    """Configurations per function each arm may use (mean over the apps' functions)."""
    lines = ["Configurations per function each policy may use (mean over the apps' functions, "
             "first seed):", "", "| scenario | arm | may use | of |",
             "|---|---|---|---|"]  # fmt: skip
    for r in space:
        lines.append(f"| {r['scenario']} | {r['arm']} | {r['configs_per_function']:.1f} | "
                     f"{r['of']:.0f} |")  # fmt: skip
    return lines


def make_study(study: Study, size: str, seed: int, outdir: Path, factor_arms: Sequence[str],
               intro: Sequence[str] = ()) -> list[Path]:  # fmt: skip
    """Run a study and write every file of it, its summary and its figure."""
    d = results_dir(outdir, "esg")
    rows, status, tables = evaluate(study, size, seed, outdir)
    paths = write_study(study, rows, status, tables, outdir, factor_arms=factor_arms,
                        intro=intro)  # fmt: skip
    paths.append(write_json(d / f"{study.name}-summary.json",
                            summary_of(study, rows, status, tables)))  # fmt: skip
    cap = caption_of(study, size, seed)
    return paths + figure(study, tables, d / study.name, cap, factor_arms)


def plot_study(
    study: Study,
    tables: dict[str, Any],
    axes_top: Sequence[Any],
    axes_bottom: Sequence[Any],
    factor_arms: Sequence[str],
) -> None:
    """Per scenario (one column each): hit rate vs load of ESG and the baselines (bootstrap
    intervals), and the paired difference ESG - arm of the factor arms (t-intervals)."""
    for j, sc in enumerate(study.scenarios):
        top, bottom = axes_top[j], axes_bottom[j]
        for arm in (REFERENCE, *BASELINES):
            rs = [r for r in tables["cells"] if r["scenario"] == sc and r["arm"] == arm]
            if not rs:
                continue
            x = [r["load"] for r in rs]
            y = [100 * r["hit"] for r in rs]
            err = [[100 * (r["hit"] - r["hit_lo"]) for r in rs],
                   [100 * (r["hit_hi"] - r["hit"]) for r in rs]]  # fmt: skip
            top.errorbar(x, y, yerr=_clean(err), marker="o", capsize=3, label=arm)
        for k, arm in enumerate(a for a in factor_arms if a in study.arms):
            rs = [r for r in tables["paired"] if r["scenario"] == sc and r["arm"] == arm]
            if not rs:
                continue
            x = [r["load"] + 0.01 * (k - 2) for r in rs]
            y = [r["gain_pts"] for r in rs]
            err = [[r["gain_pts"] - r["gain_pts_lo"] for r in rs],
                   [r["gain_pts_hi"] - r["gain_pts"] for r in rs]]  # fmt: skip
            bottom.errorbar(x, y, yerr=_clean(err), marker="s", capsize=3, ls="", label=arm)
        bottom.axhline(0.0, color="0.5", lw=0.8)
        top.set_title(sc, fontsize=9)
        top.set_ylim(-2, 102)
        top.set_xlabel("offered load")
        bottom.set_xlabel("offered load")
        top.set_ylabel("SLO hit rate (%)")
        bottom.set_ylabel("ESG - arm, hit rate (points)")
        for ax in (top, bottom):
            ax.grid(True, alpha=0.3)
    for ax in (axes_top[0], axes_bottom[0]):
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)


def _clean(err: list[list[float]]) -> list[list[float]]:
    """Error bar lengths with unknown (nan) ones as 0."""
    return [[0.0 if v != v else max(v, 0.0) for v in side] for side in err]


def figure(
    study: Study, tables: dict[str, Any], stem: Path, caption: str, factor_arms: Sequence[str]
) -> list[Path]:
    """The study's figure alone (STEM.png, STEM.pdf)."""
    n = len(study.scenarios)
    fig, axes = new_figure(2, n, figsize=(3.6 * n + 0.6, 6.4), squeeze=False)
    plot_study(study, tables, list(axes[0]), list(axes[1]), factor_arms)
    return save_figure(fig, stem, caption)


def caption_of(study: Study, size: str, seed: int) -> str:
    """The caption line: workload, size, seed."""
    first = next(iter(study.scenarios.values()))
    return (f"{study.name}, size={size}, seed={seed}: {', '.join(study.scenarios)} "
            f"({first['arrivals']}, {first['grid']}, {first['invokers']} invokers); "
            f"{study.requests} requests/run ({100 * study.warmup_frac:.0f} % warm-up); seeds "
            f"{study.seeds0}..{study.seed_cap}; bootstrap (rates), paired t (diffs)")  # fmt: skip
