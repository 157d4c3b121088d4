"""`schedlab.slaq`: SLAQ snapshots to hand to `schedlab.solve`, generated or loaded.

A snapshot (`Snapshot`) is the jobs (their loss curves so far and costs) and the cores of one
allocation; a method shares the cores and the value is the predicted quality, summed ("sum")
or of the worst job ("maxmin"). Thin: it delegates to `generate` and `problem`.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.solvers.slaq.generate import generate_snapshot
from schedlab.solvers.slaq.problem import OBJECTIVES, Job, Snapshot

__all__ = ["OBJECTIVES", "Job", "Snapshot", "generate", "load", "objective"]

#: The quality is maximized.
SENSE = "max"


def generate(
    *,
    jobs: int = 8,
    cores: int = 32,
    seed: int,
    objective: str = "sum",
    max_prefix: int = 60,
) -> Snapshot:
    """A seeded snapshot of `jobs` jobs on `cores` cores, drawn from the shipped loss curves
    (the CLI's `slaq snapshot`), under `objective` (sum or maxmin)."""
    return generate_snapshot(jobs, cores, seed, objective=objective, max_prefix=max_prefix)


def load(path: str | Path, *, objective: str | None = None) -> Snapshot:
    """The snapshot file at `path` (the CLI's format); `objective` None keeps the file's."""
    snap = Snapshot.load(path)
    if objective is None or objective == snap.objective:
        return snap
    return snap.with_objective(objective)


def objective(snap: Snapshot) -> str:
    """The objective's name in results: "sum" or "maxmin" (of the predicted quality)."""
    return snap.objective
