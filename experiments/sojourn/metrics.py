"""Summary statistics over replications: means, percentiles and Student-t confidence intervals.

A replication's statistic is its own mean over jobs; the 95% interval is
mean +- t_{0.975, R-1} * s / sqrt(R) over the R replication means (None when R = 1).
Percentiles pool the jobs of every replication; each replication's own p90 and p99 of the
successful jobs' sojourn are kept too (`replication_p90_successful`, ...), for paired
comparisons of the tail.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedlab.experiments.sojourn.simulator import Run
from schedlab.experiments.stats import t_half_width

PERCENTILES = (50, 90, 99)


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, list[float] | None]:
    """Mean of replication values and its t-interval (None with fewer than two finite values)."""
    v = np.asarray([x for x in values if math.isfinite(x)], dtype=float)
    if v.size == 0:
        return float("nan"), None
    mean = float(v.mean())
    half = t_half_width(v, confidence)
    return mean, None if half is None else [mean - half, mean + half]


def _percentiles(x: np.ndarray) -> dict[str, float | None]:
    if x.size == 0:
        return {f"p{q}": None for q in PERCENTILES}
    vals = np.percentile(x, PERCENTILES)
    return {f"p{q}": float(v) for q, v in zip(PERCENTILES, vals, strict=True)}


def summarize(runs: Sequence[Run]) -> dict[str, Any]:
    """JSON-ready summary of replications of one policy on one workload setting."""
    succ_means, all_means, succ_p90, succ_p99 = [], [], [], []
    for r in runs:
        s = r.sojourn_s
        ok = r.success
        succ_means.append(float(s[ok].mean()) if ok.any() else float("nan"))
        all_means.append(float(s.mean()))
        p90, p99 = np.percentile(s[ok], (90, 99)) if ok.any() else (math.nan, math.nan)
        succ_p90.append(float(p90))
        succ_p99.append(float(p99))
    ms, cs = mean_ci(succ_means)
    ma, ca = mean_ci(all_means)
    mu, cu = mean_ci([r.utilization for r in runs])
    pooled_s = np.concatenate([r.sojourn_s[r.success] for r in runs])
    pooled_a = np.concatenate([r.sojourn_s for r in runs])
    pre = [r.preemptions for r in runs]
    return {
        "mean_sojourn_successful": ms,
        "ci95_successful": cs,
        "mean_sojourn_all": ma,
        "ci95_all": ca,
        "percentiles_successful": _percentiles(pooled_s),
        "percentiles_all": _percentiles(pooled_a),
        "utilization": mu,
        "ci95_utilization": cu,
        "preemptions": float(np.mean(pre)),
        "preemptions_total": int(np.sum(pre)),
        "successful_jobs": float(np.mean([r.success.sum() for r in runs])),
        "replication_means_successful": succ_means,
        "replication_means_all": all_means,
        "replication_p90_successful": succ_p90,
        "replication_p99_successful": succ_p99,
    }
