"""Round snapshots: a cluster of identical servers and the runnable jobs in policy order.

JSON layout (every field but `jobs` optional)::

    {"name": "example",
     "cluster": {"servers": 16, "gpus_per_server": 8, "cpus_per_server": 24,
                 "mem_gb_per_server": 500},
     "jobs": [{"id": "j0", "model": "res18", "gpus": 1, "remaining_s": 3600}, ...],
     "profiles": {...profiles.json layout; default: the shipped Synergy profiles...},
     "meta": {}}

Jobs are listed in policy order (the order allocators serve them). `remaining_s` (optional) is
the work left, in seconds at the profiles' normalization point; allocators ignore it, policies
and the simulator use it. Snapshots are immutable and validated on construction, every problem
reported at once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.serialize import (
    JobListFile,
    duplicate_ids,
    id_problems,
    name_and_meta,
    unknown_fields,
)
from schedlab.solvers.synergy.profiles import ProfileSet, default_profiles
from schedlab.solvers.validate import MAX_MAGNITUDE, check_id, short

#: Input rules (docs/architecture.md): servers 1..MAX_SERVERS, GPUs per server 1..MAX_GPUS_PER_
#: SERVER, CPUs and GB per server in (0, MAX_MAGNITUDE], at most MAX_JOBS jobs, remaining work
#: at most MAX_MAGNITUDE seconds: totals (GPUs x throughput x servers) stay finite.
MAX_SERVERS = 100_000
MAX_GPUS_PER_SERVER = 1_024
MAX_JOBS = 1_000_000
_INT_LIMITS = {"servers": MAX_SERVERS, "gpus_per_server": MAX_GPUS_PER_SERVER}


def _is_num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


@dataclass(frozen=True)
class Cluster:
    """`servers` identical servers, each with GPUs, CPUs and memory (GB)."""

    servers: int = 16
    gpus_per_server: int = 8
    cpus_per_server: float = 24.0
    mem_gb_per_server: float = 500.0

    @property
    def total_gpus(self) -> int:
        return self.servers * self.gpus_per_server

    @property
    def prop_cpus_per_gpu(self) -> float:
        """CPUs per GPU under GPU-proportional allocation (3 by default)."""
        return self.cpus_per_server / self.gpus_per_server

    @property
    def prop_mem_gb_per_gpu(self) -> float:
        """GB per GPU under GPU-proportional allocation (62.5 by default)."""
        return self.mem_gb_per_server / self.gpus_per_server

    def to_dict(self) -> dict[str, Any]:
        return {
            "servers": self.servers,
            "gpus_per_server": self.gpus_per_server,
            "cpus_per_server": self.cpus_per_server,
            "mem_gb_per_server": self.mem_gb_per_server,
        }

    def problems(self, profiles: ProfileSet) -> list[str]:
        """Every problem with this cluster (empty when valid), checked against `profiles`."""
        out = []
        for key in ("servers", "gpus_per_server"):
            v = getattr(self, key)
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= _INT_LIMITS[key]:
                out.append(
                    f"cluster: field '{key}' must be an integer in 1..{_INT_LIMITS[key]} "
                    f"(got {short(v)})"
                )
        for key in ("cpus_per_server", "mem_gb_per_server"):
            v = getattr(self, key)
            if not _is_num(v) or not math.isfinite(v) or not 0 < v <= MAX_MAGNITUDE:
                out.append(
                    f"cluster: field '{key}' must be a number in (0, {MAX_MAGNITUDE:g}] "
                    f"(got {short(v)})"
                )
        if out:
            return out
        if self.prop_cpus_per_gpu < profiles.cpu_values[0] - 1e-9:
            out.append(
                f"cluster: proportional share {self.prop_cpus_per_gpu:g} CPUs per GPU is below "
                f"the smallest profiled value {profiles.cpu_values[0]:g}; give at least "
                f"{profiles.cpu_values[0] * self.gpus_per_server:g} CPUs per server"
            )
        if self.prop_mem_gb_per_gpu < profiles.mem_values[0] - 1e-9:
            out.append(
                f"cluster: proportional share {self.prop_mem_gb_per_gpu:g} GB per GPU is below "
                f"the smallest profiled value {profiles.mem_values[0]:g}; give at least "
                f"{profiles.mem_values[0] * self.gpus_per_server:g} GB per server"
            )
        return out

    @classmethod
    def from_dict(cls, raw: Any, problems: Problems) -> Cluster:
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            problems.add(f"cluster: must be an object (got {raw!r})")
            return cls()
        allowed = {"servers", "gpus_per_server", "cpus_per_server", "mem_gb_per_server"}
        unknown = set(raw) - allowed
        if unknown:
            problems.add(
                f"cluster: unknown field(s) {sorted(unknown)}; "
                f"allowed: {', '.join(sorted(allowed))}"
            )
        d = cls()
        vals: dict[str, Any] = {}
        for key in sorted(allowed):
            v = raw.get(key, getattr(d, key))
            if key in ("servers", "gpus_per_server"):
                if isinstance(v, float) and v.is_integer():
                    v = int(v)
                if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= _INT_LIMITS[key]:
                    problems.add(
                        f"cluster: field '{key}' must be an integer in 1..{_INT_LIMITS[key]} "
                        f"(got {short(v)})"
                    )
                    v = getattr(d, key)
            elif not _is_num(v) or not math.isfinite(v) or not 0 < v <= MAX_MAGNITUDE:
                problems.add(
                    f"cluster: field '{key}' must be a number in (0, {MAX_MAGNITUDE:g}] "
                    f"(got {short(v)})"
                )
                v = getattr(d, key)
            vals[key] = v
        return cls(
            int(vals["servers"]),
            int(vals["gpus_per_server"]),
            float(vals["cpus_per_server"]),
            float(vals["mem_gb_per_server"]),
        )


@dataclass(frozen=True)
class Job:
    """A runnable job: its model profile name, GPU demand and (optional) remaining work."""

    id: str
    model: str
    gpus: int = 1
    remaining_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "model": self.model, "gpus": self.gpus}
        if self.remaining_s is not None:
            d["remaining_s"] = self.remaining_s
        return d


_JOB_FIELDS = ("id", "model", "gpus", "remaining_s")


def _check_job(
    raw: Any, index: int, profiles: ProfileSet, cluster: Cluster, problems: Problems
) -> Job | None:
    if not isinstance(raw, Mapping):
        problems.add(f"job #{index}: must be an object with 'model' and 'gpus'")
        return None
    label = f"job #{index}"
    jid = raw.get("id", f"j{index}")
    bad_id = check_id(jid, f"{label}: field 'id'")
    if bad_id:
        problems.add(bad_id)
        jid = f"j{index}"
    else:
        label = f"job {jid!r}"
    unknown = set(raw) - set(_JOB_FIELDS)
    if unknown:
        problems.add(
            f"{label}: unknown field(s) {sorted(unknown)}; allowed: {', '.join(_JOB_FIELDS)}"
        )
    ok = True
    model = raw.get("model")
    if model is None:
        problems.add(f"{label}: field 'model' is missing; one of: {', '.join(profiles.names)}")
        ok = False
    elif not isinstance(model, str) or model not in profiles:
        problems.add(
            f"{label}: field 'model' is {model!r}, not a profiled model; "
            f"one of: {', '.join(profiles.names)}"
        )
        ok = False
    gpus = raw.get("gpus", 1)
    if isinstance(gpus, float) and gpus.is_integer():
        gpus = int(gpus)
    if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 1:
        problems.add(f"{label}: field 'gpus' must be a positive integer (got {short(gpus)})")
        ok = False
    elif gpus > cluster.total_gpus:
        problems.add(
            f"{label}: field 'gpus' is {gpus}, more than the cluster's {cluster.total_gpus} GPUs"
        )
        ok = False
    rem = raw.get("remaining_s")
    if rem is not None and (
        not _is_num(rem) or not math.isfinite(rem) or not 0 <= rem <= MAX_MAGNITUDE
    ):
        problems.add(
            f"{label}: field 'remaining_s' must be a number in [0, {MAX_MAGNITUDE:g}] "
            f"(got {short(rem)})"
        )
        ok = False
    if not ok:
        return None
    return Job(jid, str(model), int(gpus), None if rem is None else float(rem))


@dataclass(frozen=True)
class Snapshot(JobListFile):
    """One scheduling round: cluster, runnable jobs in policy order, and the profiles.

    A problem of `schedlab.solvers.solve.solve`: subject "synergy", kind "throughput" (every
    method maximizes the total throughput of the round)."""

    subject: ClassVar[str] = "synergy"
    FILE_WHAT: ClassVar[str] = "snapshot file"

    cluster: Cluster
    jobs: tuple[Job, ...]
    profiles: ProfileSet = field(default_factory=default_profiles)
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problems = Problems()
        for p in self.cluster.problems(self.profiles):
            problems.add(p)
        if len(self.jobs) > MAX_JOBS:
            problems.add(f"field 'jobs' has {len(self.jobs)} jobs (at most {MAX_JOBS})")
        id_problems((j.id for j in self.jobs), problems)
        for j in self.jobs:
            if j.model not in self.profiles:
                problems.add(f"job {j.id!r}: field 'model' is {j.model!r}, not a profiled model")
            if j.gpus < 1 or j.gpus > self.cluster.total_gpus:
                problems.add(f"job {j.id!r}: field 'gpus' must be in 1..{self.cluster.total_gpus}")
        problems.raise_if_any()

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> Snapshot:
        """Build from a parsed JSON object, reporting every problem at once."""
        if not isinstance(data, Mapping):
            raise InvalidInput("top level must be an object with a 'jobs' list")
        problems = Problems()
        unknown_fields(data, ("name", "cluster", "jobs", "profiles", "meta"), problems)
        profiles = default_profiles()
        if data.get("profiles") is not None:
            try:
                profiles = ProfileSet.from_dict(data["profiles"])
            except InvalidInput as exc:
                for p in exc.problems:
                    problems.add(p)
        cluster = Cluster.from_dict(data.get("cluster"), problems)
        if not problems:
            for p in cluster.problems(profiles):
                problems.add(p)
        raw_jobs = data.get("jobs")
        if not isinstance(raw_jobs, Sequence) or isinstance(raw_jobs, str):
            problems.add("field 'jobs' must be a list of job objects")
            raw_jobs = []
        elif len(raw_jobs) > MAX_JOBS:
            problems.add(f"field 'jobs' has {len(raw_jobs)} jobs (at most {MAX_JOBS})")
            raw_jobs = []
        jobs = [_check_job(r, i, profiles, cluster, problems) for i, r in enumerate(raw_jobs)]
        duplicate_ids([j.id for j in jobs if j is not None], problems)
        name, meta = name_and_meta(data, problems)
        problems.raise_if_any()
        return cls(cluster, tuple(j for j in jobs if j is not None), profiles, name=name, meta=meta)

    # ---- serialization ------------------------------------------------------------------
    def to_dict(self, *, include_profiles: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.name is not None:
            d["name"] = self.name
        d["cluster"] = self.cluster.to_dict()
        d["jobs"] = [j.to_dict() for j in self.jobs]
        if include_profiles or self.profiles != default_profiles():
            d["profiles"] = self.profiles.to_dict()
        if self.meta:
            d["meta"] = dict(self.meta)
        return d

    # ---- derived ------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """The objective every Synergy method maximizes: total throughput."""
        return "throughput"

    def model_indices(self) -> list[int]:
        return [self.profiles.index(j.model) for j in self.jobs]

    def gpu_demands(self) -> list[int]:
        return [j.gpus for j in self.jobs]

    def proportional_set(self) -> list[int]:
        """Positions of the jobs GPU-proportional runs this round (the jobs every exact
        allocation must run): in policy order, each job whose GPUs still fit cluster-wide."""
        free = self.cluster.total_gpus
        out = []
        for i, j in enumerate(self.jobs):
            if j.gpus <= free:
                out.append(i)
                free -= j.gpus
        return out
