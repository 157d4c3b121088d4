"""Figure `synergy-jct`: average JCT vs load for GPU-proportional, GREEDY, TUNE and OPT.

The Synergy simulator's default workload (Philly-derived, single-GPU, image/language/speech
20/70/10) under FIFO and SRTF, one simulation per (policy, allocator, load), JCT statistics over
the measurement window. Panels: mean JCT vs load per policy, and the JCT CDF at the highest
load. Table: per policy and load, mean JCT of every allocator and the proportional/TUNE ratio
(the paper's headline: up to 3.4x). Sizes: "full" is the paper's setting (16 servers, loads
0.5-9 jobs/h, jobs 4000-4999); "small" (for `make reproduce`) keeps the load per GPU but uses 4
servers (32 GPUs), the same loads scaled by 4/16, and window jobs 150-299; "tiny" is for tests
and the notebook. Rows are journaled under results/synergy/, so an interrupted run resumes.
Writes synergy-jct.csv (every point), synergy-jct_ratios.csv and synergy-jct.{png,pdf}.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.ladder import pick
from schedlab.experiments.plotting import colours_for, new_figure, save_figure
from schedlab.experiments.registry import POLICIES, register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.experiments.synergy.metrics import cdf
from schedlab.experiments.synergy.simulator import SimConfig, simulate
from schedlab.experiments.synergy.workloads import philly_derived
from schedlab.solvers.solve import METHODS

NAME = "synergy-jct"
STEM = "synergy-jct"
LABELS = {"proportional": "GPU-proportional", "greedy": "GREEDY", "tune": "TUNE", "opt": "OPT"}
STYLES = {"proportional": "o-", "greedy": "s--", "tune": "^-", "opt": "d:"}


def allocators() -> tuple[str, ...]:
    """The compared allocators: the Synergy methods tagged "paper" (registration order)."""
    return tuple(METHODS.names(scope="synergy", tag="paper"))


def policies() -> tuple[str, ...]:
    """The compared policies: the Synergy policies tagged "figure" (fifo, srtf)."""
    return tuple(POLICIES.names(scope="synergy", tag="figure"))


# Loads are given per 16 servers (the paper's cluster); a run uses load * servers / 16.
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {"servers": 2, "loads16": [2.0, 9.0], "window": [30, 60]},
    # small leaves OPT out (its per-round MILPs were over half the small run's CPU): the quick
    # reproduction's Synergy budget is 20 CPU-s
    "small": {
        "servers": 4,
        "loads16": [0.5, 3.0, 6.0, 8.0, 9.0],
        "window": [150, 300],
        "allocs": ["proportional", "greedy", "tune"],
    },
    "full": {
        "servers": 16,
        "loads16": [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        "window": [4000, 5000],
    },
}


def compute_row(key: dict[str, Any], config: dict[str, Any], seed: int) -> dict[str, Any]:
    """One simulation: summary numbers plus the window's JCTs (hours) for the CDF."""
    load = key["load16"] * config["servers"] / 16.0
    res = simulate(
        philly_derived(load, seed),
        SimConfig(
            policy=key["policy"],
            alloc=key["alloc"],
            servers=config["servers"],
            window=tuple(config["window"]),
        ),
    )
    d = res.to_dict()
    jct_h = np.sort(res.window_jct_s() / 3600.0)
    return {
        "load_jobs_per_h": load,
        "mean_jct_h": d["mean_jct_h"],
        "median_jct_h": d["median_jct_h"],
        "p99_jct_h": d["p99_jct_h"],
        "jobs_measured": d["jobs_measured"],
        "jobs_arrived": d["jobs_arrived"],
        "sim_time_h": d["sim_time_h"],
        "gpu_util": d["gpu_util"],
        "cpu_util": d["cpu_util"],
        "mem_util": d["mem_util"],
        "cpu_used": d["cpu_used"],
        "mem_used": d["mem_used"],
        "runtime_s": d["runtime_s"],
        "jct_h": [round(float(x), 6) for x in jct_h],
    }


def compute(config: dict[str, Any], seed: int, outdir: Path, size: str) -> list[dict[str, Any]]:
    """Every (policy, alloc, load) row, resuming from results/synergy/<stem>-<size>.jsonl."""
    allocs = config.get("allocs") or allocators()
    store = RowStore(
        results_dir(outdir, "synergy") / f"{STEM}-{size}.jsonl",
        ["policy", "alloc", "load16"],
        config=json.loads(json.dumps({**config, "seed": seed, "allocs": allocs, "row_format": 2})),
    )
    keys = [
        {"policy": p, "alloc": a, "load16": L}
        for L in config["loads16"]
        for p in policies()
        for a in allocs
    ]
    return store.run(keys, partial(compute_row, config=config, seed=seed), desc=NAME)


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per policy and load: every allocator's mean JCT and proportional / X ratios."""
    out = []
    for p in policies():
        for L in sorted({r["load16"] for r in rows}):
            sel = {r["alloc"]: r for r in rows if r["policy"] == p and r["load16"] == L}
            prop = sel["proportional"]["mean_jct_h"]
            row: dict[str, Any] = {
                "policy": p,
                "load_jobs_per_h_16_servers": L,
                "load_jobs_per_h": sel["proportional"]["load_jobs_per_h"],
            }
            for a in allocators():
                if a in sel:
                    row[f"{a}_mean_jct_h"] = sel[a]["mean_jct_h"]
            for a in allocators():
                if a != "proportional" and a in sel:
                    row[f"proportional_over_{a}"] = prop / sel[a]["mean_jct_h"]
            pu = sel["proportional"].get("cpu_used")
            for a in allocators():
                if a != "proportional" and a in sel and pu and sel[a].get("cpu_used"):
                    row[f"cpu_used_{a}_over_proportional"] = sel[a]["cpu_used"] / pu
            out.append(row)
    return out


def plot(rows: list[dict[str, Any]], config: dict[str, Any], size: str, seed: int, stem: Path):
    allocs = [a for a in allocators() if any(r["alloc"] == a for r in rows)]
    fig, axes = new_figure(1, 3, figsize=(13.5, 4.2))
    colours = colours_for(allocs)
    for ax, p in zip(axes[:2], policies(), strict=True):
        for a in allocs:
            pts = sorted(
                (r["load_jobs_per_h"], r["mean_jct_h"])
                for r in rows
                if r["policy"] == p and r["alloc"] == a
            )
            ax.plot(*zip(*pts, strict=True), STYLES.get(a, "x-"), label=LABELS.get(a, a), ms=4,
                    color=colours[a])  # fmt: skip
        ax.set_title(f"{p.upper()}: average JCT vs load")
        ax.set_xlabel(f"arrival rate (jobs/hour, {config['servers']} servers)")
        ax.set_ylabel("average JCT (hours)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    top = max(r["load16"] for r in rows)
    ax = axes[2]
    for p, ls in zip(policies(), ("-", "--"), strict=True):
        for a in allocs:
            (r,) = [x for x in rows if x["policy"] == p and x["alloc"] == a and x["load16"] == top]
            xs, ys = cdf(np.asarray(r["jct_h"]))
            ax.step(
                xs,
                ys,
                where="post",
                ls=ls,
                color=colours[a],
                label=f"{p.upper()} {LABELS.get(a, a)}",
            )
    load = top * config["servers"] / 16.0
    ax.set_xscale("log")
    ax.set_title(f"JCT CDF at {load:g} jobs/hour")
    ax.set_xlabel("job completion time (hours, log scale)")
    ax.set_ylabel("fraction of measured jobs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    a, b = config["window"]
    caption = (
        f"synergy-jct: Philly-derived single-GPU workload, {config['servers']} servers x "
        f"(8 GPUs, 24 CPUs, 500 GB), loads {', '.join(f'{x:g}' for x in config['loads16'])} "
        f"jobs/h per 16 servers, JCT over jobs {a}-{b - 1}, 300 s rounds; size={size}, "
        f"seed={seed}"
        + ("" if size == "full" else " (scaled down: fewer servers and jobs than the paper)")
    )
    return save_figure(fig, stem, caption)


def make(size: str, seed: int, outdir: Path) -> list[Path]:
    """Compute (resumable), then write the CSVs and the figure; returns the paths."""
    config = pick(size, CONFIGS)
    rows = compute(config, seed, outdir, size)
    d = results_dir(outdir, "synergy")
    fields = [k for k in rows[0] if k != "jct_h"]
    paths = [
        write_csv(d / f"{STEM}.csv", rows, fields),
        write_csv(d / f"{STEM}_ratios.csv", ratios(rows)),
    ]
    paths += plot(rows, config, size, seed, d / STEM)
    return paths


@register_figure(
    NAME,
    summary="average JCT vs load and JCT CDF: proportional, GREEDY, TUNE, OPT (FIFO, SRTF)",
    in_reproduce=True,
)
def figure(size: str, seed: int, outdir: Path) -> list[Path]:
    return make(size, seed, outdir)
