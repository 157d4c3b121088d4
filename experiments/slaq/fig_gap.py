"""Figure `slaq-gap`: every registered SLAQ heuristic (greedy, maxmin, fair, ...) against the
exact allocation, by the number of jobs, for both objectives.

A thin call of the shared gap study (`experiments.gap`) on SLAQ's families "default"
(`experiments/slaq/gapspec.py`: `generate_snapshot` snapshots, 4 cores per job, both
objectives) and "flat-start" (inverse-poly fits of flat-start histories, where the greedy can
lose, claim 10; objective sum); the optimum of the exact DP, checked against the MILP up to 16
jobs. Gaps of objective "sum" are relative, those of "maxmin" absolute (normalized quality
units). Writes results/slaq/slaq-gap.csv (the shared summary), slaq-gap-snapshots.csv (one row
per snapshot and method, with `gap`), slaq-gap.md (the table) and slaq-gap.{png,pdf}.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.gap.report import GAP_TAG, write_study
from schedlab.experiments.gap.study import merged, run_study
from schedlab.experiments.registry import register_figure

NAME = "slaq-gap"


@register_figure(
    NAME,
    summary="SLAQ heuristics vs the exact allocation, by jobs (both objectives)",
    in_reproduce=True,
    tags=(GAP_TAG,),
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    """Small: 4..32 jobs, 10 snapshots each; full: 4..128 jobs, 30 each."""
    study = merged(
        [run_study("slaq", f, size, seed, outdir) for f in ("default", "flat-start")], "default"
    )
    return write_study(
        study,
        outdir,
        name=NAME,
        rows_suffix="-snapshots",
        summary_suffix="",
        xlabel="jobs in the snapshot (log scale)",
    )
