"""Figure `sojourn-heuristics`: every registered heuristic's gap to the proven optimum for A, B,
TK and DK (K = n / 2), by n.

A thin call of the shared gap study (`experiments.gap`) on sojourn's family "default"
(`experiments/sojourn/gapspec.py`): seeded `generate` instances, the optimum by the subset DP for
n <= 14 and CP-SAT above (A and B; TK and DK stop at n = 16, the DP's reach). An instance whose
exact run did not prove optimality is kept with its status but left out of every gap statistic
(counted as `unproven`). Cells are cached, so a rerun resumes and a new heuristic computes only
its own cells. Writes results/sojourn/sojourn-heuristics.csv (the shared summary: mean, median,
worst gap with 95 % intervals, share optimal, time; per objective, n and method),
sojourn-heuristics-instances.csv (one row per instance and method, with `gap`),
sojourn-heuristics.md, sojourn-heuristics.{png,pdf} and sojourn-heuristics-paired.csv: per
(group, n), each existing alternative against each of our policies on the same instances, the
mean of (alternative's gap - policy's gap) with its 95 % t half-width (positive: the policy is
closer to the optimum), which is what "the policy beats the alternatives" needs and what the
unpaired mean gaps of the summary cannot show.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.gap.report import GAP_TAG, write_study
from schedlab.experiments.gap.study import run_study
from schedlab.experiments.registry import register_figure
from schedlab.experiments.stats import t_half_width
from schedlab.experiments.store import results_dir, write_csv

NAME = STEM = "sojourn-heuristics"
WORKLOAD = (
    "solvers.sojourn.generate.generate (<= 3 checkpoints/job, success sizes log-uniform on "
    "[1, 100])"
)
#: the existing alternatives (the short paper's prior policy) and our policies, paired per instance
ALTERNATIVES = ("gittins",)
POLICIES = ("smith", "uindex")
PAIRED_FIELDS = (
    "group", "size", "alternative", "policy", "instances", "mean_diff", "mean_diff_ci95",
)  # fmt: skip


@register_figure(
    NAME,
    summary="gap of every heuristic to the proven optimum for A, B, TK, DK, per n (CSV, table)",
    in_reproduce=True,
    tags=(GAP_TAG,),
)
def figure(size: str, seed: int, outdir: Path) -> list[Path]:
    """Small: n = 5, 8, 12 with 30 instances each; full: n up to 100 (A, B) and 16 (TK, DK)
    with 100 each."""
    study = run_study("sojourn", "default", size, seed, outdir)
    paired = results_dir(outdir, "sojourn") / f"{STEM}-paired.csv"
    return write_study(
        study,
        outdir,
        name=STEM,
        rows_suffix="-instances",
        summary_suffix="",
        xlabel="number of jobs n",
        workload=WORKLOAD,
    ) + [write_csv(paired, paired_differences(study.rows), fields=PAIRED_FIELDS)]


def _proven_gaps(rows: Sequence[dict[str, Any]]) -> dict[tuple[Any, Any, Any, str], float]:
    """(group, size, instance, method) -> gap, over the instances whose optimum was proven."""
    return {
        (r["group"], r["size"], r["i"], r["method"]): float(r["gap"])
        for r in rows
        if r["proven"] and r["gap"] is not None
    }


def paired_differences(
    rows: Sequence[dict[str, Any]],
    alternatives: Sequence[str] = ALTERNATIVES,
    policies: Sequence[str] = POLICIES,
) -> list[dict[str, Any]]:
    """Per (group, size, alternative, policy): over the proven instances where both have a gap,
    the mean of gap(alternative) - gap(policy) on the same instance and its 95 % t half-width
    (None below two instances). Pairing removes the instance-to-instance spread both gaps
    share, so the interval is that of the difference, not of two separate means."""
    gaps = _proven_gaps(rows)
    out = []
    for group, size in dict.fromkeys((r["group"], r["size"]) for r in rows):
        ids = sorted({k[2] for k in gaps if k[:2] == (group, size)})
        for alt in alternatives:
            for pol in policies:
                diffs = [
                    gaps[(group, size, i, alt)] - gaps[(group, size, i, pol)]
                    for i in ids
                    if (group, size, i, alt) in gaps and (group, size, i, pol) in gaps
                ]
                if diffs:
                    out.append({"group": group, "size": size, "alternative": alt,
                                "policy": pol, **_mean_ci(diffs)})  # fmt: skip
    return out


def _mean_ci(diffs: list[float]) -> dict[str, Any]:
    x = np.array(diffs, dtype=float)
    return {"instances": len(x), "mean_diff": float(x.mean()), "mean_diff_ci95": t_half_width(x)}
