"""Figure `esg-mps` (outside `schedlab reproduce`: it does not fit the full run's budget
beside the other ESG studies): the evaluation of figure `esg` on the MPS share grid (GPU
shares in 5 % steps instead of the MIG profiles). Writes results/esg/esg-mps-*.csv,
-table.md, -summary.json and esg-mps.{png,pdf}."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.esg.eval_figure import make_study
from schedlab.experiments.esg.eval_studies import FACTOR_TABLE_ARMS, mps_study
from schedlab.experiments.registry import register_figure


@register_figure(
    "esg-mps",
    summary="ESG's evaluation on the MPS share grid (5 % steps); outside reproduce",
    in_reproduce=False,
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    return make_study(mps_study(size), size, seed, outdir, FACTOR_TABLE_ARMS)
