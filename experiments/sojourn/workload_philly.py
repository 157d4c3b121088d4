"""The Philly trace (Jeon et al., ATC 2019) as an online workload, with a documented outcome model.

The trace (`timestamp, duration, num_gpus, gpu_time, cluster`; one row per job; duration in
seconds; cluster = virtual-cluster id) gives arrivals, run lengths and GPU counts but no job
outcomes. Outcome model (OUTCOME_MODEL, also printed in the figure caption):

- success size m_i = the job's recorded duration d_i;
- checkpoint sizes = the 25/50/75% lower empirical quantiles of the durations in the job's
  virtual cluster (over the whole file read) that are strictly shorter than d_i, duplicates
  merged; when no job of the cluster is shorter, 25/50/75% of d_i;
- success probability pi = 0.624 (Helios GPU jobs completed, Hu et al. SC 2021) for every
  job by default; a success model (`success_models`: by GPU count, by virtual cluster, by
  duration class, with a heterogeneity h) makes pi depend on what the scheduler knows of the
  job while keeping the mean at 0.624; the remaining 1 - pi (22.1% cancelled + 15.5% failed
  on average: both leave early) is split equally over the job's checkpoints.

The trace is read by the one Philly reader, `schedlab.experiments.traces.philly` (formats,
validation); its shipped 2,000-job sample (`experiments/traces/data/philly_sample.csv`, see
ATTRIBUTION.md there) serves tests and the small figure; the full trace is read from a path.
A file without a `cluster` column is one virtual cluster.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.sojourn.success_models import describe, success_probs
from schedlab.experiments.sojourn.workload_model import Workload
from schedlab.experiments.traces.philly import SAMPLE_NAME, PhillyTrace, read_philly, sample_path
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.indices import Padded

OUTCOME_SHARES = {"completed": 0.624, "cancelled": 0.221, "failed": 0.155}
SUCCESS_PROB = OUTCOME_SHARES["completed"]
CHECKPOINT_QUANTILES = (0.25, 0.5, 0.75)
OUTCOME_MODEL = (
    "Philly outcome model: success size = recorded duration; checkpoints = 25/50/75% "
    "quantiles of shorter durations in the job's virtual cluster; P(success) = 0.624 on "
    "average (per job by the chosen success model), the rest split equally over checkpoints "
    "(Helios shares 62.4/22.1/15.5% completed/cancelled/failed)"
)

# The one Philly reader lives in experiments/traces/philly.py; these names stay for callers.
Trace = PhillyTrace
read_trace = read_philly
__all__ = [
    "CHECKPOINT_QUANTILES",
    "OUTCOME_MODEL",
    "OUTCOME_SHARES",
    "SAMPLE_NAME",
    "SUCCESS_PROB",
    "Trace",
    "outcome_model",
    "philly_workload",
    "read_trace",
    "sample_path",
]


def outcome_model(
    duration_s: np.ndarray,
    cluster: np.ndarray,
    *,
    success_prob: float | np.ndarray = SUCCESS_PROB,
    quantiles: tuple[float, ...] = CHECKPOINT_QUANTILES,
) -> Padded:
    """Checkpoint distributions from cluster duration histories (see the module docstring).

    `success_prob`: one probability for every job, or one per job.
    """
    n, C = len(duration_s), len(quantiles)
    pis = np.broadcast_to(np.asarray(success_prob, dtype=float), (n,))
    if not np.all((pis > 0) & (pis <= 1)):
        raise InvalidInput(
            f"success_prob: must be in (0, 1] (got {pis[~((pis > 0) & (pis <= 1))][:3]})"
        )
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
    fail = (1.0 - pis) / ncp
    probs = np.where(col < ncp[:, None], fail[:, None], 0.0)
    probs[np.arange(n), ncp] = pis
    return Padded(sizes, probs, (ncp + 1).astype(np.int64))


def philly_workload(
    trace: Trace,
    servers: int,
    *,
    jobs: int | None = None,
    load: float | None = None,
    success_prob: float = SUCCESS_PROB,
    success_model: str = "uniform",
    heterogeneity: float = 0.0,
) -> Workload:
    """The trace's first `jobs` jobs on `servers` GPUs; wider jobs excluded and counted.

    With `load`, inter-arrival times are rescaled so that sum g E[X] / (servers * span) = load.
    `success_model` and `heterogeneity` choose how the success probability depends on the
    job's features (`success_models`; calibrated to mean 0.624 over every job of the file);
    the default is `success_prob` for every job.
    """
    if servers < 1:
        raise InvalidInput(f"servers: must be at least 1 (got {servers})")
    pis: float | np.ndarray = success_prob
    if success_model != "uniform" and heterogeneity != 0:
        pis = success_probs(
            success_model,
            heterogeneity,
            trace.gpus,
            trace.duration_s,
            trace.cluster,
            trace.cluster_names,
        )
    dists = outcome_model(trace.duration_s, trace.cluster, success_prob=pis)
    meta = {
        "trace": trace.source,
        "trace_jobs": trace.n,
        "outcome_model": OUTCOME_MODEL,
        "success_model": success_model,
        "heterogeneity": heterogeneity,
        "success_description": describe(success_model, heterogeneity),
        "success_prob": float(np.mean(pis)),
        "cluster_column": getattr(trace, "has_cluster_column", True),
    }
    w = Workload(trace.arrival_s, trace.gpus, dists, name="philly", meta=meta)
    if jobs is not None:
        w = w.head(jobs)
    w = w.without_wide(servers)
    if load is not None:
        w = w.scaled_to_load(load, servers)
    return w
