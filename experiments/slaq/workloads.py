"""SLAQ's simulator workloads by name (`WORKLOADS`, scope "slaq").

A workload is `build(cfg: SimConfig) -> list[SimJob]`: the jobs of one run in arrival order,
seeded by `cfg.seed`, registered with `@register_workload(name, summary=...)`. The simulator
(`simulate(cfg, policy, workload=...)`), `schedlab slaq simulate --workload` and the figure
`slaq-quality` look it up here, so another workload is one more function in this module or in a
`workload_<name>.py` beside it.
"""

from __future__ import annotations

from collections.abc import Callable

from schedlab.experiments.registry import WORKLOADS
from schedlab.experiments.slaq.simulator import DEFAULT_WORKLOAD, SimConfig, SimJob, make_jobs

SUBJECT = "slaq"

WorkloadBuilder = Callable[[SimConfig], list[SimJob]]


def register_workload(name: str, *, summary: str) -> Callable[[WorkloadBuilder], WorkloadBuilder]:
    """Register a SLAQ workload builder under `name` (scope "slaq")."""
    return WORKLOADS.register(name, scope=SUBJECT, summary=summary)


@register_workload(
    DEFAULT_WORKLOAD, summary="Poisson arrivals on the 9 shipped loss curves (cycled), seeded"
)
def shipped_curves(cfg: SimConfig) -> list[SimJob]:
    """The simulator's own workload (`simulator.make_jobs`), unchanged."""
    return make_jobs(cfg)
