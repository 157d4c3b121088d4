"""Figure `sojourn-online`: mean successful sojourn vs load per online policy, plus a Philly table.

Synthetic part: Poisson arrivals at each load on a few servers, random checkpoint
distributions, every policy on the same jobs and outcomes per replication (common random
numbers), 95% Student-t bands over replications. Philly part: replay of the trace (the shipped
2,000-job subsample at size small; the full trace at size full, from $SCHEDLAB_PHILLY_TRACE or
../shared/data/philly/philly_jobs.csv) with inter-arrival times scaled to each load, under
the outcome model of `schedlab.experiments.sojourn.workload_philly`. Rows are journaled
(RowStore), so an interrupted run resumes.
"""

from __future__ import annotations

import functools
import json
import math
import os
import textwrap
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from matplotlib.ticker import ScalarFormatter

from schedlab.experiments.plotting import plt, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.sojourn.metrics import mean_ci
from schedlab.experiments.sojourn.policies import get_policy, policy_names
from schedlab.experiments.sojourn.runner import evaluate_policy
from schedlab.experiments.sojourn.workload_philly import OUTCOME_MODEL
from schedlab.experiments.sojourn.workloads import philly_source, synthetic_source
from schedlab.experiments.store import RowStore, results_dir, write_csv, write_json
from schedlab.solvers.errors import InvalidInput

NAME = "sojourn-online"
ROOT = Path(__file__).resolve().parents[2]
SHARED_TRACE = ROOT.parent / "shared" / "data" / "philly" / "philly_jobs.csv"
STYLE = {
    "fcfs": ("0.5", ":"),
    "sept": ("tab:brown", "--"),
    "smith": ("tab:blue", "--"),
    "gamma": ("tab:red", "-"),
    "gittins": ("tab:green", "-"),
    "serpt": ("tab:purple", "-."),
    "oracle": ("black", (0, (1, 1))),
}


@dataclass(frozen=True)
class Config:
    """Sizes of both parts; `philly_trace` None means the shipped subsample."""

    servers: int
    loads: tuple[float, ...]
    jobs: int
    replications: int
    philly_trace: str | None
    philly_servers: int
    philly_loads: tuple[float, ...]
    philly_replications: int
    max_checkpoints: int = 3


def full_trace_path() -> str:
    env = os.environ.get("SCHEDLAB_PHILLY_TRACE")
    if env:
        return env
    if SHARED_TRACE.exists():
        return str(SHARED_TRACE)
    raise InvalidInput(
        "figure sojourn-online --size full needs the full Philly trace: set "
        "SCHEDLAB_PHILLY_TRACE=/path/to/philly_jobs.csv"
    )


def config_for(size: str) -> Config:
    if size == "small":
        return Config(4, (0.5, 0.6, 0.7, 0.8, 0.9), 3000, 8, None, 64, (0.7, 0.9), 5)
    return Config(
        4,
        (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95),
        20_000,
        20,
        full_trace_path(),
        256,
        (0.7, 0.8, 0.9),
        5,
    )


ROW_FIELDS = [
    "part",
    "policy",
    "load",
    "servers",
    "jobs",
    "excluded_jobs",
    "replications",
    "offered_load",
    "mean_sojourn_successful",
    "ci95_successful_low",
    "ci95_successful_high",
    "mean_sojourn_all",
    "ci95_all_low",
    "ci95_all_high",
    "p50_successful",
    "p90_successful",
    "p99_successful",
    "utilization",
    "preemptions",
    "runtime_s",
]


def _flat(res: dict[str, Any]) -> dict[str, Any]:
    cs, ca = res["ci95_successful"] or [None, None], res["ci95_all"] or [None, None]
    ps = res["percentiles_successful"]
    return {
        "servers": res["servers"],
        "jobs": res["jobs"],
        "excluded_jobs": res["excluded_jobs"],
        "replications": res["replications"],
        "offered_load": res["offered_load"],
        "mean_sojourn_successful": res["mean_sojourn_successful"],
        "ci95_successful_low": cs[0],
        "ci95_successful_high": cs[1],
        "mean_sojourn_all": res["mean_sojourn_all"],
        "ci95_all_low": ca[0],
        "ci95_all_high": ca[1],
        "p50_successful": ps["p50"],
        "p90_successful": ps["p90"],
        "p99_successful": ps["p99"],
        "utilization": res["utilization"],
        "preemptions": res["preemptions"],
        "runtime_s": res["runtime_s"],
        "rep_means_successful": res["replication_means_successful"],
    }


def compute(cfg: Config, seed: int, outdir: Path, size: str) -> list[dict[str, Any]]:
    """Every (part, policy, load) row, resuming from the journal."""
    d = results_dir(outdir, "sojourn")
    store = RowStore(
        d / f"{NAME}.jsonl",
        ["part", "policy", "load"],
        config=json.loads(json.dumps({**asdict(cfg), "seed": seed, "row_format": 2})),
    )
    keys = [
        {"part": "synthetic", "policy": p, "load": ld} for ld in cfg.loads for p in policy_names()
    ]
    keys += [
        {"part": "philly", "policy": p, "load": ld}
        for ld in cfg.philly_loads
        for p in policy_names()
    ]
    return store.run(keys, partial(cell_row, cfg=cfg, seed=seed), desc=f"{NAME} ({size})")


@functools.lru_cache(maxsize=8)
def _philly(trace: str | None, servers: int, load: float) -> Any:
    """The Philly source at `load` (built once per process and load)."""
    return philly_source(Path(trace) if trace else None, servers, load=load)


def cell_row(key: dict[str, Any], *, cfg: Config, seed: int) -> dict[str, Any]:
    """One (part, policy, load) cell (module-level, so a sweep can send it to workers)."""
    pol = get_policy(key["policy"])
    if key["part"] == "synthetic":
        src = synthetic_source(
            cfg.jobs, key["load"], cfg.servers, max_checkpoints=cfg.max_checkpoints
        )
        res = evaluate_policy(src, pol, cfg.servers, seed=seed, replications=cfg.replications)
    else:
        res = evaluate_policy(
            _philly(cfg.philly_trace, cfg.philly_servers, key["load"]),
            pol,
            cfg.philly_servers,
            seed=seed,
            replications=cfg.philly_replications,
        )
    return _flat(res)


PAIRED_FIELDS = [
    "part",
    "load",
    "policy",
    "replications",
    "gamma_reduction",
    "ci95_low",
    "ci95_high",
]


def paired(rows: list[dict[str, Any]], ref: str = "gamma") -> list[dict[str, Any]]:
    """Per (part, load, policy): 1 - mean_ref / mean_policy of successful sojourn, paired by
    replication (same jobs and outcomes), with a Student-t 95% interval."""
    by = {(r["part"], r["load"], r["policy"]): r for r in rows}
    out = []
    for (part, load, pol), r in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        base = by.get((part, load, ref))
        if pol == ref or base is None:
            continue
        red = [
            1.0 - b / x
            for b, x in zip(base["rep_means_successful"], r["rep_means_successful"], strict=True)
            if math.isfinite(b) and math.isfinite(x) and x > 0
        ]
        m, ci = mean_ci(red)
        out.append(
            {
                "part": part,
                "load": load,
                "policy": pol,
                "replications": len(red),
                "gamma_reduction": m,
                "ci95_low": ci[0] if ci else None,
                "ci95_high": ci[1] if ci else None,
            }
        )
    return out


def _philly_table(ax: Any, rows: list[dict[str, Any]], caption: str) -> None:
    """Render the Philly replay rows as a table under the plots, titled by its caption."""
    ax.axis("off")
    phil = [r for r in rows if r["part"] == "philly"]
    if not phil:
        return
    order = {p: i for i, p in enumerate(policy_names())}
    phil.sort(key=lambda r: (r["load"], order[r["policy"]]))

    def ci(lo: Any, hi: Any) -> str:
        return "n/a" if lo is None else f"[{lo:,.0f}, {hi:,.0f}]"

    cells = [
        [
            f"{r['load']:g}",
            r["policy"] + (" (ref.)" if r["policy"] == "oracle" else ""),
            f"{r['mean_sojourn_successful']:,.0f}",
            ci(r["ci95_successful_low"], r["ci95_successful_high"]),
            f"{r['mean_sojourn_all']:,.0f}",
            f"{r['p90_successful']:,.0f}",
            f"{r['utilization']:.3f}",
            f"{r['preemptions']:,.0f}",
        ]
        for r in phil
    ]
    header = [
        "load",
        "policy",
        "mean succ. sojourn (s)",
        "95% CI (s)",
        "mean all (s)",
        "p90 succ. (s)",
        "utilization",
        "preemptions",
    ]
    table = ax.table(cellText=cells, colLabels=header, loc="upper center", cellLoc="right")
    table.auto_set_font_size(False)
    table.set_fontsize(7)
    table.scale(1, 1.05)
    ax.set_title("\n".join(textwrap.wrap(caption, 150)), fontsize=8, loc="left")


def plot(rows: list[dict[str, Any]], cfg: Config, seed: int, size: str, stem: Path) -> list[Path]:
    n_phil = sum(1 for r in rows if r["part"] == "philly")
    fig = plt.figure(figsize=(12, 5.2 + 0.17 * (n_phil + 4)))
    gs = fig.add_gridspec(2, 2, height_ratios=[4.4, 0.17 * (n_phil + 4)])
    axes = [fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1])]
    for ax, what, title in (
        (axes[0], "successful", "successful jobs"),
        (axes[1], "all", "all jobs"),
    ):
        for p in policy_names():
            pts = sorted(
                (r for r in rows if r["part"] == "synthetic" and r["policy"] == p),
                key=lambda r: r["load"],
            )
            if not pts:
                continue
            x = [r["load"] for r in pts]
            y = [r[f"mean_sojourn_{what}"] for r in pts]
            lo = [r[f"ci95_{what}_low"] for r in pts]
            hi = [r[f"ci95_{what}_high"] for r in pts]
            color, ls = STYLE[p]
            label = p + (" (reference, not a bound)" if p == "oracle" else "")
            ax.plot(x, y, color=color, linestyle=ls, marker="o", ms=3, label=label)
            if all(v is not None for v in lo + hi):
                ax.fill_between(x, lo, hi, color=color, alpha=0.15, linewidth=0)
        ax.set_xlabel("offered load ρ = λ·E[X]·E[g] / m")
        ax.set_ylabel("mean sojourn time (s), log scale")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(ScalarFormatter())
        ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.set_title(f"Synthetic: mean sojourn of {title}, {cfg.servers} servers", fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8, ncol=2)
    _philly_table(fig.add_subplot(gs[1, :]), rows, philly_caption(cfg, seed))
    caption = (
        f"sojourn-online, size {size}, seed {seed}. Synthetic: {cfg.jobs} jobs x "
        f"{cfg.replications} replications per point, Poisson arrivals, {cfg.servers} servers, "
        f"checkpoint law of `sojourn generate` (C={cfg.max_checkpoints}, success size 1-100 s);"
        "\nbands: 95% Student-t intervals over replications; every policy sees the same jobs "
        "and outcomes per replication; oracle = reference, not a lower bound."
    )
    return save_figure(fig, stem, caption)


def philly_caption(cfg: Config, seed: int) -> str:
    src = cfg.philly_trace or "shipped 2,000-job sample (experiments/traces/data)"
    return (
        f"Philly replay: {src}; {cfg.philly_servers} GPUs (greedy backfilling); inter-arrival "
        f"times scaled to each load; {cfg.philly_replications} outcome draws, seed {seed}. "
        f"{OUTCOME_MODEL}. With one success probability for every job, Smith's rule orders "
        "jobs like SEPT here."
    )


@register_figure(NAME, summary="online policies: successful-job sojourn vs load; Philly table")
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    return build(config_for(size), seed, outdir, size)


def build(cfg: Config, seed: int, outdir: Path, size: str = "custom") -> list[Path]:
    rows = compute(cfg, seed, outdir, size)
    d = results_dir(outdir, "sojourn")
    syn = [r for r in rows if r["part"] == "synthetic"]
    phil = [r for r in rows if r["part"] == "philly"]
    out = [
        write_csv(d / f"{NAME}.csv", syn, ROW_FIELDS),
        write_csv(d / f"{NAME}-philly.csv", phil, ROW_FIELDS),
    ]
    pair = paired(rows)
    out.append(write_csv(d / f"{NAME}-paired.csv", pair, PAIRED_FIELDS))
    out += plot(rows, cfg, seed, size, d / NAME)
    meta = {
        "figure": NAME,
        "size": size,
        "seed": seed,
        "config": asdict(cfg),
        "philly_caption": philly_caption(cfg, seed),
        "paired_caption": (
            "gamma_reduction = 1 - (gamma's mean successful sojourn) / (policy's), paired by "
            "replication (same jobs and outcomes); > 0 means gamma is lower"
        ),
        "paired": pair,
        "rows": rows,
    }
    out.append(write_json(d / f"{NAME}.json", meta))
    return out
