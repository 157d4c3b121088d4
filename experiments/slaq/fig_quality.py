"""Figure `slaq-quality`: SLAQ vs fair share (and max-min) in the epoch simulator.

Left: the average normalized loss of the running jobs over time; right: the CDF of each job's
time to reach 90% of its loss reduction. The table sets SLAQ's "quality improvement" and
"delay reduction" beside the paper's 73% / 44% (Zhang et al., SoCC 2017), as reconstructed
here: quality improvement = relative reduction of the average normalized loss of running
jobs against fair share, both time-averaged and at its largest over time ("up to"; epochs
where fair's average is below 0.02 are left out of the maximum, to avoid dividing by ~0);
delay reduction = 1 - mean time-to-90% (and 95%) of SLAQ / that of fair share.
One journaled row per (policy, seed): a rerun resumes. Writes results/slaq/slaq-quality.csv
(the table), slaq-quality-runs.csv (per run) and slaq-quality.{png,pdf}.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import POLICIES, register_figure
from schedlab.experiments.slaq.simulator import DEFAULT_WORKLOAD, SimConfig, simulate, summarize
from schedlab.experiments.store import RowStore, results_dir, write_csv

NAME = STEM = "slaq-quality"
PAPER = {"quality_improvement_pct": 73.0, "delay_reduction_pct": 44.0}
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {"jobs": 8, "cores": 24, "arrival_mean_s": 6.0, "seeds": 1},
    "small": {"jobs": 40, "cores": 64, "arrival_mean_s": 6.0, "seeds": 1},
    "full": {"jobs": 200, "cores": 128, "arrival_mean_s": 4.0, "seeds": 5},
}
MIN_FAIR_LOSS = 0.02


def policies() -> tuple[str, ...]:
    """The SLAQ policies this figure compares: those tagged "figure", in registration order."""
    return tuple(POLICIES.names(scope="slaq", tag="figure"))


def run_row(key: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    cfg = SimConfig(
        jobs=config["jobs"],
        cores=config["cores"],
        arrival_mean_s=config["arrival_mean_s"],
        seed=key["seed"],
    )
    run = simulate(cfg, key["policy"], config.get("workload", DEFAULT_WORKLOAD))
    s = summarize(run)
    s.pop("config")
    s.pop("policy")
    return {
        **s,
        "times_s": run["times_s"],
        "loss": run["mean_norm_loss"],
        "t90_s": [j.t90_s for j in run["jobs"]],
    }


def compute(config: dict[str, Any], seed: int, outdir: Path, size: str) -> list[dict[str, Any]]:
    store = RowStore(
        results_dir(outdir, "slaq") / f"{STEM}-{size}.jsonl",
        ["policy", "seed"],
        config=json.loads(
            json.dumps(
                {**config, "seed": seed, "row_format": 2, "sim": dataclasses.asdict(SimConfig())}
            )
        ),
    )
    keys = [{"policy": p, "seed": seed + i} for i in range(config["seeds"]) for p in policies()]
    store.run(keys, partial(run_row, config=config), desc=NAME)
    index = {store.key(r): r for r in store.rows}
    return [index[(k["policy"], k["seed"])] for k in keys]


def _pct(new: float | None, base: float | None) -> float | None:
    return None if new is None or not base else 100.0 * (1.0 - new / base)


def fallback_totals(rs: list[dict[str, Any]]) -> dict[str, Any]:
    """The predictor's refits and fallbacks summed over runs (`simulator.summarize`'s keys);
    `fallbacks_to` as "family=count" pairs."""
    to: dict[str, int] = {}
    for r in rs:
        for fam, n in r["fallbacks_to"].items():
            to[fam] = to.get(fam, 0) + n
    return {
        "fits": sum(r["fits"] for r in rs),
        "fallbacks_too_few_points": sum(r["fallbacks_too_few_points"] for r in rs),
        "fallbacks_failed_fit": sum(r["fallbacks_failed_fit"] for r in rs),
        "fallbacks_to": " ".join(f"{k}={v}" for k, v in sorted(to.items())),
    }


def table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per policy: means over seeds, and the improvements over fair share."""
    names = policies()
    by = {p: [r for r in rows if r["policy"] == p] for p in names}
    fair = {r["seed"]: r for r in by["fair"]}
    out = []
    for p in names:
        rs = by[p]
        up_to = []
        for r in rs:
            f = fair[r["seed"]]
            n = min(len(r["loss"]), len(f["loss"]))
            a, b = np.asarray(r["loss"][:n]), np.asarray(f["loss"][:n])
            mask = b >= MIN_FAIR_LOSS
            if mask.any():
                up_to.append(float(np.max(100 * (1 - a[mask] / b[mask]))))

        def mean(key: str, rs: list[dict[str, Any]] = rs) -> float:
            return float(np.mean([r[key] for r in rs]))

        row: dict[str, Any] = {
            "policy": p,
            "runs": len(rs),
            "mean_normalized_loss": mean("mean_normalized_loss"),
            "mean_time_to_90_s": mean("mean_time_to_90_s"),
            "mean_time_to_95_s": mean("mean_time_to_95_s"),
            "mean_completion_s": mean("mean_completion_s"),
            "scheduler_ms_per_epoch": mean("scheduler_ms_per_epoch"),
            **fallback_totals(rs),
        }
        fm = {k: float(np.mean([r[k] for r in by["fair"]])) for k in row if k.startswith("mean_")}
        row["quality_improvement_pct"] = _pct(
            row["mean_normalized_loss"], fm["mean_normalized_loss"]
        )
        row["quality_improvement_up_to_pct"] = float(np.mean(up_to)) if up_to else None
        row["delay_reduction_90_pct"] = _pct(row["mean_time_to_90_s"], fm["mean_time_to_90_s"])
        row["delay_reduction_95_pct"] = _pct(row["mean_time_to_95_s"], fm["mean_time_to_95_s"])
        row["paper_quality_improvement_pct"] = PAPER["quality_improvement_pct"]
        row["paper_delay_reduction_pct"] = PAPER["delay_reduction_pct"]
        out.append(row)
    return out


def plot(rows: list[dict[str, Any]], stem: Path, caption: str) -> list[Path]:
    fig, (ax1, ax2) = new_figure(1, 2, figsize=(11, 4.5))
    first = rows[0]["seed"]
    for i, p in enumerate(policies()):
        r = next(r for r in rows if r["policy"] == p and r["seed"] == first)
        ax1.plot(r["times_s"], r["loss"], color=f"C{i}", lw=1, label=p)
        t90 = np.sort([t for rr in rows if rr["policy"] == p for t in rr["t90_s"] if t is not None])
        ax2.step(
            t90, np.arange(1, len(t90) + 1) / max(len(t90), 1), where="post", color=f"C{i}", label=p
        )
    ax1.set_xlabel("time (s)")
    ax1.set_ylabel("average normalized loss of running jobs")
    ax1.set_title(f"loss over time (seed {first})")
    ax2.set_xlabel("time from arrival to 90% of the loss reduction (s)")
    ax2.set_ylabel("fraction of jobs (CDF)")
    ax2.set_title("time to 90% (all seeds)")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend()
    return save_figure(fig, stem, caption)


@register_figure(
    NAME, summary="SLAQ vs fair share: normalized loss and time to 90%", in_reproduce=True
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    config = CONFIGS[size]
    rows = compute(config, seed, outdir, size)
    tab = table(rows)
    d = results_dir(outdir, "slaq")
    runs = [{k: v for k, v in r.items() if k not in ("times_s", "loss", "t90_s")} for r in rows]
    paths = [write_csv(d / f"{STEM}.csv", tab), write_csv(d / f"{STEM}-runs.csv", runs)]
    caption = "\n".join(
        textwrap.wrap(
            f"{NAME}, size={size}, seed={seed}: {config['jobs']} jobs on the 9 shipped SLAQ loss "
            f"curves (cycled), Poisson arrivals (mean {config['arrival_mean_s']:g} s), "
            f"{config['cores']} cores, perfect scaling, epochs of 3 s, {config['seeds']} seed(s).",
            150,
        )
    )
    paths += plot(rows, d / STEM, caption)
    return paths
