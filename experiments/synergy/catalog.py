"""What the workloads need to know about the profiled models: task class and iteration time.

A thin view over the model profiles that `solvers.synergy` ships (no second copy of the data).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from schedlab.solvers.synergy.profiles import ProfileSet, default_profiles

# Task classes in the order the Synergy simulator uses (ties in the class split go to the first).
TASKS: tuple[str, ...] = ("image", "language", "speech")


@dataclass(frozen=True)
class ModelCatalog:
    """Model name -> (task class, iteration time at proportional share), in profile order."""

    tasks: dict[str, str]
    iter_times_s: dict[str, float]

    @property
    def names(self) -> list[str]:
        return list(self.tasks)

    def models_of(self, task: str) -> list[str]:
        """Models of one task class, in profile order (the round-robin order)."""
        return [m for m, t in self.tasks.items() if t == task]

    def iter_time_s(self, model: str) -> float:
        return self.iter_times_s[model]

    def __contains__(self, model: object) -> bool:
        return model in self.tasks


def catalog_of(profiles: ProfileSet) -> ModelCatalog:
    """The catalog view of a profile set."""
    return ModelCatalog(
        tasks={m.name: m.task for m in profiles.models},
        iter_times_s={m.name: m.iter_time_s_at_proportional for m in profiles.models},
    )


@lru_cache(maxsize=1)
def default_catalog() -> ModelCatalog:
    """The ten profiled models of the Synergy simulator (`schedlab.solvers.synergy` profiles)."""
    return catalog_of(default_profiles())
