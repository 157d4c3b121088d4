"""Figure `synergy-gap`: the allocators' gap to the exact per-round optimum (the gap study).

A thin call of the shared gap study (`experiments.gap`) on Synergy's family "default"
(`experiments/synergy/gapspec.py`: seeded snapshots, two model mixes, every registered
heuristic, the exact MILP under a time limit). Writes results/synergy/synergy-gap.csv (the shared
summary per mix, size and allocator, plus `share_in_feasible_set`), synergy-gap-snapshots.csv
(one row per snapshot and method, with `gap` and `in_exact_feasible_set`), synergy-gap.md and
synergy-gap.{png,pdf}. A new allocator appears with no edit here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schedlab.experiments.gap.report import GAP_TAG, write_study
from schedlab.experiments.gap.study import run_study
from schedlab.experiments.gap.summary import summarize
from schedlab.experiments.registry import register_figure

NAME = "synergy-gap"
NOTE = (
    "GREEDY is outside the exact problem's feasible set (it may skip jobs GPU-proportional "
    "runs), so its gap can be negative (column in_exact_feasible_set)"
)


@register_figure(
    NAME,
    summary="Synergy heuristics' gap to the exact per-round optimum",
    in_reproduce=True,
    tags=(GAP_TAG,),
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    study = run_study("synergy", "default", size, seed, outdir)
    summary = summarize(study)
    for s in summary:
        flags = [
            r["in_exact_feasible_set"]
            for r in study.rows
            if (r["group"], r["rung"], r["method"]) == (s["group"], s["rung"], s["method"])
            and r["in_exact_feasible_set"] is not None
        ]
        s["share_in_feasible_set"] = float(np.mean(flags)) if flags else None
    return write_study(
        study,
        outdir,
        name=NAME,
        rows_suffix="-snapshots",
        summary_suffix="",
        summary=summary,
        xlabel="runnable jobs in the round",
        note=NOTE,
        workload="generate_snapshot: 8 GPUs, 24 CPUs, 500 GB per server",
    )
