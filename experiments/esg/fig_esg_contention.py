"""Figure `esg-contention`: the generated apps sharing one pool of 4 invokers (their queues,
containers and warm starts compete, so the dispatcher's locality and warm reuse act across
apps), under Poisson, bursty on/off (on 25 % of the time at 4x the rate) and Azure LLM code
trace arrivals (the shipped sample's gaps, rescaled), at loads up to saturation. Load: the one
definition (`limits.LOAD_DEFINITION`) over all the apps; hit rate and cost over all apps'
requests (per-app hit rates in -runs.csv). Arms: ESG, the baselines, ESG without locality and
ESG planning once. Writes results/esg/esg-contention-{runs,cells,paired,paper}.csv,
-table.md, -summary.json and esg-contention.{png,pdf}."""

from __future__ import annotations

from pathlib import Path

from schedlab.experiments.esg.eval_figure import make_study
from schedlab.experiments.esg.eval_studies import contention_study
from schedlab.experiments.registry import register_figure

INTRO = (
    "Contention: the apps of each scenario share one pool of 4 invokers (32 vCPUs, 1 GPU "
    "each); every app gets the same request rate (the load definition summed over them); "
    "arrivals per app from the named process.",
)


@register_figure(
    "esg-contention",
    summary="ESG with apps sharing one invoker pool under Poisson, bursty and Azure arrivals",
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    return make_study(contention_study(size), size, seed, outdir, ("no-locality", "no-replan"),
                      INTRO)  # fmt: skip


@register_figure(
    "esg-contention-long",
    summary="esg-contention with 2,400 requests per run, loads to 1.2, up to 20 seeds; "
    "outside reproduce",
    in_reproduce=False,
)
def make_long(size: str, seed: int, outdir: Path) -> list[Path]:
    """The contention study at size "long" whatever `size` says at full (small: as small)."""
    s = "long" if size == "full" else size
    study = contention_study(s, name="esg-contention-long")
    return make_study(study, s, seed, outdir, ("no-locality", "no-replan"), INTRO)
