"""Figure `sojourn-heuristics`: each baseline heuristic's relative gap to the optimum (B and A).

Per n, seeded random instances (solvers.sojourn.generate.generate); the optimum comes from the
subset DP for n <= 14 and from CP-SAT (with its time limit) above. An instance whose exact run
did not prove optimality is kept in the journal with its status but left out of every gap
statistic (counted as `not_proven`). Rows are journaled, so a rerun resumes. Writes
results/sojourn/sojourn-heuristics.csv (mean/max gap in %, share optimal per objective, n and
heuristic), sojourn-heuristics-instances.csv, and sojourn-heuristics.{png,pdf}.
"""

from __future__ import annotations

import textwrap
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import METHODS, solve

NAME = "sojourn-heuristics"
STEM = "sojourn-heuristics"
BASELINE_TAG = "baseline"  # the heuristics compared here: sojourn methods with this tag
OBJECTIVES = ("B", "A")
DP_MAX_N = 14
OPTIMAL_GAP = 1e-9  # a heuristic counts as optimal on an instance when its gap is <= this
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {"ns": [4, 7], "count": 3, "max_checkpoints": 3, "time_limit_s": 20.0},
    "small": {"ns": [5, 8, 12], "count": 30, "max_checkpoints": 3, "time_limit_s": 60.0},
    "full": {
        "ns": [5, 8, 12, 20, 50, 100],
        "count": 100,
        "max_checkpoints": 3,
        "time_limit_s": 60.0,
    },
}


def heuristics() -> tuple[str, ...]:
    """The sojourn methods tagged "baseline", in registration order."""
    return tuple(METHODS.names(scope="sojourn", tag=BASELINE_TAG))


def instance_seed(seed: int, n: int, i: int) -> int:
    return seed * 1_000_000 + n * 1_000 + i


def exact_method(n: int) -> str:
    return "dp" if n <= DP_MAX_N else "cpsat"


def compute_row(key: dict[str, Any], config: dict[str, Any], seed: int) -> dict[str, Any]:
    """Exact optimum and every heuristic's value and relative gap on one instance."""
    n, i, kind = key["n"], key["i"], key["objective"]
    iseed = instance_seed(seed, n, i)
    inst = generate(n, iseed, max_checkpoints=config["max_checkpoints"])
    obj = Objective(kind)
    method = exact_method(n)
    ex = solve(SojournProblem(inst, obj), method, time_limit=config["time_limit_s"], seed=0)
    row: dict[str, Any] = {
        "instance_seed": iseed,
        "exact_method": method,
        "exact_status": ex.status.value,
        "optimum": ex.value,
        "bound": ex.bound,
        "exact_runtime_s": ex.runtime_s,
    }
    for h in heuristics():
        r = solve(SojournProblem(inst, obj), h)
        row[f"{h}_value"] = r.value
        gap = None
        if ex.status is Status.OPTIMAL and ex.value and r.value is not None:
            gap = (r.value - ex.value) / abs(ex.value)
        row[f"{h}_gap"] = gap
    return row


def compute(config: dict[str, Any], seed: int, outdir: Path, size: str) -> list[dict[str, Any]]:
    """Every (objective, n, i) row, resuming from results/sojourn/<stem>-<size>.jsonl."""
    d = results_dir(outdir, "sojourn")
    store = RowStore(
        d / f"{STEM}-{size}.jsonl",
        ["objective", "n", "i"],
        config={**config, "seed": seed, "heuristics": list(heuristics()), "row_format": 1},
    )
    keys = [
        {"objective": kind, "n": n, "i": i}
        for kind in OBJECTIVES
        for n in config["ns"]
        for i in range(config["count"])
    ]
    return store.run(keys, partial(compute_row, config=config, seed=seed), desc=NAME)


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (objective, n, heuristic): mean and max gap in %, share optimal, counts."""
    out = []
    for kind in OBJECTIVES:
        for n in sorted({r["n"] for r in rows}):
            group = [r for r in rows if r["objective"] == kind and r["n"] == n]
            proven = [r for r in group if r["exact_status"] == Status.OPTIMAL.value]
            for h in heuristics():
                gaps = np.array([r[f"{h}_gap"] for r in proven], dtype=float)
                out.append(
                    {
                        "objective": kind,
                        "n": n,
                        "heuristic": h,
                        "instances": len(group),
                        "proven_optimal": len(proven),
                        "not_proven": len(group) - len(proven),
                        "mean_gap_pct": float(100 * gaps.mean()) if len(gaps) else None,
                        "max_gap_pct": float(100 * gaps.max()) if len(gaps) else None,
                        "share_optimal": float(np.mean(gaps <= OPTIMAL_GAP)) if len(gaps) else None,
                    }
                )
    return out


def plot(summary: list[dict[str, Any]], stem: Path, caption: str) -> list[Path]:
    """Grouped bars: mean gap (%) per heuristic and n, max gap as a marker; B left, A right."""
    ns = sorted({s["n"] for s in summary})
    floor = 100 * OPTIMAL_GAP
    fig, axes = new_figure(1, 2, figsize=(12, 5.2), sharey=True)
    colors = [f"C{k}" for k in range(len(ns))]
    width = 0.8 / max(len(ns), 1)
    x = np.arange(len(heuristics()))
    for ax, kind in zip(axes, OBJECTIVES, strict=True):
        for k, n in enumerate(ns):
            by_h = {s["heuristic"]: s for s in summary if s["objective"] == kind and s["n"] == n}
            mean = [max(by_h[h]["mean_gap_pct"] or 0.0, floor) for h in heuristics()]
            mx = [max(by_h[h]["max_gap_pct"] or 0.0, floor) for h in heuristics()]
            xs = x - 0.4 + width * (k + 0.5)
            ax.bar(xs, mean, width, color=colors[k], label=f"n = {n}: mean gap")
            ax.plot(xs, mx, "_", color="black", ms=9, mew=1.5, label="max gap" if k == 0 else None)
            for xi, h in zip(xs, heuristics(), strict=True):
                share = by_h[h]["share_optimal"]
                if share is not None:
                    ink = "white" if share < 1 else "0.3"
                    ax.text(xi, floor * 1.5, f"{100 * share:.0f}", ha="center", fontsize=5.5,
                            rotation=90, va="bottom", color=ink)  # fmt: skip
        ax.set_yscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels(heuristics())
        ax.set_xlabel("heuristic")
        ax.set_title(f"objective {kind}: gap to the proven optimum")
        ax.axhline(floor, color="0.6", lw=0.8, ls=":")
        ax.grid(True, axis="y", which="major", alpha=0.3)
    axes[0].set_ylabel(f"relative gap to optimum (%, log scale; ≤ {floor:g} % drawn at floor)")
    axes[1].legend(fontsize=7, loc="upper right")
    axes[0].text(0.01, 0.98, "numbers in bars: % of instances where the heuristic is optimal",
                 transform=axes[0].transAxes, fontsize=7, va="top")  # fmt: skip
    return save_figure(fig, stem, textwrap.fill(caption, 200))


def make(config: dict[str, Any], seed: int, outdir: Path, size: str) -> list[Path]:
    """Compute (resuming) the rows, write the CSVs and the figure."""
    rows = compute(config, seed, outdir, size)
    summary = summarize(rows)
    d = results_dir(outdir, "sojourn")
    paths = [
        write_csv(d / f"{STEM}.csv", summary),
        write_csv(d / f"{STEM}-instances.csv", rows),
    ]
    not_proven = sum(1 for r in rows if r["exact_status"] != Status.OPTIMAL.value)
    caption = (
        f"workload: solvers.sojourn.generate.generate (<= {config['max_checkpoints']} "
        f"checkpoints/job, success sizes log-uniform on [1, 100]); n in {config['ns']}, "
        f"{config['count']} instances per n and objective; size {size}; seed {seed}; optimum by "
        f"subset DP (n <= {DP_MAX_N}) or CP-SAT ({config['time_limit_s']:g} s limit); "
        f"{not_proven} instance(s) not proven optimal, left out"
    )
    return plot(summary, d / STEM, caption) + paths


@register_figure(
    NAME,
    summary="gap (%) of every heuristic to the proven optimum for B and A, per n (bars, CSV)",
    in_reproduce=True,
)
def figure(size: str, seed: int, outdir: Path) -> list[Path]:
    """Small: n = 5, 8, 12 with 30 instances each; full: n up to 100 with 100 each."""
    return make(CONFIGS[size], seed, outdir, size)
