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
sojourn-heuristics.md and sojourn-heuristics.{png,pdf}.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.gap.report import GAP_TAG, write_study
from schedlab.experiments.gap.study import run_study
from schedlab.experiments.registry import register_figure

NAME = STEM = "sojourn-heuristics"
WORKLOAD = (
    "solvers.sojourn.generate.generate (<= 3 checkpoints/job, success sizes log-uniform on "
    "[1, 100])"
)


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
    return write_study(
        study,
        outdir,
        name=STEM,
        rows_suffix="-instances",
        summary_suffix="",
        xlabel="number of jobs n",
        workload=WORKLOAD,
    )
