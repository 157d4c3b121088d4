"""The jobs of the Synergy simulator's synthetic workloads: `JobSpec`, the model choice
(`ClassAssigner`) and the Philly-derived duration and class-share constants.

Below both streams that draw them, ours (`workloads.SyntheticStream`) and the authors'
(`authors_stream.AuthorsStream`), so neither imports the other's module; every name stays
importable from `workloads`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from schedlab.experiments.synergy.catalog import TASKS, ModelCatalog, default_catalog

# Task-class shares of the default workload, in TASKS order (image, language, speech).
DEFAULT_CLASS_SPLIT: tuple[float, float, float] = (0.20, 0.70, 0.10)
# Durations at proportional share: w.p. 0.8 60*10^U(1.5, 3) s, else 60*10^U(3, 4) s.
SHORT_PROB = 0.8
SHORT_EXP = (1.5, 3.0)
LONG_EXP = (3.0, 4.0)


@dataclass(frozen=True)
class JobSpec:
    """One job: id (also its arrival rank), arrival time, model, GPU demand, work.

    `work_s` is the job's duration at the GPU-proportional share, in seconds.
    """

    job_id: int
    arrival_s: float
    model: str
    gpus: int
    work_s: float

    def iterations(self, catalog: ModelCatalog | None = None) -> float:
        """Training iterations of this job (work / iteration time at proportional share)."""
        cat = catalog or default_catalog()
        return self.work_s / cat.iter_time_s(self.model)


class ClassAssigner:
    """Model choice of the Synergy simulator: each new job goes to the task class furthest
    below its target share (ties: image, language, speech), models round-robin in a class."""

    def __init__(
        self,
        catalog: ModelCatalog,
        split: Sequence[float] = DEFAULT_CLASS_SPLIT,
    ) -> None:
        if len(split) != len(TASKS) or any(s < 0 for s in split) or sum(split) <= 0:
            raise ValueError(f"class split must be {len(TASKS)} non-negative shares")
        total = float(sum(split))
        self.targets = [s / total for s in split]
        self.models = [catalog.models_of(task) for task in TASKS]
        self.counts = [0] * len(TASKS)
        self.next_model = [0] * len(TASKS)
        self.assigned = 0

    def next(self) -> str:
        """Model name for the next job."""
        if self.assigned == 0:
            deficits = [0.0] * len(TASKS)  # as in Synergy: no share yet, so the first is image
        else:
            deficits = [
                t - c / self.assigned for t, c in zip(self.targets, self.counts, strict=True)
            ]
        best = 0
        for k in range(1, len(TASKS)):
            if deficits[k] > deficits[best] + 1e-12:
                best = k
        if not self.models[best]:
            raise ValueError(f"no model of task class {TASKS[best]!r} in the catalog")
        models = self.models[best]
        name = models[self.next_model[best] % len(models)]
        self.next_model[best] += 1
        self.counts[best] += 1
        self.assigned += 1
        return name
