"""`schedlab.synergy`: Synergy round snapshots to hand to `schedlab.solve`, generated or loaded.

A snapshot (`Snapshot`) is a cluster and the runnable jobs of one round in policy order; a
method allocates GPUs, CPUs and memory and the value is the total throughput. Thin: it
delegates to `generate` and `problem`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from schedlab.solvers.synergy.generate import GPU_MIXES, generate_snapshot
from schedlab.solvers.synergy.problem import Cluster, Job, Snapshot
from schedlab.solvers.validate import check_seed

__all__ = ["GPU_MIXES", "Cluster", "Job", "Snapshot", "generate", "load", "objective"]

#: The total throughput is maximized.
SENSE = "max"


def generate(
    *,
    jobs: int = 8,
    servers: int = 2,
    seed: int,
    gpu_mix: str = "single",
    task_mix: Sequence[float] = (0.2, 0.7, 0.1),
) -> Snapshot:
    """A seeded random snapshot of `jobs` runnable jobs on `servers` servers (8 GPUs, 24 CPUs,
    500 GB each); `gpu_mix` single (1 GPU each) or multi (1/2/4/8)."""
    check_seed(seed, allow_none=False)
    return generate_snapshot(servers, jobs, seed, gpu_mix=gpu_mix, task_mix=task_mix)


def load(path: str | Path) -> Snapshot:
    """The snapshot file at `path` (the CLI's format)."""
    return Snapshot.load(path)


def objective(snap: Snapshot) -> str:
    """The objective's name in results."""
    return "throughput"
