"""Workload sources by name, shared by the CLI, the figure and the benchmark."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from schedlab.experiments.sojourn.online.philly import philly_workload, read_trace, sample_path
from schedlab.experiments.sojourn.online.synthetic import synthetic_workload
from schedlab.experiments.sojourn.online.workload import Workload
from schedlab.solvers.errors import InvalidInput

WORKLOADS = ("synthetic", "philly")
DEFAULT_SYNTHETIC_JOBS = 10_000
DEFAULT_SYNTHETIC_LOAD = 0.8


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
    trace: Path | None, servers: int, *, jobs: int | None = None, load: float | None = None
) -> Workload:
    """The Philly trace at `trace` (the shipped 2,000-job subsample when None)."""
    if trace is None:
        with sample_path() as p:
            tr = read_trace(p)
        tr = replace(tr, source="philly_sample.csv (shipped subsample)")
    else:
        tr = read_trace(trace)
    return philly_workload(tr, servers, jobs=jobs, load=load)
