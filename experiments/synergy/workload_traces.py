"""Trace replays as named Synergy workloads: the Philly job file, Synergy-format trace files
and the shipped 100-job traces (the readers live in `traces.py`)."""

from __future__ import annotations

from schedlab.experiments.registry import register_workload
from schedlab.experiments.synergy.traces import (
    BUILTIN_TRACES,
    TRACE_SERVERS,
    builtin_trace,
    load_philly,
    load_synergy_trace,
)
from schedlab.experiments.synergy.workloads import SUBJECT, Workload, WorkloadRequest


def _first(wl: Workload, jobs: int | None) -> Workload:
    """Keep the first `jobs` jobs of a finite trace."""
    if jobs is not None:
        wl.jobs = list(wl.jobs)[:jobs]
    return wl


@register_workload(
    SUBJECT,
    "philly",
    summary="the Philly job file (--trace; default: the shipped 2,000-job sample)",
    trace="optional",
)
def _philly(req: WorkloadRequest) -> Workload:
    return load_philly(req.trace, max_gpus=req.max_gpus, max_jobs=req.jobs)


@register_workload(
    SUBJECT,
    "trace",
    summary="a Synergy-format trace file (--trace job_id,model_name,arrival_s,...)",
    trace="required",
    static_ok=True,
    default_servers=TRACE_SERVERS,
)
def _trace_file(req: WorkloadRequest) -> Workload:
    assert req.trace is not None
    wl = load_synergy_trace(req.trace, static=req.static, max_gpus=req.max_gpus)
    return _first(wl, req.jobs)


def _register_builtin(name: str) -> None:
    """Register the shipped trace `name` (one workload per file of `BUILTIN_TRACES`)."""
    kind = "all at time 0 (makespan)" if name.startswith("static") else "real arrivals"

    @register_workload(
        SUBJECT,
        name,
        summary=f"the shipped 100-job trace, {kind}",
        static_ok=True,
        default_servers=TRACE_SERVERS,
        tags=("builtin-trace",),
    )
    def build(req: WorkloadRequest) -> Workload:
        static = True if req.static else None
        return _first(builtin_trace(name, static=static, max_gpus=req.max_gpus), req.jobs)


for _name in BUILTIN_TRACES:
    _register_builtin(_name)
