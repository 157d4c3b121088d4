"""An allocation snapshot of SLAQ: jobs with loss histories sharing C cores for one epoch.

JSON format (`from_json` / `to_json`)::

    {"total_cores": 64, "epoch_s": 3.0, "min_cores": 3, "objective": "sum",
     "model": "auto", "decay": 0.8,
     "jobs": [{"id": "a", "losses": [2.3, 1.7, 1.2, ...], "core_s_per_iter": 4.0}, ...]}

A job with at most one loss point is *new*: it gets the fair share floor(C / J). The others
start at `min_cores`, capped at floor(C / J) so that the minimums always fit, and share the
remaining cores (all of them: allocations are work-conserving). `objective` ("sum" or
"maxmin") is the problem's kind.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.slaq.curves import validate_losses
from schedlab.solvers.slaq.predict import MODELS
from schedlab.solvers.util import atomic_write_text

OBJECTIVES = ("sum", "maxmin")


@dataclass(frozen=True)
class Job:
    """A training job: its loss history (one value per finished iteration) and iteration cost."""

    id: str
    losses: tuple[float, ...]
    core_s_per_iter: float  # W_j: core-seconds per iteration

    @property
    def is_new(self) -> bool:
        return len(self.losses) <= 1


@dataclass(frozen=True)
class Snapshot:
    """The jobs, the cores and the epoch of one SLAQ allocation."""

    subject: ClassVar[str] = "slaq"

    jobs: tuple[Job, ...]
    total_cores: int
    epoch_s: float = 3.0
    min_cores: int = 3
    objective: str = "sum"
    model: str = "auto"
    decay: float = 0.8
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise InvalidInput(problems)

    @property
    def kind(self) -> str:
        return self.objective

    @property
    def fair_share(self) -> int:
        return self.total_cores // max(1, len(self.jobs))

    def base_cores(self) -> list[int]:
        """Cores every job gets before the rest is shared: fair share (new) or the minimum."""
        fair = self.fair_share
        return [fair if j.is_new else min(self.min_cores, fair) for j in self.jobs]

    def free_cores(self) -> int:
        """Cores the old jobs share beyond their minimums (0 when every job is new)."""
        if all(j.is_new for j in self.jobs):
            return 0
        return self.total_cores - sum(self.base_cores())

    def problems(self) -> list[str]:
        """Every problem of the snapshot (empty when valid)."""
        p = Problems()
        if not isinstance(self.total_cores, int) or self.total_cores < 0:
            p.add(f"total_cores: must be an integer >= 0 (got {self.total_cores!r})")
        if not (isinstance(self.epoch_s, int | float) and math.isfinite(self.epoch_s)) or (
            self.epoch_s <= 0
        ):
            p.add(f"epoch_s: must be a positive number of seconds (got {self.epoch_s!r})")
        if not isinstance(self.min_cores, int) or self.min_cores < 0:
            p.add(f"min_cores: must be an integer >= 0 (got {self.min_cores!r})")
        if self.objective not in OBJECTIVES:
            p.add(f"objective: must be one of {', '.join(OBJECTIVES)} (got {self.objective!r})")
        if self.model not in MODELS:
            p.add(f"model: must be one of {', '.join(MODELS)} (got {self.model!r})")
        if not (isinstance(self.decay, int | float) and 0 < self.decay <= 1):
            p.add(f"decay: must be in (0, 1] (got {self.decay!r})")
        if not self.jobs:
            p.add("jobs: needs at least one job")
        seen: set[str] = set()
        for i, j in enumerate(self.jobs):
            where = f"jobs[{i}]" + (f" ({j.id})" if j.id else "")
            if not j.id:
                p.add(f"{where}.id: must be a non-empty string")
            elif j.id in seen:
                p.add(f"{where}.id: duplicate id {j.id!r}; ids must be unique")
            seen.add(j.id)
            for msg in validate_losses(j.losses, f"{where}.losses"):
                p.add(msg)
            w = j.core_s_per_iter
            if not (isinstance(w, int | float) and math.isfinite(w) and w > 0):
                p.add(f"{where}.core_s_per_iter: must be a positive number (got {w!r})")
        return p.items

    # ---- JSON --------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> Snapshot:
        """Build from a JSON-like dict; every problem is reported in one InvalidInput."""
        if not isinstance(data, dict):
            raise InvalidInput("snapshot: must be a JSON object with 'jobs' and 'total_cores'")
        known = {
            "jobs",
            "total_cores",
            "epoch_s",
            "min_cores",
            "objective",
            "model",
            "decay",
            "meta",
        }
        problems = [
            f"{k}: unknown field; fields: {', '.join(sorted(known))}"
            for k in data
            if k not in known
        ]
        if "total_cores" not in data:
            problems.append("total_cores: missing (the number of cores to share)")
        raw_jobs = data.get("jobs")
        jobs = []
        if not isinstance(raw_jobs, list):
            problems.append("jobs: must be a list of {id, losses, core_s_per_iter}")
            raw_jobs = []
        for i, rj in enumerate(raw_jobs):
            if not isinstance(rj, dict):
                problems.append(f"jobs[{i}]: must be an object {{id, losses, core_s_per_iter}}")
                continue
            extra = [k for k in rj if k not in ("id", "losses", "core_s_per_iter")]
            problems += [f"jobs[{i}].{k}: unknown field" for k in extra]
            losses = rj.get("losses")
            if not isinstance(losses, list):
                problems.append(f"jobs[{i}].losses: must be a list of numbers")
                losses = []
            jobs.append(Job(str(rj.get("id", "")), tuple(losses), rj.get("core_s_per_iter", 0.0)))
        kwargs = {
            k: data[k] for k in ("epoch_s", "min_cores", "objective", "model", "decay") if k in data
        }
        try:
            snap = cls(
                tuple(jobs), data.get("total_cores", 0), meta=dict(data.get("meta", {})), **kwargs
            )
        except InvalidInput as exc:
            raise InvalidInput(problems + exc.problems) from None
        if problems:
            raise InvalidInput(problems)
        return snap

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["jobs"] = [{**asdict(j), "losses": list(j.losses)} for j in self.jobs]
        return d

    @classmethod
    def from_json(cls, path: str | Path) -> Snapshot:
        p = Path(path)
        try:
            data = json.loads(p.read_text())
        except OSError as exc:
            raise InvalidInput(f"cannot read snapshot ({exc.strerror})", source=str(p)) from None
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"not valid JSON: {exc}", source=str(p)) from None
        try:
            return cls.from_dict(data)
        except InvalidInput as exc:
            raise exc.with_source(str(p)) from None

    def to_json(self, path: str | Path) -> None:
        atomic_write_text(Path(path), json.dumps(self.to_dict(), indent=1) + "\n")

    def with_objective(self, objective: str) -> Snapshot:
        """The same snapshot with another objective."""
        d = self.to_dict()
        d["objective"] = objective
        return Snapshot.from_dict(d)


@dataclass(frozen=True)
class Allocation:
    """Cores per job (by job order) and the quality each gets."""

    job_ids: tuple[str, ...]
    cores: tuple[int, ...]
    quality: tuple[float | None, ...]  # None for new jobs (no prediction)

    def to_dict(self) -> dict[str, Any]:
        return {
            "cores": dict(zip(self.job_ids, self.cores, strict=True)),
            "quality": dict(zip(self.job_ids, self.quality, strict=True)),
        }
