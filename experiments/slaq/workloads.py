"""SLAQ's simulator workloads by name (`WORKLOADS`, scope "slaq").

A workload is `build(cfg: SimConfig) -> list[SimJob]`: the jobs of one run in arrival order,
seeded by `cfg.seed`, registered with `@register_workload("slaq", name, summary=...)`. The simulator
(`simulate(cfg, policy, workload=...)`), `schedlab slaq simulate --workload` and the figure
`slaq-quality` look it up here, so another workload is one more function in this module or in a
`workload_<name>.py` beside it.
"""

from __future__ import annotations

from schedlab.experiments.registry import register_workload
from schedlab.experiments.slaq.simulator import DEFAULT_WORKLOAD, SimConfig, SimJob, make_jobs

SUBJECT = "slaq"


@register_workload(
    SUBJECT,
    DEFAULT_WORKLOAD,
    summary="Poisson arrivals on the 9 shipped loss curves (cycled), seeded",
)
def shipped_curves(cfg: SimConfig) -> list[SimJob]:
    """The simulator's own workload (`simulator.make_jobs`), unchanged."""
    return make_jobs(cfg)
