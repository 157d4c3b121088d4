"""ESG's arrival processes by name (`WORKLOADS`, scope "esg"), for the simulator and the CLI.

An arrival process is `arrivals(rate, n, rng, trace, *, max_steps) -> np.ndarray`: n arrival
times (ms) of one application at mean rate `rate` per second, drawn from `rng`; `trace` is a
trace file for the processes registered with `trace=True` (None: their shipped sample);
`max_steps` is the work cap its generation counts against (`--max-events`). Registered with
`@register_workload("esg", name, summary=..., trace=...)`; `schedlab esg simulate --arrivals`
offers every registered name and the simulator (`simulator.arrival_process`) looks it up here.

The three below are thin wrappers of `simulator.arrival_times`, where the generators live.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.esg.simulator import arrival_times
from schedlab.experiments.registry import register_workload

SUBJECT = "esg"


@register_workload(SUBJECT, "poisson", summary="Poisson arrivals at the load's rate")
def poisson(
    rate: float, n: int, rng: np.random.Generator, trace: str | None, *, max_steps: float
) -> np.ndarray:
    """Exponential inter-arrival times of mean 1/rate."""
    return arrival_times("poisson", rate, n, rng, max_steps=max_steps)


@register_workload(
    SUBJECT, "bursty", summary="on/off bursts: on 25 % of the time at 4x the mean rate"
)
def bursty(
    rate: float, n: int, rng: np.random.Generator, trace: str | None, *, max_steps: float
) -> np.ndarray:
    """On/off arrivals with the same mean rate."""
    return arrival_times("bursty", rate, n, rng, max_steps=max_steps)


@register_workload(
    SUBJECT,
    "azure",
    summary="the Azure LLM code trace's inter-arrival times (shipped sample or --trace), "
    "rescaled to the load",
    trace=True,
)
def azure(
    rate: float, n: int, rng: np.random.Generator, trace: str | None, *, max_steps: float
) -> np.ndarray:
    """The trace's gaps from a seeded start, tiled and rescaled to mean 1/rate."""
    return arrival_times("azure", rate, n, rng, trace, max_steps=max_steps)
