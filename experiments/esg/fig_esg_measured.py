"""Figure `esg-measured`: ESG's evaluation on profiles with a source: the measured A100 MIG
profiles of ParvaGPU (mig-chain4: mobilenetv2 -> resnet50 -> densenet121 -> bert; mig-diamond:
resnet50 -> {mobilenetv2, densenet121} -> bert; MIG slices as the GPU shares, which is how
summaries describe ESG's platform) and the secondary-source family (s6-chain, s6-dag: the six
minimum-configuration latencies that summaries of the paper report, scaled by the measured
ratios, `solvers/esg/secondary.py`). The profiles are fixed, so seeds differ in their arrivals
only. Baselines that run on GPU-only profiles: greedy, INFless-like (its GPU range, 1-3 MIG
slices), static; BATCH-like needs CPU-only profiles and is left out (said in the table).
Arms also: ESG with each factor off and with the old late-head rule (`--late cheapest`).
Writes results/esg/esg-measured-{runs,cells,paired,paper}.csv, -table.md, -summary.json and
esg-measured.{png,pdf} (`eval_figure.make_study`)."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.esg.eval_figure import make_study
from schedlab.experiments.esg.eval_studies import FACTOR_TABLE_ARMS, measured_study
from schedlab.experiments.registry import register_figure

INTRO = (
    "Profiles: mig-* the measured A100 MIG profiles (ParvaGPU, MIT; GPU share = slices / 7, "
    "no vCPUs measured); s6-* the secondary-source family: six latencies at 1 vCPU, one slice, "
    "batch 1 from summaries of ESG's paper, scaled by the measured models' geometric-mean "
    "ratios (labelled secondary; solvers/esg/secondary.py). GPU-only: BATCH-like (CPU-only "
    "profiles) cannot run; the other baselines can.",
)


@register_figure(
    "esg-measured",
    summary="ESG on measured A100 MIG profiles and the secondary-source family, GPU-only "
    "baselines and factor ablations",
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    return make_study(measured_study(size), size, seed, outdir, FACTOR_TABLE_ARMS, INTRO)
