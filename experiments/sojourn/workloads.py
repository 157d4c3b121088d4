"""Online sojourn workloads by name (`WORKLOADS`, scope "sojourn"), for the CLI and figures.

A workload is `build(servers, *, jobs, load, options) -> WorkloadRun`, registered with
`@register_workload("sojourn", name, options=OptsCls)`; its typed options become flags of
`schedlab sojourn simulate` (a flag of another workload is refused).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from schedlab.experiments.registry import register_workload
from schedlab.experiments.sojourn.runner import WorkloadSource
from schedlab.experiments.sojourn.success_models import MAX_HETEROGENEITY
from schedlab.experiments.sojourn.workload_model import Workload
from schedlab.experiments.sojourn.workload_philly import (
    OUTCOME_MODEL,
    philly_workload,
    read_trace,
    sample_path,
)
from schedlab.experiments.sojourn.workload_synthetic import synthetic_workload
from schedlab.solvers.errors import InvalidInput

SUBJECT = "sojourn"
DEFAULT_SYNTHETIC_JOBS = 10_000
DEFAULT_SYNTHETIC_LOAD = 0.8


@dataclass(frozen=True)
class WorkloadRun:
    """A workload ready to simulate: its source, its description (JSON keys) and warnings."""

    source: WorkloadSource
    info: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    trace: str | None = None  # the file that bad-input messages should name


class WorkloadBuilder(Protocol):
    def __call__(
        self, servers: int, *, jobs: int | None, load: float | None, options: Any
    ) -> WorkloadRun: ...


def synthetic_source(
    jobs: int, load: float, servers: int, *, max_checkpoints: int = 3, gpu_mix: str = "one"
) -> Callable[[np.random.Generator], Workload]:
    """A fresh synthetic workload per replication Generator (validated up front)."""
    synthetic_workload(
        1, load, servers, np.random.default_rng(0), gpu_mix=gpu_mix, max_checkpoints=max_checkpoints
    )  # fail early on bad parameters
    if jobs < 1:
        raise InvalidInput(f"jobs: must be at least 1 (got {jobs})")

    def make(rng: np.random.Generator) -> Workload:
        return synthetic_workload(
            jobs, load, servers, rng, max_checkpoints=max_checkpoints, gpu_mix=gpu_mix
        )

    return make


def philly_source(
    trace: Path | None,
    servers: int,
    *,
    jobs: int | None = None,
    load: float | None = None,
    success_model: str = "uniform",
    heterogeneity: float = 0.0,
) -> Workload:
    """The Philly trace at `trace` (the shipped 2,000-job subsample when None)."""
    if trace is None:
        with sample_path() as p:
            tr = read_trace(p)
        tr = replace(tr, source="philly_sample.csv (shipped subsample)")
    else:
        tr = read_trace(trace)
    return philly_workload(
        tr,
        servers,
        jobs=jobs,
        load=load,
        success_model=success_model,
        heterogeneity=heterogeneity,
    )


@dataclass(frozen=True)
class SyntheticOptions:
    """Options of the synthetic workload."""

    max_checkpoints: int = field(
        default=3,
        metadata={"help": "Synthetic: checkpoints per job uniform on 0..C", "range": (0, 999)},
    )
    gpu_mix: Literal["one", "philly"] = field(
        default="one",
        metadata={"help": "Synthetic GPU counts: all 1, or the Philly mix (counts <= M)"},
    )


@register_workload(
    SUBJECT, "synthetic", options=SyntheticOptions, summary="Poisson arrivals of random jobs"
)
def synthetic(
    servers: int, *, jobs: int | None, load: float | None, options: SyntheticOptions
) -> WorkloadRun:
    """Poisson arrivals at the target load of random checkpointed jobs (seeded per run)."""
    n = jobs or DEFAULT_SYNTHETIC_JOBS
    rho = DEFAULT_SYNTHETIC_LOAD if load is None else load
    o = options
    source = synthetic_source(n, rho, servers, max_checkpoints=o.max_checkpoints, gpu_mix=o.gpu_mix)
    info = {
        "workload": "synthetic",
        "load": rho,
        "max_checkpoints": o.max_checkpoints,
        "gpu_mix": o.gpu_mix,
    }
    return WorkloadRun(source, info)


@dataclass(frozen=True)
class PhillyOptions:
    """Options of the Philly workload."""

    trace: str | None = field(
        default=None,
        metadata={"help": "Philly-format CSV (default: the shipped 2,000-job subsample)"},
    )
    outcome_model: Literal["uniform", "by-gpus", "by-cluster", "by-duration"] = field(
        default="uniform",
        metadata={
            "help": "Philly: how P(success) depends on the job (mean kept at 0.624); see "
            "docs/sojourn.md"
        },
    )
    heterogeneity: float = field(
        default=0.0,
        metadata={
            "help": "Philly: strength h of the outcome model (0 none, 2 strong; < 0 reverses)",
            "range": (-MAX_HETEROGENEITY, MAX_HETEROGENEITY),
        },
    )


@register_workload(
    SUBJECT, "philly", options=PhillyOptions, summary="the Philly trace (or its sample)"
)
def philly(
    servers: int, *, jobs: int | None, load: float | None, options: PhillyOptions
) -> WorkloadRun:
    """The Philly trace's jobs and arrivals, rescaled to `load` when given."""
    trace = None if options.trace is None else Path(options.trace)
    w = philly_source(
        trace,
        servers,
        jobs=jobs,
        load=load,
        success_model=options.outcome_model,
        heterogeneity=options.heterogeneity,
    )
    info = {
        "workload": "philly",
        "trace": w.meta["trace"],
        "load": load,
        "outcome_model": OUTCOME_MODEL,
        "success_model": options.outcome_model,
        "heterogeneity": options.heterogeneity,
        "success_description": w.meta["success_description"],
    }
    warnings = []
    if w.excluded_jobs:
        warnings.append(f"{w.excluded_jobs} job(s) need more than {servers} GPUs and were excluded")
    if not w.meta.get("cluster_column", True):
        warnings.append(
            "the trace has no 'cluster' column: all its jobs form one virtual cluster, so the "
            "checkpoint quantiles are taken over the whole file"
        )
    return WorkloadRun(w, info, warnings, options.trace)
