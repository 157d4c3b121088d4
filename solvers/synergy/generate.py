"""Seeded random round snapshots (a cluster and runnable jobs in policy order).

Distribution (documented, same seed -> same snapshot): each job's task class is image,
language or speech with probabilities `task_mix` (default 0.2/0.7/0.1, the Synergy simulator's
mix), its model uniform among the profiled models of that class; GPU demand 1 for
`gpu_mix="single"`, or 1/2/4/8 with probabilities 0.70/0.10/0.15/0.05 for `gpu_mix="multi"`;
remaining work `60 * 10**U(1.5, 3)` s with probability 0.8, else `60 * 10**U(3, 4)` s.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.synergy.problem import Cluster, Job, Snapshot
from schedlab.solvers.synergy.profiles import ProfileSet, default_profiles

TASKS = ("image", "language", "speech")
GPU_MIXES = {"single": ((1,), (1.0,)), "multi": ((1, 2, 4, 8), (0.70, 0.10, 0.15, 0.05))}


def generate_snapshot(
    servers: int,
    jobs: int,
    seed: int,
    *,
    gpu_mix: str = "single",
    task_mix: Sequence[float] = (0.2, 0.7, 0.1),
    cluster: Cluster | None = None,
    profiles: ProfileSet | None = None,
) -> Snapshot:
    """Random snapshot with `servers` servers (default shape 8 GPUs, 24 CPUs, 500 GB)."""
    problems = Problems()
    if servers < 1:
        problems.add(f"servers: must be at least 1 (got {servers})")
    if jobs < 0:
        problems.add(f"jobs: must be >= 0 (got {jobs})")
    if gpu_mix not in GPU_MIXES:
        problems.add(f"gpu_mix: must be one of {', '.join(GPU_MIXES)} (got {gpu_mix!r})")
    if len(task_mix) != 3 or any(p < 0 for p in task_mix) or sum(task_mix) <= 0:
        problems.add(f"task_mix: need 3 non-negative weights image/language/speech ({task_mix})")
    problems.raise_if_any()
    prof = profiles or default_profiles()
    base = cluster or Cluster()
    cl = Cluster(servers, base.gpus_per_server, base.cpus_per_server, base.mem_gb_per_server)
    by_task = {t: [m.name for m in prof.models if m.task == t] for t in TASKS}
    weights = np.array([w if by_task[t] else 0.0 for t, w in zip(TASKS, task_mix, strict=True)])
    if weights.sum() <= 0:
        raise InvalidInput("task_mix: no profiled model in any class with positive weight")
    weights = weights / weights.sum()
    sizes, probs = GPU_MIXES[gpu_mix]
    rng = np.random.default_rng(seed)
    out = []
    for i in range(jobs):
        task = TASKS[int(rng.choice(3, p=weights))]
        model = by_task[task][int(rng.integers(len(by_task[task])))]
        g = int(sizes[int(rng.choice(len(sizes), p=probs))])
        g = min(g, cl.total_gpus)
        lo, hi = (1.5, 3.0) if rng.random() < 0.8 else (3.0, 4.0)
        rem = float(60.0 * 10 ** rng.uniform(lo, hi))
        out.append(Job(f"j{i}", model, g, round(rem, 3)))
    meta = {
        "generator": "schedlab.solvers.synergy.generate.generate_snapshot",
        "seed": seed,
        "gpu_mix": gpu_mix,
        "task_mix": [float(x) for x in task_mix],
    }
    return Snapshot(cl, tuple(out), prof, name=f"snap-s{servers}-j{jobs}-seed{seed}", meta=meta)
