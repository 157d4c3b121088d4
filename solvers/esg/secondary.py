"""A profile family seeded from a secondary source: the six DNN functions' latencies that
summaries of ESG's paper report, scaled to other configurations by the shipped measurements.

Source (secondary, `../shared/papers.md`, tag [summary]; not the paper itself): six DNN
functions with their latency at the minimum configuration, 1 vCPU, one GPU slice, batch 1:
super-resolution 86 ms, segmentation 293, deblur 319, classification 147, background removal
1,047, depth 828 (`SUMMARY_MS`). Nothing else of these functions is stated (models, inputs,
how latency changes with batch, slices or vCPUs).

The scaling model (ours, documented): latency(f, b, s) = SUMMARY_MS[f] x R(b, s), where R is
the measured ratio lat(b, s) / lat(1, 1) of the A100 MIG profiles that ship
(`generate.measured_configs`: bert, densenet121, mobilenetv2, resnet50, ParvaGPU's data),
averaged geometrically over the four models, on the grid all four measured: batch
`SCALE_BATCHES` x MIG slices `SCALE_SLICES` (`measured_ratio`). vCPUs stay at 1 (the summary's
setting; no source says how these functions scale with vCPUs), and there are no CPU-only
configurations, so a baseline that needs CPU profiles (BATCH-like) cannot run on this family.
The measured models are 5-15 ms at batch 1 and latency-bound there (1 to 7 slices change
batch-1 latency by under 10 %); applying their ratios to 86-1,047 ms functions assumes the
same shape at a larger scale, which no source confirms.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.generate import app_of, measured_configs
from schedlab.solvers.esg.limits import MEASURED_MODELS
from schedlab.solvers.esg.problem import App, Config, Function

#: Latency (ms) at 1 vCPU, one GPU slice, batch 1, as summaries of ESG's paper report them
#: (secondary source).
SUMMARY_MS: dict[str, float] = {
    "super_resolution": 86.0,
    "segmentation": 293.0,
    "deblur": 319.0,
    "classification": 147.0,
    "background_removal": 1047.0,
    "depth": 828.0,
}
SOURCE = "secondary: summaries of ESG's paper (../shared/papers.md [summary])"
#: The grid every measured model covers (batch x MIG compute slices of 7).
SCALE_BATCHES = (1, 2, 4, 8, 16, 32)
SCALE_SLICES = (1, 2, 3, 4, 7)
#: vCPUs of every configuration (the summary's minimum configuration).
SUMMARY_VCPUS = 1.0


@cache
def measured_ratio() -> dict[tuple[int, int], float]:
    """R(b, s): geometric mean over the measured models of lat(b, s) / lat(1, 1)."""
    logs: dict[tuple[int, int], list[float]] = {}
    for m in MEASURED_MODELS:
        lat = {(c.batch, round(c.gpu_share * 7)): c.latency_ms for c in measured_configs(m)}
        base = lat[(1, 1)]
        for b in SCALE_BATCHES:
            for s in SCALE_SLICES:
                logs.setdefault((b, s), []).append(float(np.log(lat[(b, s)] / base)))
    return {k: float(np.exp(np.mean(v))) for k, v in logs.items()}


def summary_function(name: str, fid: str | None = None) -> Function:
    """The function `name` of SUMMARY_MS on the scaled grid (batch x slices, 1 vCPU)."""
    if name not in SUMMARY_MS:
        raise InvalidInput(f"function: unknown {name!r}; choose one of {', '.join(SUMMARY_MS)}")
    r = measured_ratio()
    configs = tuple(
        Config(b, SUMMARY_VCPUS, s / 7, round(SUMMARY_MS[name] * r[(b, s)], 3))
        for b in SCALE_BATCHES
        for s in SCALE_SLICES
    )
    return Function(fid or name, configs)


def summary_app(
    names: Sequence[str],
    edges: Sequence[tuple[int, int]] | None = None,
    *,
    slo_ms: float | None = None,
    name: str | None = None,
    slo_quantile: float = 0.3,
) -> App:
    """An app of SUMMARY_MS functions (a chain in order, or the DAG of position `edges`);
    SLO `slo_ms`, else the generator's rule (`generate.quantile_slo`)."""
    if not names:
        raise InvalidInput("names: at least one of " + ", ".join(SUMMARY_MS))
    funcs = tuple(summary_function(n, f"f{i}_{n}") for i, n in enumerate(names))
    return app_of(funcs, slo_ms, name or "summary-" + "-".join(names), slo_quantile, edges)
