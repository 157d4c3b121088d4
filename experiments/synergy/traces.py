"""Trace loaders: Synergy's 100-job replay traces and the Philly job file.

The Philly file is read by the one Philly reader, `schedlab.experiments.traces.philly`
(shared with the sojourn subject, with its shipped sample); this module adapts it. Both raise
`InvalidInput` naming the file, the row (1-based line number) and the field, and list every
bad row found (up to a limit), so a user fixes a file in one pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from schedlab.experiments.synergy.catalog import ModelCatalog, default_catalog
from schedlab.experiments.synergy.workloads import (
    DEFAULT_CLASS_SPLIT,
    ClassAssigner,
    JobSpec,
    Workload,
)
from schedlab.experiments.traces.philly import MAX_GPUS, positive_int, read_philly, read_sample
from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.validate import MAX_MAGNITUDE, read_text_file

# Shipped copies (see experiments/synergy/data/ATTRIBUTION.md).
BUILTIN_TRACES: dict[str, str] = {
    "static-100job": "static_100job.csv",
    "dynamic-100job": "dynamic_100job.csv",
}
SYNERGY_FIELDS = ("job_id", "model_name", "arrival_s", "num_iterations", "gpu_demand")
TRACE_SERVERS = 4  # the physical cluster of Synergy's trace experiments (32 GPUs)
_MAX_PROBLEMS = 20


def data_path(name: str) -> Path:
    """Path of a file shipped in experiments/synergy/data."""
    return Path(str(resources.files("schedlab.experiments.synergy.data").joinpath(name)))


def _read_lines(path: Path) -> list[str]:
    """The file's lines (UTF-8, a BOM dropped; the door's rules: `read_text_file`)."""
    return read_text_file(path, "the trace file").splitlines()


def _finite(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


Row = tuple[float, int, str, float, int]  # (arrival_s, line, model, iterations, gpus)


def _parse_row(cells: list[str], lineno: int, cat: ModelCatalog, problems: Problems) -> Row | None:
    """One data row as (arrival, line, model, iterations, gpus), or None after naming problems."""
    where = f"row {lineno}"
    if len(cells) != len(SYNERGY_FIELDS):
        problems.add(
            f"{where}: expected {len(SYNERGY_FIELDS)} fields "
            f"({','.join(SYNERGY_FIELDS)}), found {len(cells)}"
        )
        return None
    _job_id, model, arrival_t, iters_t, gpus_t = cells
    arrival, iters, gpus = _finite(arrival_t), _finite(iters_t), positive_int(gpus_t)
    before = len(problems.items)
    if model not in cat:
        problems.add(
            f"{where}, field model_name: unknown model {model!r}; "
            f"choose one of: {', '.join(cat.names)}"
        )
    if arrival is None or not 0 <= arrival <= MAX_MAGNITUDE:
        problems.add(
            f"{where}, field arrival_s: {arrival_t[:40]!r} is not a time in "
            f"[0, {MAX_MAGNITUDE:g}] seconds"
        )
    if iters is None or not 0 < iters <= MAX_MAGNITUDE:
        problems.add(
            f"{where}, field num_iterations: {iters_t[:40]!r} is not a number in "
            f"(0, {MAX_MAGNITUDE:g}]"
        )
    if gpus is None:
        problems.add(
            f"{where}, field gpu_demand: {gpus_t[:40]!r} is not an integer in 1..{MAX_GPUS}"
        )
    if len(problems.items) > before or arrival is None or iters is None or gpus is None:
        return None
    return (arrival, lineno, model, iters, gpus)


def _read_rows(path: Path, cat: ModelCatalog) -> list[Row]:
    """Every valid row of a trace file; InvalidInput listing the bad ones (up to a cap)."""
    problems = Problems()
    rows: list[Row] = []
    seen_data = False
    for lineno, line in enumerate(_read_lines(path), start=1):
        if len(problems.items) >= _MAX_PROBLEMS:
            problems.add("... (more problems not listed)")
            break
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        cells = [c.strip() for c in text.split(",")]
        if not seen_data and cells[0].lower() == "job_id":
            seen_data = True
            continue  # optional header (the first line that is not blank or a comment)
        seen_data = True
        row = _parse_row(cells, lineno, cat, problems)
        if row is not None:
            rows.append(row)
    problems.raise_if_any(str(path))
    if not rows:
        raise InvalidInput("no jobs in the trace; expected one job per line", source=str(path))
    return rows


def load_synergy_trace(
    path: Path | str,
    *,
    static: bool = False,
    max_gpus: int | None = None,
    catalog: ModelCatalog | None = None,
    name: str | None = None,
) -> Workload:
    """Load a `job_id,model_name,arrival_s,num_iterations,gpu_demand` trace (header optional).

    Work = num_iterations x the model's iteration time at proportional share. With `static`,
    every job arrives at time 0 (the file's arrival times are ignored). Jobs needing more than
    `max_gpus` GPUs are excluded and counted. Job ids are re-numbered by arrival order; the
    file's id is kept only for error messages.
    """
    cat = catalog or default_catalog()
    path = Path(path)
    rows = [(0.0 if static else r[0], *r[1:]) for r in _read_rows(path, cat)]
    rows.sort(key=lambda r: (r[0], r[1]))
    jobs: list[JobSpec] = []
    excluded = 0
    for arrival, _, model, iters, gpus in rows:
        if max_gpus is not None and gpus > max_gpus:
            excluded += 1
            continue
        jobs.append(JobSpec(len(jobs), arrival, model, gpus, iters * cat.iter_time_s(model)))
    if not jobs:
        raise InvalidInput(
            f"no job fits a cluster of {max_gpus} GPUs ({excluded} job(s) need more); give "
            "more --servers or smaller gpu_demand",
            source=str(path),
        )
    kind = "static (all at time 0)" if static else "dynamic"
    return Workload(
        name=name or path.stem,
        jobs=jobs,
        finite=True,
        description=f"trace {path.name}, {len(jobs)} jobs, {kind}",
        default_servers=TRACE_SERVERS,
        static=static,
        excluded=excluded,
    )


def builtin_trace(name: str, *, static: bool | None = None, **kw: object) -> Workload:
    """One of the shipped 100-job traces by name ('static-100job' or 'dynamic-100job')."""
    if name not in BUILTIN_TRACES:
        raise InvalidInput(
            f"trace: unknown built-in trace {name!r}; choose one of: {', '.join(BUILTIN_TRACES)}"
        )
    is_static = name.startswith("static") if static is None else static
    return load_synergy_trace(
        data_path(BUILTIN_TRACES[name]),
        static=is_static,
        name=name,
        **kw,  # type: ignore[arg-type]
    )


def load_philly(
    path: Path | str | None = None,
    *,
    max_gpus: int,
    max_jobs: int | None = None,
    split: Sequence[float] = DEFAULT_CLASS_SPLIT,
    catalog: ModelCatalog | None = None,
) -> Workload:
    """Load a Philly job file (read by `schedlab.experiments.traces.philly`, which see).

    Jobs are sorted by submission time; arrivals are seconds since the first kept job; the
    duration (s) is the job's work at proportional share; GPU counts are kept. Jobs needing
    more than `max_gpus` GPUs are excluded and counted. Models are assigned as in the
    synthetic workloads (the trace has none). `max_jobs` keeps the first N jobs by arrival.
    Without a path, the shipped 2,000-job sample is used.
    """
    cat = catalog or default_catalog()
    trace = read_philly(path) if path is not None else read_sample()
    label = Path(path).name if path is not None else trace.source
    fits = trace.gpus <= max_gpus
    kept = np.flatnonzero(fits)
    excluded = int(trace.n - kept.size)
    if max_jobs is not None:
        kept = kept[:max_jobs]
    if kept.size == 0:
        raise InvalidInput(
            f"no job fits a cluster of {max_gpus} GPUs ({excluded} excluded)", source=trace.source
        )
    arrival = trace.arrival_s[kept] - trace.arrival_s[kept[0]]
    assigner = ClassAssigner(cat, split)
    jobs = [
        JobSpec(k, float(t), assigner.next(), int(g), float(d))
        for k, (t, g, d) in enumerate(
            zip(arrival, trace.gpus[kept], trace.duration_s[kept], strict=True)
        )
    ]
    notes = []
    if excluded:
        notes.append(f"{excluded} job(s) need more than {max_gpus} GPUs and were excluded")
    return Workload(
        name="philly",
        jobs=jobs,
        finite=True,
        description=f"Philly jobs from {label}: {len(jobs)} jobs, real arrivals",
        excluded=excluded,
        notes=notes,
    )
