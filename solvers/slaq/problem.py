"""An allocation snapshot of SLAQ: jobs with loss histories sharing C cores for one epoch.

JSON format (`load` / `loads` / `to_json`)::

    {"total_cores": 64, "epoch_s": 3.0, "min_cores": 3, "objective": "sum",
     "model": "auto", "decay": 0.8,
     "jobs": [{"id": "a", "losses": [2.3, 1.7, 1.2, ...], "core_s_per_iter": 4.0}, ...]}

A job with at most one loss point is *new*: it gets the fair share floor(C / J). The others
start at `min_cores`, capped at floor(C / J) so that the minimums always fit, and share the
remaining cores (all of them: allocations are work-conserving). `objective` ("sum" or
"maxmin") is the problem's kind.

Limits (the input door, `schedlab.solvers.validate`): at most `MAX_JOBS` jobs, `MAX_CORES`
cores, `MAX_LOSSES` loss values per job; losses, W_j and epoch_s finite with magnitude at
most `MAX_MAGNITUDE`; ids by `check_id`. The file is read by `load_json_file`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from types import SimpleNamespace
from typing import Any, ClassVar

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.serialize import JsonFile
from schedlab.solvers.slaq.curves import validate_losses
from schedlab.solvers.slaq.limits import MAX_CORES, MAX_EPOCH_S, MAX_JOBS, MAX_LOSSES
from schedlab.solvers.slaq.predict import MODELS
from schedlab.solvers.validate import check_id, check_number, short

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

    def __post_init__(self) -> None:
        problems = job_problems(self, "job", set())
        if problems:
            raise InvalidInput(problems)


def job_problems(j: Job, where: str, seen: set[str]) -> list[str]:
    """Problems of one job (id, losses, W_j); `seen` collects ids to report duplicates."""
    out = []
    bad_id = check_id(j.id, f"{where}.id")
    if bad_id:
        out.append(bad_id)
    else:
        where = f"{where} ({j.id})"
        if j.id in seen:
            out.append(f"{where}.id: duplicate id {j.id!r}; ids must be unique")
        seen.add(j.id)
    if not isinstance(j.losses, tuple | list):
        out.append(f"{where}.losses: must be a list of numbers")
    elif len(j.losses) > MAX_LOSSES:
        out.append(f"{where}.losses: at most {MAX_LOSSES:,} values (got {len(j.losses):,})")
    else:
        out += validate_losses(j.losses, f"{where}.losses")
    check_number(j.core_s_per_iter, f"{where}.core_s_per_iter", lo=0.0, lo_open=True, problems=out)
    return out


def header_problems(
    total_cores: Any, epoch_s: Any, min_cores: Any, objective: Any, model: Any, decay: Any
) -> list[str]:
    """Problems of a snapshot's fields other than its jobs."""
    out: list[str] = []
    for name, v in (("total_cores", total_cores), ("min_cores", min_cores)):
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_CORES:
            out.append(f"{name}: must be an integer in 0..{MAX_CORES:,} (got {short(v)})")
    check_number(epoch_s, "epoch_s", lo=0.0, hi=MAX_EPOCH_S, lo_open=True, problems=out)
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        out.append(f"objective: must be one of {', '.join(OBJECTIVES)} (got {short(objective)})")
    if not isinstance(model, str) or model not in MODELS:
        out.append(f"model: must be one of {', '.join(MODELS)} (got {short(model)})")
    check_number(decay, "decay", lo=0.0, hi=1.0, lo_open=True, problems=out)
    return out


@dataclass(frozen=True)
class Snapshot(JsonFile):
    """The jobs, the cores and the epoch of one SLAQ allocation."""

    subject: ClassVar[str] = "slaq"
    FILE_WHAT: ClassVar[str] = "the SLAQ snapshot"

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
        for msg in header_problems(
            self.total_cores, self.epoch_s, self.min_cores, self.objective, self.model, self.decay
        ):
            p.add(msg)
        if not self.jobs:
            p.add("jobs: needs at least one job")
        if len(self.jobs) > MAX_JOBS:
            p.add(f"jobs: at most {MAX_JOBS:,} jobs (got {len(self.jobs):,})")
            return p.items
        seen: set[str] = set()
        for i, j in enumerate(self.jobs):
            for msg in job_problems(j, f"jobs[{i}]", seen):
                p.add(msg)
            if len(p.items) > 50:
                p.add("more problems not listed")
                break
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
        seen: set[str] = set()
        if not isinstance(raw_jobs, list):
            problems.append("jobs: must be a list of {id, losses, core_s_per_iter}")
            raw_jobs = []
        if len(raw_jobs) > MAX_JOBS:
            raise InvalidInput(f"jobs: at most {MAX_JOBS:,} jobs (got {len(raw_jobs):,})")
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
            raw = SimpleNamespace(
                id=rj.get("id", ""),
                losses=tuple(losses),
                core_s_per_iter=rj.get("core_s_per_iter", 0.0),
            )
            bad = job_problems(raw, f"jobs[{i}]", seen)  # type: ignore[arg-type]
            if bad:
                problems += bad
            else:
                jobs.append(Job(raw.id, raw.losses, raw.core_s_per_iter))
        kwargs = {
            k: data[k] for k in ("epoch_s", "min_cores", "objective", "model", "decay") if k in data
        }
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            problems.append("meta: must be an object")
            meta = {}
        if problems:
            defaults = {
                f: getattr(cls, f) for f in ("epoch_s", "min_cores", "objective", "model", "decay")
            }
            head = {**defaults, **kwargs, "total_cores": data.get("total_cores", 0)}
            raise InvalidInput(problems + header_problems(**head))
        try:
            snap = cls(tuple(jobs), data.get("total_cores", 0), meta=dict(meta), **kwargs)
        except InvalidInput as exc:
            raise InvalidInput(problems + exc.problems) from None
        if problems:
            raise InvalidInput(problems)
        return snap

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["jobs"] = [{**asdict(j), "losses": list(j.losses)} for j in self.jobs]
        return d

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
