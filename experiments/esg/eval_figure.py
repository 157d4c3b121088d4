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
from schedlab.experiments.plotting import Series, colours_for, new_figure, plot_series, save_figure
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
    cap = caption_of(study, size, seed, tables, has_factor_rows(study, tables, factor_arms))
    return paths + figure(study, tables, d / study.name, cap, factor_arms)


def plot_study(
    study: Study,
    tables: dict[str, Any],
    axes_top: Sequence[Any],
    axes_bottom: Sequence[Any],
    factor_arms: Sequence[str],
) -> None:
    """Per scenario (one column each): hit rate vs load of ESG and the baselines (bootstrap
    intervals, inside [0, 100 %]), and the paired difference ESG - arm of the factor arms
    (t-intervals), dodged within each load. One load: the arms as categories at that load."""
    arms = [REFERENCE, *BASELINES]
    factors = [a for a in factor_arms if a in study.arms]
    colours = colours_for(arms + factors)
    for j, sc in enumerate(study.scenarios):
        top, bottom = axes_top[j], axes_bottom[j] if axes_bottom else None
        cells = [r for r in tables["cells"] if r["scenario"] == sc]
        plot_series(top, [_series(cells, a, "hit", 100.0) for a in arms],
                    xlabel="offered load", floor=0.0, ceiling=100.0, colours=colours)  # fmt: skip
        top.set_title(sc, fontsize=9)
        top.set_ylabel("SLO hit rate (%)")
        if top.axison:
            top.set_ylim(-2, 102)
            top.grid(True, alpha=0.3)
        if bottom is None:
            continue
        paired = [r for r in tables["paired"] if r["scenario"] == sc]
        plot_series(bottom, [_series(paired, a, "gain_pts", 1.0) for a in factors],
                    xlabel="offered load", marker="s", connect=False, colours=colours)  # fmt: skip
        if bottom.axison:
            bottom.axhline(0.0, color="0.5", lw=0.8)
            bottom.set_ylabel("ESG - arm, hit rate (points)")
            bottom.grid(True, alpha=0.3)
    for ax in (axes_top[0], *axes_bottom[:1]):
        if ax.axison and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)


def _series(rows: Sequence[dict[str, Any]], arm: str, key: str, scale: float) -> Series:
    """One arm's `key` (with `key`_lo, `key`_hi) against load, times `scale`."""
    rs = [r for r in rows if r["arm"] == arm]
    return Series(arm, [r["load"] for r in rs], [scale * r[key] for r in rs],
                  [scale * r[f"{key}_lo"] for r in rs],
                  [scale * r[f"{key}_hi"] for r in rs])  # fmt: skip


def has_factor_rows(study: Study, tables: dict[str, Any], factor_arms: Sequence[str]) -> bool:
    """Whether any paired comparison of a factor arm with ESG was run (else no bottom row)."""
    return any(r["arm"] in factor_arms for r in tables["paired"])


def figure(
    study: Study, tables: dict[str, Any], stem: Path, caption: str, factor_arms: Sequence[str]
) -> list[Path]:
    """The study's figure alone (STEM.png, STEM.pdf); no factor-arm row when none was run."""
    n = len(study.scenarios)
    rows = 2 if has_factor_rows(study, tables, factor_arms) else 1
    fig, axes = new_figure(rows, n, figsize=(3.6 * n + 0.6, 3.4 * rows + 0.6), squeeze=False)
    plot_study(study, tables, list(axes[0]), list(axes[1]) if rows == 2 else [], factor_arms)
    return save_figure(fig, stem, caption)


def caption_of(
    study: Study, size: str, seed: int, tables: dict[str, Any] | None = None, diffs: bool = True
) -> str:
    """The caption line: workload, size, seed, how many seeds each cell's intervals rest on
    (from the cells when given, else the study's start and cap) and which intervals are drawn
    (`diffs`: the paired differences' too)."""
    first = next(iter(study.scenarios.values()))
    return (f"{study.name}, size={size}, seed={seed}: {', '.join(study.scenarios)} "
            f"({first['arrivals']}, {first['grid']}, {first['invokers']} invokers); "
            f"{study.requests} requests/run ({100 * study.warmup_frac:.0f} % warm-up); "
            f"{_seeds_text(study, tables)}; 95 % intervals over seeds: bootstrap (hit rates)"
            + (", paired t (differences)" if diffs else ""))  # fmt: skip


def _seeds_text(study: Study, tables: dict[str, Any] | None) -> str:
    """ "3 seeds per cell" / "3-8 seeds per cell (start 3, cap 20)"."""
    ns = sorted({int(r["seeds"]) for r in (tables or {}).get("cells", [])})
    cap = f"start {study.seeds0}, cap {study.seed_cap}"
    if not ns:
        return f"seeds per cell: {cap}"
    count = f"{ns[0]}" if ns[0] == ns[-1] else f"{ns[0]}-{ns[-1]}"
    none = ", no interval from 1 seed" if ns[0] < 2 else ""
    return f"{count} seed{'s' if ns[-1] > 1 else ''} per cell ({cap}{none})"
