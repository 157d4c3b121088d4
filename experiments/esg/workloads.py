"""ESG's arrival processes and evaluation apps by name (`WORKLOADS`, scope "esg").

Two kinds, told apart by tag: "arrivals" (the simulator's and the CLI's `--arrivals`) and "app"
(the applications the `esg` figure evaluates; `app_names()`, `build_app(name, ...)`).

An arrival process is `arrivals(rate, n, rng, trace, *, max_steps) -> np.ndarray`: n arrival
times (ms) of one application at mean rate `rate` per second, drawn from `rng`; `trace` is a
trace file for the processes registered with `trace=True` (None: their shipped sample);
`max_steps` is the work cap its generation counts against (`--max-events`). Registered with
`@register_workload("esg", name, summary=..., trace=...)`; `schedlab esg simulate --arrivals`
offers every registered name and the simulator (`simulator.arrival_process`) looks it up here.

The three below are thin wrappers of `simulator.arrival_times`, where the generators live.

An app builder is `build(seed, configs, *, shares, cpu_configs) -> App`: a seeded random app of
`solvers.esg.generate` with a fixed shape (chains and DAGs of different depth and width), so
the figure's apps are named, reproducible and listed in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from schedlab.experiments.esg.simulator import arrival_times
from schedlab.experiments.registry import WORKLOADS, register_workload
from schedlab.solvers.esg.generate import generate, measured_app
from schedlab.solvers.esg.problem import App
from schedlab.solvers.esg.secondary import summary_app

SUBJECT = "esg"
#: Tags of the two kinds of ESG workload.
ARRIVALS, APP = "arrivals", "app"


@register_workload(
    SUBJECT, "poisson", summary="Poisson arrivals at the load's rate", tags=(ARRIVALS,)
)
def poisson(
    rate: float, n: int, rng: np.random.Generator, trace: str | None, *, max_steps: float
) -> np.ndarray:
    """Exponential inter-arrival times of mean 1/rate."""
    return arrival_times("poisson", rate, n, rng, max_steps=max_steps)


@register_workload(
    SUBJECT,
    "bursty",
    summary="on/off bursts: on 25 % of the time at 4x the mean rate",
    tags=(ARRIVALS,),
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
    tags=(ARRIVALS,),
)
def azure(
    rate: float, n: int, rng: np.random.Generator, trace: str | None, *, max_steps: float
) -> np.ndarray:
    """The trace's gaps from a seeded start, tiled and rescaled to mean 1/rate."""
    return arrival_times("azure", rate, n, rng, trace, max_steps=max_steps)


def _app(
    name: str, stages: int, shape: str, layers: Sequence[int] | None, salt: int
) -> Callable[..., App]:
    """A builder of the seeded app `name` of this shape (seed offset by `salt`, so the apps
    of one seed differ)."""

    def build(seed: int, configs: int, *, shares: str = "mps", cpu_configs: int = 0) -> App:
        return generate(
            stages,
            configs,
            1000 * seed + salt,
            shape="dag" if shape == "dag" else "chain",
            name=name,
            shares=shares,
            cpu_configs=cpu_configs,
            layers=layers,
        )

    build.__doc__ = f"The {name} app: {stages} functions, {shape}" + (
        f", inner layers {list(layers)}" if layers else ""
    )
    return build


#: The evaluation apps: name -> (functions, shape, inner layer widths, what it stresses).
APPS: dict[str, tuple[int, str, tuple[int, ...] | None, str]] = {
    "chain3": (3, "chain", None, "a short chain (depth 3)"),
    "chain6": (6, "chain", None, "a deep chain (depth 6)"),
    "dag-wide": (5, "dag", (3,), "a wide DAG: fan-out to 3 parallel functions, fan-in (depth 3)"),
    "dag-deep": (7, "dag", (2, 1, 2), "a deep DAG: two diamonds in a row (depth 5, width 2)"),
}
for _salt, (_name, (_n, _shape, _layers, _what)) in enumerate(APPS.items()):
    register_workload(SUBJECT, _name, summary=_what, tags=(APP,))(
        _app(_name, _n, _shape, _layers, _salt)
    )


#: Apps on profiles with a source (tags MEASURED, SECONDARY): name -> (functions in order,
#: edges as position pairs or None for a chain). GPU-only: no CPU-only configurations.
#: Measured: the A100 MIG profiles of ParvaGPU (`generate.measured_app`); secondary: the six
#: latencies summaries of ESG's paper report, scaled by the measured ratios
#: (`solvers/esg/secondary.py`). The pipelines (which function feeds which) are ours.
MEASURED, SECONDARY = "measured", "secondary"
SOURCED_APPS: dict[str, tuple[str, tuple[str, ...], tuple[tuple[int, int], ...] | None]] = {
    "mig-chain4": (MEASURED, ("mobilenetv2", "resnet50", "densenet121", "bert"), None),
    "mig-diamond": (
        MEASURED, ("resnet50", "mobilenetv2", "densenet121", "bert"),
        ((0, 1), (0, 2), (1, 3), (2, 3)),
    ),
    "s6-chain": (SECONDARY, ("deblur", "super_resolution", "classification"), None),
    "s6-dag": (
        SECONDARY, ("super_resolution", "segmentation", "depth", "background_removal"),
        ((0, 1), (0, 2), (1, 3), (2, 3)),
    ),
}  # fmt: skip


def _sourced(name: str) -> Callable[..., App]:
    """A builder of the sourced app `name` (seed, configs, shares, CPU configs: not used; its
    profiles are fixed, so seeds differ only in their arrivals)."""
    kind, funcs, edges = SOURCED_APPS[name]

    def build(seed: int, configs: int, *, shares: str = "mig", cpu_configs: int = 0) -> App:
        if kind == MEASURED:
            return measured_app(list(funcs), name=name, edges=edges)
        return summary_app(funcs, edges, name=name)

    build.__doc__ = f"The {name} app ({kind} profiles): {' -> '.join(funcs)}" + (
        f", edges {list(edges)}" if edges else " (a chain)"
    )
    return build


for _name, (_kind, _funcs, _edges) in SOURCED_APPS.items():
    register_workload(SUBJECT, _name, summary=f"{_kind} profiles: {', '.join(_funcs)}",
                      tags=(_kind,))(_sourced(_name))  # fmt: skip


def app_names(tag: str = APP) -> tuple[str, ...]:
    """The registered evaluation apps of a kind (APP: the generated ones; MEASURED,
    SECONDARY: the sourced ones), in registration order."""
    return tuple(WORKLOADS.names(scope=SUBJECT, tag=tag))


def build_app(
    name: str, seed: int, configs: int, *, shares: str = "mps", cpu_configs: int = 0
) -> App:
    """The registered app `name` drawn for `seed`."""
    build: Callable[..., App] = WORKLOADS.get(name, scope=SUBJECT).obj
    return build(seed, configs, shares=shares, cpu_configs=cpu_configs)
