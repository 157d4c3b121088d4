"""Replications of one policy on one workload: seeds, outcome draws, simulation, summary.

Replication r uses the r-th child of numpy's SeedSequence(seed).spawn(R). Its Generator
first builds the workload (synthetic: new jobs and arrivals; trace: fixed), then draws the
realized outcomes, so every policy sees the same jobs and outcomes for the same seed
(common random numbers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.experiments.sojourn.metrics import summarize
from schedlab.experiments.sojourn.policies.base import Policy
from schedlab.experiments.sojourn.simulator import Run, simulate
from schedlab.experiments.sojourn.workload_model import Workload
from schedlab.solvers.errors import InvalidInput

WorkloadSource = Workload | Callable[[np.random.Generator], Workload]


def quanta_and_keys(
    w: Workload, policy: Policy, levels: np.ndarray
) -> tuple[list[list[float]], list[list[float]]]:
    """Per-job quantum lengths and waiting keys for the simulator (see simulator docstring)."""
    K = policy.keys(w, levels)
    rows = np.arange(w.n)
    S = w.dists.sizes
    if not policy.preemptive:
        realized = S[rows, levels]
        return [[x] for x in realized.tolist()], [[k] for k in K[:, 0].tolist()]
    ages = np.zeros_like(S)
    ages[:, 1:] = S[:, :-1]
    Q = S - ages
    lv = (levels + 1).tolist()
    quanta = [q[:m] for q, m in zip(Q.tolist(), lv, strict=True)]
    keys = [k[:m] for k, m in zip(K.tolist(), lv, strict=True)]
    return quanta, keys


def run_once(
    w: Workload,
    policy: Policy,
    servers: int,
    rng: np.random.Generator,
    *,
    levels: np.ndarray | None = None,
    log: list[tuple[float, str, int]] | None = None,
) -> Run:
    """One replication on a fixed workload: draw outcomes (unless `levels` given), simulate."""
    if int(w.gpus.max()) > servers:
        raise InvalidInput(
            f"servers: {w.name} has jobs needing up to {int(w.gpus.max())} GPUs; "
            "exclude them first (Workload.without_wide) or add servers"
        )
    if levels is None:
        levels = w.sample_levels(rng)
    quanta, keys = quanta_and_keys(w, policy, levels)
    dep, pre, area, disp = simulate(w.arrival_s, w.gpus, quanta, keys, servers, log)
    rows = np.arange(w.n)
    return Run(
        arrival_s=w.arrival_s,
        departure_s=dep,
        success=levels == w.dists.counts - 1,
        gpus=w.gpus,
        realized_size=w.dists.sizes[rows, levels],
        preemptions=pre,
        busy_server_s=area,
        servers=servers,
        dispatches=disp,
    )


def replicate(
    source: WorkloadSource,
    policy: Policy,
    servers: int,
    *,
    seed: int,
    replications: int,
    progress: bool = False,
) -> tuple[list[Run], list[Workload]]:
    """R independent replications (seeds spawned from `seed`); tqdm bar on stderr if asked."""
    if replications < 1:
        raise InvalidInput(f"replications: must be at least 1 (got {replications})")
    if servers < 1:
        raise InvalidInput(f"servers: must be at least 1 (got {servers})")
    from tqdm import tqdm

    runs, loads = [], []
    children = np.random.SeedSequence(seed).spawn(replications)
    for child in tqdm(children, desc=policy.name, disable=None if progress else True, leave=False):
        rng = np.random.default_rng(child)
        w = source(rng) if callable(source) else source
        runs.append(run_once(w, policy, servers, rng))
        loads.append(w)
    return runs, loads


def evaluate_policy(
    source: WorkloadSource,
    policy: Policy,
    servers: int,
    *,
    seed: int,
    replications: int,
    progress: bool = False,
) -> dict[str, Any]:
    """Replicate and summarize; adds policy, servers, jobs, loads and runtime_s."""
    t0 = time.perf_counter()
    runs, ws = replicate(
        source, policy, servers, seed=seed, replications=replications, progress=progress
    )
    runtime = time.perf_counter() - t0
    out: dict[str, Any] = {
        "policy": policy.name,
        "policy_summary": policy.summary,
        "preemptive": policy.preemptive,
        "servers": servers,
        "jobs": int(np.mean([w.n for w in ws])),
        "excluded_jobs": int(max(w.excluded_jobs for w in ws)),
        "replications": replications,
        "seed": seed,
        "offered_load": float(np.mean([w.offered_load(servers) for w in ws])),
    }
    out.update(summarize(runs))
    out["runtime_s"] = runtime
    out["jobs_per_s"] = sum(w.n for w in ws) / runtime if runtime > 0 else None
    return out
