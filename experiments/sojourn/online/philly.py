"""The Philly trace (Jeon et al., ATC 2019) as an online workload, with a documented outcome model.

The trace (`timestamp, duration, num_gpus, gpu_time, cluster`; one row per job; duration in
seconds; cluster = virtual-cluster id) gives arrivals, run lengths and GPU counts but no job
outcomes. Outcome model (OUTCOME_MODEL, also printed in the figure caption):

- success size m_i = the job's recorded duration d_i;
- checkpoint sizes = the 25/50/75% lower empirical quantiles of the durations in the job's
  virtual cluster (over the whole file read) that are strictly shorter than d_i, duplicates
  merged; when no job of the cluster is shorter, 25/50/75% of d_i;
- success probability pi = 0.624 (Helios GPU jobs completed, Hu et al. SC 2021) for every
  job; the remaining 0.376 (22.1% cancelled + 15.5% failed: both leave early) is split
  equally over the job's checkpoints.

A shipped 2,000-job subsample (`experiments/sojourn/data/philly_sample.csv`, see ATTRIBUTION.md
there) serves tests and the small figure; the full trace is read from a path.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import numpy as np

from schedlab.experiments.sojourn.online.workload import Workload
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.indices import Padded

OUTCOME_SHARES = {"completed": 0.624, "cancelled": 0.221, "failed": 0.155}
SUCCESS_PROB = OUTCOME_SHARES["completed"]
CHECKPOINT_QUANTILES = (0.25, 0.5, 0.75)
REQUIRED_COLUMNS = ("timestamp", "duration", "num_gpus", "cluster")
SAMPLE_NAME = "philly_sample.csv"
MAX_REPORTED = 20
OUTCOME_MODEL = (
    "Philly outcome model: success size = recorded duration; checkpoints = 25/50/75% "
    "quantiles of shorter durations in the job's virtual cluster; P(success) = 0.624, "
    "0.376 split equally over checkpoints (Helios shares 62.4/22.1/15.5% "
    "completed/cancelled/failed)"
)
_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class Trace:
    """Parsed trace rows sorted by arrival (stable); `line` is each job's line in the file."""

    arrival_s: np.ndarray  # seconds since the first arrival
    duration_s: np.ndarray
    gpus: np.ndarray
    cluster: np.ndarray  # int codes
    cluster_names: tuple[str, ...]
    line: np.ndarray
    source: str

    @property
    def n(self) -> int:
        return len(self.arrival_s)


@contextmanager
def sample_path() -> Iterator[Path]:
    """Filesystem path of the shipped subsample (works from an installed package)."""
    ref = resources.files("schedlab.experiments.sojourn.data").joinpath(SAMPLE_NAME)
    with resources.as_file(ref) as p:
        yield Path(p)


def _parse_row(row: dict[str, str], line: int, problems: list[str]) -> tuple | None:
    """One row -> (seconds, duration, gpus, cluster), or None with the problems noted."""
    bad = len(problems)
    ts = (row.get("timestamp") or "").strip()
    try:
        dt = datetime.fromisoformat(ts)
        if dt.tzinfo is not None:  # aware: to naive UTC
            dt = dt.astimezone(UTC).replace(tzinfo=None)
        t = (dt - _EPOCH).total_seconds()
    except ValueError:
        problems.append(
            f"row {line}: field 'timestamp' is not a date-time like "
            f"2017-10-09 07:01:55 (got {ts!r})"
        )
        t = 0.0
    raw = (row.get("duration") or "").strip()
    try:
        d = float(raw)
        if not (math.isfinite(d) and d > 0):
            raise ValueError
    except ValueError:
        problems.append(
            f"row {line}: field 'duration' must be a positive number of seconds (got {raw!r})"
        )
        d = 0.0
    raw = (row.get("num_gpus") or "").strip()
    try:
        g = int(raw)
        if g < 1:
            raise ValueError
    except ValueError:
        problems.append(f"row {line}: field 'num_gpus' must be a positive integer (got {raw!r})")
        g = 0
    c = (row.get("cluster") or "").strip()
    if not c:
        problems.append(f"row {line}: field 'cluster' is empty; give the virtual-cluster id")
    return None if len(problems) > bad else (t, d, g, c)


def read_trace(path: str | Path) -> Trace:
    """Read and validate a Philly-format CSV; InvalidInput names the file, row and field."""
    p = Path(path)
    try:
        fh = open(p, newline="")
    except OSError as exc:
        raise InvalidInput(f"cannot read trace file: {exc.strerror}", source=str(p)) from None
    problems: list[str] = []
    rows: list[tuple] = []
    lines: list[int] = []
    with fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise InvalidInput(
                f"header: missing column(s) {missing}; need {', '.join(REQUIRED_COLUMNS)} "
                f"(got {header})",
                source=str(p),
            )
        try:
            for row in reader:
                line = reader.line_num
                if None in row or any(row.get(c) is None for c in REQUIRED_COLUMNS):
                    problems.append(f"row {line}: wrong number of fields (expected {len(header)})")
                else:
                    parsed = _parse_row(row, line, problems)
                    if parsed is not None:
                        rows.append(parsed)
                        lines.append(line)
                if len(problems) >= MAX_REPORTED:
                    problems.append(f"stopped after {MAX_REPORTED} problems")
                    break
        except (csv.Error, UnicodeDecodeError) as exc:
            problems.append(f"row {reader.line_num}: unreadable CSV ({exc})")
    if problems:
        raise InvalidInput(problems, source=str(p))
    if not rows:
        raise InvalidInput("no job rows after the header", source=str(p))
    t = np.array([r[0] for r in rows])
    order = np.argsort(t, kind="stable")
    names = sorted({r[3] for r in rows})
    code = {c: i for i, c in enumerate(names)}
    return Trace(
        arrival_s=t[order] - t[order[0]],
        duration_s=np.array([r[1] for r in rows])[order],
        gpus=np.array([r[2] for r in rows], dtype=np.int64)[order],
        cluster=np.array([code[r[3]] for r in rows], dtype=np.int64)[order],
        cluster_names=tuple(names),
        line=np.array(lines, dtype=np.int64)[order],
        source=str(p),
    )


def outcome_model(
    duration_s: np.ndarray,
    cluster: np.ndarray,
    *,
    success_prob: float = SUCCESS_PROB,
    quantiles: tuple[float, ...] = CHECKPOINT_QUANTILES,
) -> Padded:
    """Checkpoint distributions from cluster duration histories (see the module docstring)."""
    if not 0 < success_prob <= 1:
        raise InvalidInput(f"success_prob: must be in (0, 1] (got {success_prob})")
    n, C = len(duration_s), len(quantiles)
    q = np.asarray(quantiles, dtype=float)
    cps = np.empty((n, C))
    for c in np.unique(cluster):
        idx = np.flatnonzero(cluster == c)
        hist = np.sort(duration_s[idx])
        d = duration_s[idx]
        below = np.searchsorted(hist, d, side="left")  # durations strictly shorter
        pos = np.floor(q[None, :] * (np.maximum(below, 1) - 1)[:, None]).astype(np.int64)
        from_hist = hist[pos]
        cps[idx] = np.where(below[:, None] > 0, from_hist, q[None, :] * d[:, None])
    keep = np.ones((n, C), dtype=bool)
    keep[:, 1:] = cps[:, 1:] > cps[:, :-1]
    cps = np.sort(np.where(keep, cps, np.inf), axis=1)
    ncp = keep.sum(axis=1)
    sizes = np.where(np.isfinite(cps), cps, duration_s[:, None])
    sizes = np.concatenate([sizes, duration_s[:, None]], axis=1)
    col = np.arange(C + 1)[None, :]
    sizes = np.where(col >= ncp[:, None], duration_s[:, None], sizes)
    fail = (1.0 - success_prob) / ncp
    probs = np.where(col < ncp[:, None], fail[:, None], 0.0)
    probs[np.arange(n), ncp] = success_prob
    return Padded(sizes, probs, (ncp + 1).astype(np.int64))


def philly_workload(
    trace: Trace,
    servers: int,
    *,
    jobs: int | None = None,
    load: float | None = None,
    success_prob: float = SUCCESS_PROB,
) -> Workload:
    """The trace's first `jobs` jobs on `servers` GPUs; wider jobs excluded and counted.

    With `load`, inter-arrival times are rescaled so that sum g E[X] / (servers * span) = load.
    """
    if servers < 1:
        raise InvalidInput(f"servers: must be at least 1 (got {servers})")
    dists = outcome_model(trace.duration_s, trace.cluster, success_prob=success_prob)
    meta = {
        "trace": trace.source,
        "trace_jobs": trace.n,
        "outcome_model": OUTCOME_MODEL,
        "success_prob": success_prob,
    }
    w = Workload(trace.arrival_s, trace.gpus, dists, name="philly", meta=meta)
    if jobs is not None:
        w = w.head(jobs)
    w = w.without_wide(servers)
    if load is not None:
        w = w.scaled_to_load(load, servers)
    return w
