"""Figures of the online study: load curves (mean and p99), paired heatmaps, sensitivity to h."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.plotting import PALETTE, new_figure, plain_log_ticks, save_figure
from schedlab.experiments.sojourn.online_study import APPROACHES, BASELINES, POLICIES

STYLE = {  # colours of the package's palette (`plotting.PALETTE`), one per policy
    "fcfs": (PALETTE[9], ":"),
    "sept": (PALETTE[1], "--"),
    "smith": (PALETTE[0], "--"),
    "gamma": (PALETTE[3], "-"),
    "gittins": (PALETTE[2], "-"),
    "sevcik": (PALETTE[8], (0, (5, 3))),
    "serpt": (PALETTE[10], "-."),
}
HEAT_METRICS = {"": "mean, successful", "_p99": "p99, successful", "_all": "mean, all jobs"}
VERDICT_MARK = {"better": "▼", "worse": "▲", "no difference": "·"}


def load_curves(rows: list[dict[str, Any]], stem: Path, caption: str) -> list[Path]:
    """Synthetic part: mean and p99 sojourn of successful jobs vs load, one column per m."""
    syn = [r for r in rows if r["workload"] == "synthetic"]
    servers = sorted({r["servers"] for r in syn})
    fig, axes = new_figure(2, max(1, len(servers)), figsize=(5.2 * max(1, len(servers)), 7.4),
                           squeeze=False)  # fmt: skip
    for col, m in enumerate(servers):
        for row, (field, what) in enumerate(
            (("mean_sojourn_successful", "mean"), ("p99_successful", "p99"))
        ):
            ax = axes[row][col]
            for p in POLICIES:
                pts = sorted((r for r in syn if r["servers"] == m and r["policy"] == p),
                             key=lambda r: r["load"])  # fmt: skip
                if pts:
                    color, ls = STYLE.get(p, ("k", "-"))
                    ax.plot([r["load"] for r in pts], [r[field] for r in pts], color=color,
                            linestyle=ls, marker="o", ms=3, label=p)  # fmt: skip
            ax.set_yscale("log")
            plain_log_ticks(ax, "y")
            ax.set_xlabel("offered load ρ = λ·E[X]·E[g] / m")
            ax.set_ylabel(f"{what} sojourn of successful jobs (s), log scale")
            ax.set_title(f"Synthetic, {m} servers: {what}", fontsize=10)
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8, ncol=2)
    return save_figure(fig, stem, caption)


def _label(r: dict[str, Any]) -> str:
    h = r["heterogeneity"]
    om = r["outcome_model"] if h is None or r["outcome_model"] == "uniform" else (
        f"{r['outcome_model']} h={h:g}")  # fmt: skip
    return f"{r['workload']} · {om} · m={r['servers']} · ρ={r['load']:g}"


def paired_heatmaps(pair: list[dict[str, Any]], stem: Path, caption: str) -> list[Path]:
    """approach / baseline - 1 per setting (rows) and baseline (columns), per metric."""
    labels = list(dict.fromkeys(_label(r) for r in pair))
    n = max(1, len(labels))
    size = (5.0 * len(HEAT_METRICS), 1.2 + 0.24 * n * len(APPROACHES))
    fig, axes = new_figure(len(APPROACHES), len(HEAT_METRICS), squeeze=False, figsize=size)
    for i, ap in enumerate(APPROACHES):
        for j, (suffix, what) in enumerate(HEAT_METRICS.items()):
            ax = axes[i][j]
            grid = np.full((n, len(BASELINES)), np.nan)
            for r in pair:
                if r["approach"] == ap and r[f"diff{suffix}"] is not None:
                    a, b = labels.index(_label(r)), BASELINES.index(r["baseline"])
                    grid[a, b] = 100 * r[f"diff{suffix}"]
                    mark = VERDICT_MARK.get(r[f"verdict{suffix}"], "")
                    ax.text(b, a, f"{grid[a, b]:+.0f}{mark}", ha="center", va="center", fontsize=6)
            ax.imshow(np.clip(grid, -50, 50), cmap="RdBu_r", vmin=-50, vmax=50,
                              aspect="auto")  # fmt: skip
            ax.set_xticks(range(len(BASELINES)), [f"vs {b}" for b in BASELINES], fontsize=7)
            ax.set_yticks(range(n), labels if j == 0 else [""] * n, fontsize=6)
            ax.set_title(f"{ap}: {what}", fontsize=9)
    fig.suptitle(
        "approach / baseline − 1 (%), paired by replication; blue: approach lower, red: higher "
        "(colour clipped at ±50%); ▼ better, ▲ worse, · no difference (95% interval)",
        fontsize=9,
    )
    return save_figure(fig, stem, caption)


def sensitivity(rows: list[dict[str, Any]], stem: Path, caption: str) -> list[Path]:
    """Philly: mean successful sojourn relative to SEPT's vs the heterogeneity h, per model."""
    phil = [r for r in rows if r["workload"] == "philly"]
    models = sorted({r["outcome_model"] for r in phil} - {"uniform"})
    servers = min((r["servers"] for r in phil), default=0)
    loads = sorted({r["load"] for r in phil})
    load = max(loads) if loads else 0.0
    fig, axes = new_figure(1, max(1, len(models)), figsize=(4.6 * max(1, len(models)), 4.2),
                           squeeze=False)  # fmt: skip
    for ax, model in zip(axes[0], models, strict=False):
        pts = [r for r in phil if r["servers"] == servers and r["load"] == load
               and r["outcome_model"] in (model, "uniform")]  # fmt: skip
        sept = {
            r["heterogeneity"]: r["mean_sojourn_successful"] for r in pts if r["policy"] == "sept"
        }
        for p in POLICIES:
            xs = sorted(r["heterogeneity"] for r in pts if r["policy"] == p)
            ys = [next(r["mean_sojourn_successful"] for r in pts if r["policy"] == p
                       and r["heterogeneity"] == h) / sept[h] for h in xs]  # fmt: skip
            color, ls = STYLE.get(p, ("k", "-"))
            ax.plot(xs, ys, color=color, linestyle=ls, marker="o", ms=3, label=p)
        ax.set_xlabel("heterogeneity h of the success model (0 = uniform 0.624)")
        ax.set_ylabel("mean successful sojourn / SEPT's")
        ax.set_title(f"Philly, {model}, {servers} GPUs, ρ = {load:g}", fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=7, ncol=2)
    return save_figure(fig, stem, caption)
