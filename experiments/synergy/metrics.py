"""Job-completion-time statistics and cluster utilization of a simulation run.

JCT = completion time - arrival time, in hours. Statistics use the jobs whose id (arrival rank)
lies in the measurement window [start, end); percentiles are numpy's default (linear
interpolation between order statistics).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.experiments.synergy.workloads import DEFAULT_WINDOW


def resolve_window(
    requested: tuple[int, int] | None, n_jobs: int | None, *, open_stream: bool
) -> tuple[tuple[int, int], str]:
    """The measurement window actually used and a sentence saying why.

    Explicit windows are clipped to the jobs that exist. Without one: an endless stream uses
    [4000, 5000) (Synergy's steady-state window); a finite stream of at least 5000 jobs too;
    a shorter stream uses [0.4 N, 0.8 N) (warm-up 40%, later arrivals keep the load up); a
    trace (all jobs meant to finish) uses every job.
    """
    if requested is not None:
        a, b = requested
        if n_jobs is not None:
            b = min(b, n_jobs)
            a = min(a, b)
        if (a, b) != tuple(requested):
            return (a, b), f"jobs {a}-{b - 1} (requested {requested[0]}-{requested[1] - 1})"
        return (a, b), f"jobs {a}-{b - 1}"
    if n_jobs is None or (open_stream and n_jobs >= DEFAULT_WINDOW[1]):
        a, b = DEFAULT_WINDOW
        return (a, b), f"jobs {a}-{b - 1} (steady-state window)"
    if open_stream:
        a, b = int(0.4 * n_jobs), max(int(0.8 * n_jobs), int(0.4 * n_jobs) + 1)
        return (a, b), (
            f"jobs {a}-{b - 1} of {n_jobs} (fewer than {DEFAULT_WINDOW[1]} jobs: "
            "the window is [0.4 N, 0.8 N))"
        )
    return (0, n_jobs), f"all {n_jobs} jobs"


@dataclass(frozen=True)
class JctStats:
    """Mean, median and tail JCT (hours) of the measured jobs."""

    jobs_measured: int
    mean_h: float
    median_h: float
    p99_h: float
    p999_h: float
    max_h: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "jobs_measured": self.jobs_measured,
            "mean_jct_h": self.mean_h,
            "median_jct_h": self.median_h,
            "p99_jct_h": self.p99_h,
            "p999_jct_h": self.p999_h,
            "max_jct_h": self.max_h,
        }


def jct_stats(jct_s: np.ndarray) -> JctStats:
    """Statistics of JCTs given in seconds (NaN everywhere when there are none)."""
    x = np.asarray(jct_s, dtype=float) / 3600.0
    if x.size == 0:
        nan = math.nan
        return JctStats(0, nan, nan, nan, nan, nan)
    p50, p99, p999 = np.percentile(x, [50.0, 99.0, 99.9])
    return JctStats(
        int(x.size), float(x.mean()), float(p50), float(p99), float(p999), float(x.max())
    )


def cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF points (sorted values, fraction <= value)."""
    x = np.sort(np.asarray(values, dtype=float))
    return x, np.arange(1, x.size + 1) / max(x.size, 1)


@dataclass(frozen=True)
class Utilization:
    """Per-round allocated shares of GPUs, CPUs and memory (time-weighted within the round:
    a job that finishes mid-round holds its share only until it finishes)."""

    round_start_s: np.ndarray
    gpu: np.ndarray
    cpu: np.ndarray
    mem: np.ndarray
    running_jobs: np.ndarray
    queued_jobs: np.ndarray
    skipped_rounds: int = 0  # empty rounds jumped over (no runnable job), all shares 0
    # shares used: allocated but at most the model's ideal (what its profile can use; the
    # authors' simulator's "utilization" beside "allocation")
    cpu_used: np.ndarray | None = None
    mem_used: np.ndarray | None = None

    def mean(self) -> dict[str, float]:
        """Time-averaged shares over the whole run (skipped empty rounds count as 0)."""
        n = self.round_start_s.size + self.skipped_rounds
        if n == 0:
            nan = math.nan
            return {k: nan for k in ("gpu_util", "cpu_util", "mem_util", "cpu_used", "mem_used")}
        out = {
            "gpu_util": float(self.gpu.sum()) / n,
            "cpu_util": float(self.cpu.sum()) / n,
            "mem_util": float(self.mem.sum()) / n,
        }
        if self.cpu_used is not None and self.mem_used is not None:
            out["cpu_used"] = float(self.cpu_used.sum()) / n
            out["mem_used"] = float(self.mem_used.sum()) / n
        return out
