"""Job streams for the Synergy simulator: the default Philly-derived workload and its variants.

A workload is a sequence of `JobSpec` in arrival order, finite (traces) or an endless seeded
stream (the synthetic workloads, read lazily until the measurement window is done).

Work is counted in *proportional-share seconds*: the time the job needs at the
GPU-proportional share (3 CPUs, 62.5 GB per GPU by default), where every profile's normalized
throughput is 1. A duration given in seconds is work as is; a trace's iteration count is turned
into work by multiplying it with the model's `iter_time_s_at_proportional` (so
`iterations = work_s / iter_time_s`, kept fractional, never rounded).

Named workloads register with `@register_workload("synergy", name, summary=..., **meta)`
(`schedlab.experiments.registry`): a builder `build(request: WorkloadRequest) -> Workload`, and
as metadata what the CLI needs to know: `trace` ("none", "optional", "required": whether it
reads --trace), `static_ok` (whether --static applies), `default_servers` (its design cluster,
`DEFAULT_SERVERS` when not given); tag "synthetic": an open seeded stream driven by --load.
The synthetic streams register here, the trace replays in `workload_traces.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Literal

import numpy as np

from schedlab.experiments.registry import register_workload
from schedlab.experiments.synergy.authors_stream import AuthorsStream
from schedlab.experiments.synergy.catalog import ModelCatalog, default_catalog
from schedlab.experiments.synergy.jobs import (
    DEFAULT_CLASS_SPLIT,
    LONG_EXP,
    SHORT_EXP,
    SHORT_PROB,
    ClassAssigner,
    JobSpec,
)
from schedlab.solvers.errors import InvalidInput

SUBJECT = "synergy"

# A workload's design cluster (servers) unless it registers `default_servers`.
DEFAULT_SERVERS = 16
# Default measurement window of the Synergy simulator (job ids [4000, 5000)).
DEFAULT_WINDOW: tuple[int, int] = (4000, 5000)
# Multi-GPU variant: GPU demand and its probability.
MULTI_GPU_DEMANDS: tuple[int, ...] = (1, 2, 4, 8)
MULTI_GPU_PROBS: tuple[float, ...] = (0.70, 0.10, 0.15, 0.05)

_CHUNK = 1024  # jobs drawn per batch; the stream does not depend on it
# Random streams of the synthetic workloads: ours, and the authors' draws (authors_stream.py).
STREAMS: tuple[str, ...] = ("numpy", "authors")


@dataclass
class Workload:
    """A named job source plus the facts the simulator and the report need.

    `jobs` is iterated once, lazily; `finite` says whether it ends. `default_servers` is the
    cluster the workload was designed for; `static` marks all-at-time-0 traces (makespan);
    `excluded` counts jobs dropped on loading (e.g. more GPUs than the cluster has).
    """

    name: str
    jobs: Iterable[JobSpec]
    finite: bool
    description: str
    default_servers: int = DEFAULT_SERVERS
    static: bool = False
    excluded: int = 0
    notes: list[str] = field(default_factory=list)

    def take(self, n: int) -> list[JobSpec]:
        """The first n jobs (for inspection and tests; a fresh iteration each call)."""
        return list(islice(iter(self.jobs), n))


@dataclass(frozen=True)
class SyntheticStream:
    """Endless seeded Poisson stream of the Philly-derived workload (optionally multi-GPU).

    Job k uses four uniforms (row k of a PCG64 stream from `seed`): inter-arrival
    (exponential, mean 3600/load s), duration class, duration exponent, GPU demand. The GPU
    uniform is drawn for single-GPU streams too, so both variants share arrivals and durations.
    """

    load_jobs_per_h: float
    seed: int
    multi_gpu: bool = False
    split: tuple[float, float, float] = DEFAULT_CLASS_SPLIT
    max_jobs: int | None = None
    catalog: ModelCatalog | None = None

    def __post_init__(self) -> None:
        if not (self.load_jobs_per_h > 0 and math.isfinite(self.load_jobs_per_h)):
            raise ValueError("load must be a positive number of jobs per hour")

    def __iter__(self) -> Iterator[JobSpec]:
        cat = self.catalog or default_catalog()
        rng = np.random.default_rng(self.seed)
        assigner = ClassAssigner(cat, self.split)
        mean_gap_s = 3600.0 / self.load_jobs_per_h
        cum = np.cumsum(MULTI_GPU_PROBS)
        t = 0.0
        k = 0
        while self.max_jobs is None or k < self.max_jobs:
            u = rng.random((_CHUNK, 4))
            gaps = -np.log1p(-u[:, 0]) * mean_gap_s
            short = u[:, 1] < SHORT_PROB
            lo = np.where(short, SHORT_EXP[0], LONG_EXP[0])
            hi = np.where(short, SHORT_EXP[1], LONG_EXP[1])
            work = 60.0 * 10.0 ** (lo + (hi - lo) * u[:, 2])
            if self.multi_gpu:
                idx = np.searchsorted(cum, u[:, 3], side="right")
                gpus = np.asarray(MULTI_GPU_DEMANDS)[np.minimum(idx, len(cum) - 1)]
            else:
                gpus = np.ones(_CHUNK, dtype=int)
            for i in range(_CHUNK):
                if self.max_jobs is not None and k >= self.max_jobs:
                    return
                t += float(gaps[i])
                yield JobSpec(k, t, assigner.next(), int(gpus[i]), float(work[i]))
                k += 1


@dataclass(frozen=True)
class WorkloadRequest:
    """What the command line asks of a workload: arrival rate and seed (synthetic streams), at
    most `jobs` jobs, a cluster of `max_gpus` GPUs, a trace file, all-at-time-0 (`static`),
    the random stream of the synthetic workloads (`stream`: "numpy", ours, or "authors", the
    Synergy authors' draws, single-GPU only) and the task-class split image/language/speech."""

    load: float = 9.0
    seed: int = 0
    jobs: int | None = None
    max_gpus: int = 128
    trace: Path | None = None
    static: bool = False
    stream: str = "numpy"  # "authors": the authors' draws (authors_stream.py)
    split: tuple[float, float, float] = DEFAULT_CLASS_SPLIT


WorkloadBuilder = Callable[[WorkloadRequest], "Workload"]
TraceUse = Literal["none", "optional", "required"]  # the `trace` metadata of a workload


def _check_load(req: WorkloadRequest) -> None:
    if not req.load > 0:
        raise InvalidInput(f"--load: must be a positive number of jobs per hour (got {req.load})")


@register_workload(
    SUBJECT,
    "philly-derived",
    summary="Synergy's default: single-GPU jobs, Poisson arrivals at --load",
    tags=("synthetic",),
)
def _philly_derived(req: WorkloadRequest) -> Workload:
    _check_load(req)
    return philly_derived(req.load, req.seed, max_jobs=req.jobs, stream=req.stream, split=req.split)


@register_workload(
    SUBJECT,
    "multi-gpu",
    summary="multi-GPU variant (1/2/4/8 GPUs), Poisson at --load",
    tags=("synthetic",),
)
def _multi_gpu(req: WorkloadRequest) -> Workload:
    _check_load(req)
    if req.stream != "numpy":
        raise InvalidInput(
            "--stream: the authors' stream is single-GPU (their multi-GPU jobs take the GPU "
            "counts of the full Philly log); use --workload philly-derived"
        )
    return multi_gpu(req.load, req.seed, max_jobs=req.jobs, split=req.split)


def _split_text(split: Sequence[float]) -> str:
    return "/".join(f"{100 * x / sum(split):.0f}" for x in split)


def philly_derived(
    load_jobs_per_h: float,
    seed: int,
    *,
    max_jobs: int | None = None,
    catalog: ModelCatalog | None = None,
    stream: str = "numpy",
    split: tuple[float, float, float] = DEFAULT_CLASS_SPLIT,
) -> Workload:
    """The Synergy simulator's default workload: single-GPU jobs, Poisson arrivals; `stream`
    "authors" draws them as the authors' simulator does (`authors_stream.py`)."""
    jobs: Iterable[JobSpec]
    if stream == "authors":
        jobs = AuthorsStream(load_jobs_per_h, seed, split, max_jobs=max_jobs, catalog=catalog)
    elif stream == STREAMS[0]:
        jobs = SyntheticStream(
            load_jobs_per_h, seed, False, split, max_jobs=max_jobs, catalog=catalog
        )
    else:
        raise InvalidInput(f"--stream: must be one of {', '.join(STREAMS)} (got {stream!r})")
    return Workload(
        name="philly-derived",
        jobs=jobs,
        finite=max_jobs is not None,
        description=(
            f"Philly-derived single-GPU, {load_jobs_per_h:g} jobs/h Poisson, "
            f"class split image/language/speech {_split_text(split)}, seed {seed}"
            + (" (the authors' random stream)" if stream == "authors" else "")
        ),
    )


def multi_gpu(
    load_jobs_per_h: float,
    seed: int,
    *,
    max_jobs: int | None = None,
    catalog: ModelCatalog | None = None,
    split: tuple[float, float, float] = DEFAULT_CLASS_SPLIT,
) -> Workload:
    """Multi-GPU variant: GPU demand 1/2/4/8 with probabilities 0.70/0.10/0.15/0.05."""
    return Workload(
        name="multi-gpu",
        jobs=SyntheticStream(
            load_jobs_per_h, seed, True, split, max_jobs=max_jobs, catalog=catalog
        ),
        finite=max_jobs is not None,
        description=(
            f"Philly-derived multi-GPU (1/2/4/8 GPUs w.p. .70/.10/.15/.05), "
            f"{load_jobs_per_h:g} jobs/h Poisson, class split {_split_text(split)}, seed {seed}"
        ),
    )


def expected_work_s() -> float:
    """Mean duration at proportional share of the synthetic workloads (closed form)."""

    def mean_pow(a: float, b: float) -> float:
        return (10.0**b - 10.0**a) / ((b - a) * math.log(10.0))

    return 60.0 * (SHORT_PROB * mean_pow(*SHORT_EXP) + (1 - SHORT_PROB) * mean_pow(*LONG_EXP))
