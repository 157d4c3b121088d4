"""Study `synergy-seeds`: JCT vs load over many seeds, with 95% intervals and window sensitivity.

The Synergy simulator's default workload (Philly-derived, single-GPU, 20/70/10) under FIFO,
SRTF and LAS with GPU-proportional, GREEDY, TUNE and OPT, one simulation per (policy,
allocator, load, seed). Each simulation measures jobs 3000-5999 and reports three windows of
1,000 jobs (3000-3999, 4000-4999 = the paper's window, 5000-5999; a simulation is causal, so
each window's numbers are those of a run that measures that window alone). Per point: the mean
over seeds of mean, p99 JCT, makespan of the window's jobs and CPU/memory utilization, each with
a 95% t-interval over seeds, and the ratio proportional / X of the window means per seed (mean
and 95% interval over seeds), which is what "up to 3.4x" becomes: a statement per load.

Sizes: "full" is the issue's grid (16 servers, loads 0.5-9 jobs/h, 10 seeds, 3 policies x 4
allocators = 1,200 simulations; tens of CPU-minutes, OPT the most: outside `make reproduce`;
`compute(..., only=...)` runs a subset into the same journal, which a later full run resumes);
"small" 4 servers with loads scaled by 4/16, 3 seeds, jobs 150-299 (for tests). Writes
results/synergy/synergy-seeds.csv (per point), synergy-seeds_windows.csv (per point and window)
and synergy-seeds.{png,pdf}.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.ladder import pick
from schedlab.experiments.plotting import colours_for, new_figure, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.experiments.synergy.cells import config_of, workload_of
from schedlab.experiments.synergy.simulator import simulate

NAME = "synergy-seeds"
ALLOCS = ("proportional", "greedy", "tune", "opt")
LOADS16 = (0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {
        "servers": 2,
        "loads16": (2.0, 9.0),
        "seeds": 2,
        "windows": ((20, 40), (40, 60)),
        "policies": ("fifo",),
        "allocs": ("proportional", "tune"),
    },
    "small": {
        "servers": 4,
        "loads16": (3.0, 9.0),
        "seeds": 3,
        "windows": ((100, 150), (150, 300), (300, 350)),
        "policies": ("fifo", "srtf", "las"),
        "allocs": ("proportional", "tune"),
    },
    "full": {
        "servers": 16,
        "loads16": LOADS16,
        "seeds": 10,
        "windows": ((3000, 4000), (4000, 5000), (5000, 6000)),
        "policies": ("fifo", "srtf", "las"),
        "allocs": ALLOCS,
    },
}
MAIN = 1  # the window the paper measures (4000-4999 at full size)


def seeds_cell(key: dict[str, Any]) -> dict[str, Any]:
    """One simulation measured over the union of the windows; statistics per window."""
    wins = [tuple(w) for w in key["windows"]]
    cell = {k: v for k, v in key.items() if k != "windows"}
    cell.update(window=[wins[0][0], wins[-1][1]], jcts=False)
    res = simulate(workload_of(cell), config_of(cell))
    d = res.to_dict()
    jct_h = res.jct_s / 3600.0
    out: dict[str, Any] = {k: d[k] for k in ("gpu_util", "cpu_util", "mem_util", "runtime_s")}
    out["sim_time_h"] = d["sim_time_h"]
    for w, (a, b) in enumerate(wins):
        sel = (res.job_id >= a) & (res.job_id < b) & np.isfinite(res.completion_s)
        x = jct_h[sel]
        out[f"w{w}_jobs"] = int(x.size)
        out[f"w{w}_mean_jct_h"] = float(x.mean()) if x.size else math.nan
        out[f"w{w}_p99_jct_h"] = float(np.percentile(x, 99)) if x.size else math.nan
        span = res.completion_s[sel].max() - res.arrival_s[sel].min() if x.size else math.nan
        out[f"w{w}_makespan_h"] = float(span) / 3600.0
    return out


def compute(
    size: str, seed: int, outdir: Path, only: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every cell of the size (or those matching `only`, e.g. {"policy": "fifo"})."""
    cfg = pick(size, CONFIGS)
    keys = [
        {
            "policy": p,
            "alloc": a,
            "load16": L,
            "load": L * cfg["servers"] / 16.0,
            "servers": cfg["servers"],
            "seed": seed + s,
            "windows": [list(w) for w in cfg["windows"]],
        }
        for L in cfg["loads16"]
        for p in cfg["policies"]
        for a in cfg["allocs"]
        for s in range(cfg["seeds"])
    ]
    if only:
        keys = [k for k in keys if all(k[f] in v for f, v in only.items())]
    store = RowStore(
        results_dir(outdir, "synergy") / f"{NAME}-{size}.jsonl",
        ["policy", "alloc", "load16", "seed"],
        config={"size": size, "seed": seed, "row_format": 1},
    )
    return store.run(keys, seeds_cell, desc=NAME)


def ci95(x: list[float]) -> tuple[float, float, float]:
    """Mean and 95% t-interval over replications (NaN half-width for fewer than two)."""
    from scipy import stats

    a = np.asarray([v for v in x if math.isfinite(v)], dtype=float)
    if a.size == 0:
        return math.nan, math.nan, math.nan
    m = float(a.mean())
    if a.size < 2:
        return m, math.nan, math.nan
    h = float(stats.t.ppf(0.975, a.size - 1) * a.std(ddof=1) / math.sqrt(a.size))
    return m, m - h, m + h


def _group(rows: list[dict[str, Any]]) -> dict[tuple[str, float], dict[str, list]]:
    g: dict[tuple[str, float], dict[str, list]] = {}
    for r in rows:
        g.setdefault((r["policy"], r["load16"]), {}).setdefault(r["alloc"], []).append(r)
    for d in g.values():
        for lst in d.values():
            lst.sort(key=lambda r: r["seed"])
    return g


def summary(rows: list[dict[str, Any]], w: int = MAIN) -> list[dict[str, Any]]:
    """Per (policy, load, allocator): means with 95% intervals, and ratios vs proportional."""
    out = []
    for (p, L), by in sorted(_group(rows).items()):
        prop = {r["seed"]: r[f"w{w}_mean_jct_h"] for r in by.get("proportional", [])}
        for a, lst in by.items():
            row: dict[str, Any] = {"policy": p, "load_jobs_per_h_16_servers": L, "alloc": a}
            row["load_jobs_per_h"] = lst[0]["load"]
            row["seeds"] = len(lst)
            for col, name in (
                (f"w{w}_mean_jct_h", "mean_jct_h"),
                (f"w{w}_p99_jct_h", "p99_jct_h"),
                (f"w{w}_makespan_h", "makespan_h"),
                ("cpu_util", "cpu_util"),
                ("mem_util", "mem_util"),
                ("gpu_util", "gpu_util"),
            ):
                m, lo, hi = ci95([r[col] for r in lst])
                row[name], row[f"{name}_ci_low"], row[f"{name}_ci_high"] = m, lo, hi
            ratio = [prop[r["seed"]] / r[f"w{w}_mean_jct_h"] for r in lst if r["seed"] in prop]
            m, lo, hi = ci95(ratio)
            row["ratio_prop_over"], row["ratio_ci_low"], row["ratio_ci_high"] = m, lo, hi
            pcpu = {r["seed"]: r["cpu_util"] for r in by.get("proportional", [])}
            cpu = [r["cpu_util"] / pcpu[r["seed"]] for r in lst if pcpu.get(r["seed"])]
            m, lo, hi = ci95(cpu)
            row["cpu_util_over_prop"], row["cpu_ratio_ci_low"], row["cpu_ratio_ci_high"] = m, lo, hi
            out.append(row)
    return out


def windows_table(rows: list[dict[str, Any]], n_windows: int) -> list[dict[str, Any]]:
    """Per (policy, load, allocator, window): mean JCT and the ratio vs proportional."""
    out = []
    for w in range(n_windows):
        for r in summary(rows, w):
            out.append({"window_index": w, **r})
    return out


def plot(table: list[dict[str, Any]], cfg: dict[str, Any], size: str, seed: int, stem: Path):
    pols = list(cfg["policies"])
    colour = colours_for(list(cfg["allocs"]))  # one per allocator, both rows
    fig, axes = new_figure(2, len(pols), figsize=(4.6 * len(pols), 7.6), squeeze=False)
    for col, p in enumerate(pols):
        ax = axes[0][col]
        for a in cfg["allocs"]:
            pts = sorted(
                (r["load_jobs_per_h"], r["mean_jct_h"], r["mean_jct_h_ci_low"],
                 r["mean_jct_h_ci_high"]) for r in table if r["policy"] == p and r["alloc"] == a
            )  # fmt: skip
            if not pts:
                continue
            x, y, lo, hi = (np.asarray(v) for v in zip(*pts, strict=True))
            ax.errorbar(
                x, y, yerr=[y - lo, hi - y], marker="o", ms=3, capsize=2, label=a, color=colour[a]
            )
        ax.set_yscale("log")
        ax.set_title(f"{p.upper()}: mean JCT, 95% interval over seeds")
        ax.set_xlabel(f"arrival rate (jobs/hour, {cfg['servers']} servers)")
        ax.set_ylabel("average JCT (hours, log scale)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax = axes[1][col]
        for a in cfg["allocs"]:
            if a == "proportional":
                continue
            pts = sorted(
                (r["load_jobs_per_h"], r["ratio_prop_over"], r["ratio_ci_low"],
                 r["ratio_ci_high"]) for r in table if r["policy"] == p and r["alloc"] == a
            )  # fmt: skip
            if not pts:
                continue
            x, y, lo, hi = (np.asarray(v) for v in zip(*pts, strict=True))
            ax.errorbar(
                x, y, yerr=[y - lo, hi - y], marker="s", ms=3, capsize=2, label=a, color=colour[a]
            )
        ax.axhline(3.4, color="k", ls=":", lw=1, label="3.4x (abstract)")
        ax.set_title(f"{p.upper()}: proportional / allocator, mean JCT")
        ax.set_xlabel(f"arrival rate (jobs/hour, {cfg['servers']} servers)")
        ax.set_ylabel("ratio of mean JCT (x)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    a, b = cfg["windows"][MAIN]
    caption = (
        f"synergy-seeds: Philly-derived single-GPU workload (20/70/10), {cfg['servers']} servers "
        f"x (8 GPUs, 24 CPUs, 500 GB), jobs {a}-{b - 1}, {cfg['seeds']} seeds from {seed}, "
        f"95% t-intervals over seeds; size={size}"
    )
    return save_figure(fig, stem, caption)


def make(size: str, seed: int, outdir: Path, only: dict[str, Any] | None = None) -> list[Path]:
    cfg = pick(size, CONFIGS)
    if only:
        names = {"policy": "policies", "alloc": "allocs"}
        cfg = {**cfg, **{names[k]: tuple(v) for k, v in only.items() if k in names}}
    rows = compute(size, seed, outdir, only)
    d = results_dir(outdir, "synergy")
    table = summary(rows)
    paths = [
        write_csv(d / f"{NAME}.csv", table),
        write_csv(d / f"{NAME}_windows.csv", windows_table(rows, len(cfg["windows"]))),
    ]
    return paths + plot(table, cfg, size, seed, d / NAME)


@register_figure(
    NAME,
    summary="JCT vs load over seeds with 95% intervals, window sensitivity (FIFO/SRTF/LAS)",
    in_reproduce=False,
)
def figure(size: str, seed: int, outdir: Path) -> list[Path]:
    return make(size, seed, outdir)
