"""Allocations of one round, their throughput, and the validator.

An allocation gives each running job GPUs on one or more servers and, on each of those servers,
CPUs and memory. Throughput rule (documented model): a job must get exactly its GPU demand, and
the same CPUs and memory *per GPU* on every server it spans (its per-GPU configuration (c, m));
it then runs at `gpus * tput(c, m)`, where `tput` is its profile's normalized per-GPU
throughput (a step function of the grid, see `profiles.py`). No penalty for spanning servers.
The value of an allocation is the total throughput of the jobs it runs.

JSON: ``{"jobs": [{"id": "j0", "parts": [{"server": 0, "gpus": 1, "cpus": 3, "mem_gb": 62.5}]}]}``
(servers numbered from 0; jobs not listed do not run this round).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.synergy.problem import Job, Snapshot
from schedlab.solvers.synergy.profiles import TPUT_TOL

CAP_RTOL = 1e-9  # relative tolerance of capacity checks (floating sums of 20.83 GB ...)


def capacity_limit(capacity: float) -> float:
    """The most a server may use of a resource of `capacity`: capacity (1 + CAP_RTOL) + 1e-9.
    The validator's rule, which every method (heuristic or exact) and its pre-filters use, so
    that all call the same allocations feasible."""
    return capacity * (1 + CAP_RTOL) + 1e-9


@dataclass(frozen=True)
class Part:
    """The GPUs, CPUs and memory (GB) a job gets on one server."""

    server: int
    gpus: int
    cpus: float
    mem_gb: float

    def to_dict(self) -> dict[str, Any]:
        return {"server": self.server, "gpus": self.gpus, "cpus": self.cpus, "mem_gb": self.mem_gb}


@dataclass(frozen=True)
class JobAllocation:
    """One running job and its parts (one per server it spans). `tput_per_gpu` is filled by
    the solvers (their JSON shows the configuration and throughput); it takes no part in
    equality."""

    job_id: str
    parts: tuple[Part, ...]
    tput_per_gpu: float | None = field(default=None, compare=False)

    @property
    def gpus(self) -> int:
        return sum(p.gpus for p in self.parts)

    @property
    def cpus_per_gpu(self) -> float:
        return self.parts[0].cpus / self.parts[0].gpus

    @property
    def mem_gb_per_gpu(self) -> float:
        return self.parts[0].mem_gb / self.parts[0].gpus

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.job_id, "parts": [p.to_dict() for p in self.parts]}
        if self.tput_per_gpu is not None:
            d["cpus_per_gpu"] = self.cpus_per_gpu
            d["mem_gb_per_gpu"] = self.mem_gb_per_gpu
            d["tput_per_gpu"] = self.tput_per_gpu
        return d

    @classmethod
    def uniform(
        cls, job_id: str, cpus_per_gpu: float, mem_gb_per_gpu: float, gpus_by_server: Sequence
    ) -> JobAllocation:
        """Parts with the same per-GPU configuration on every server: [(server, gpus), ...]."""
        parts = tuple(
            Part(int(s), int(g), float(g * cpus_per_gpu), float(g * mem_gb_per_gpu))
            for s, g in gpus_by_server
            if g > 0
        )
        return cls(job_id, parts)


@dataclass(frozen=True)
class Allocation:
    """The running jobs of one round (jobs not listed do not run).

    A solver's result carries the annotated form (`annotated`): jobs in policy order with their
    per-GPU throughput, and `not_run`, the ids of the snapshot's other jobs; annotations take
    no part in equality, and `to_dict()` then gives the solvers' JSON solution."""

    jobs: tuple[JobAllocation, ...]
    not_run: tuple[str, ...] | None = field(default=None, compare=False)

    def by_id(self) -> dict[str, JobAllocation]:
        return {a.job_id: a for a in self.jobs}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"jobs": [a.to_dict() for a in self.jobs]}
        if self.not_run is not None:
            d["not_run"] = list(self.not_run)
        return d

    def annotated(self, snap: Snapshot) -> Allocation:
        """This allocation with jobs in `snap`'s policy order, each job's per-GPU throughput,
        and the ids of the jobs that do not run (what solvers return)."""
        pos = {j.id: i for i, j in enumerate(snap.jobs)}
        models = snap.model_indices()
        jobs = tuple(
            replace(
                a,
                tput_per_gpu=snap.profiles.tput(
                    models[pos[a.job_id]], a.cpus_per_gpu, a.mem_gb_per_gpu
                ),
            )
            for a in sorted(self.jobs, key=lambda a: pos.get(a.job_id, -1))
        )
        running = {a.job_id for a in self.jobs}
        return Allocation(jobs, tuple(j.id for j in snap.jobs if j.id not in running))

    @classmethod
    def from_dict(cls, data: Any) -> Allocation:
        """Parse the JSON layout; structural problems are all reported together."""
        problems = Problems()
        if not isinstance(data, Mapping) or not isinstance(data.get("jobs"), Sequence):
            raise InvalidInput("allocation: must be an object with a 'jobs' list")
        out = []
        for i, raw in enumerate(data["jobs"]):
            if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
                problems.add(f"allocation job #{i}: must be an object with a string 'id'")
                continue
            jid = raw["id"]
            parts_raw = raw.get("parts")
            if not isinstance(parts_raw, Sequence) or isinstance(parts_raw, str):
                problems.add(f"allocation job {jid!r}: field 'parts' must be a list")
                continue
            parts = []
            for k, p in enumerate(parts_raw):
                if not isinstance(p, Mapping):
                    problems.add(f"allocation job {jid!r}: part #{k} must be an object")
                    continue
                vals: list[Any] = [p.get(f) for f in ("server", "gpus", "cpus", "mem_gb")]
                if not all(
                    isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                    for v in vals
                ):
                    problems.add(
                        f"allocation job {jid!r}: part #{k} needs numbers 'server', 'gpus', "
                        f"'cpus', 'mem_gb' (got {dict(p)!r})"
                    )
                    continue
                s, g, c, m = vals
                if float(s) != int(s) or float(g) != int(g):
                    problems.add(
                        f"allocation job {jid!r}: part #{k} fields 'server' and 'gpus' must be "
                        "integers"
                    )
                    continue
                parts.append(Part(int(s), int(g), float(c), float(m)))
            out.append(JobAllocation(jid, tuple(parts)))
        problems.raise_if_any()
        return cls(tuple(out))

    @classmethod
    def load(cls, path: str | Path) -> Allocation:
        p = Path(path)
        try:
            return cls.from_dict(json.loads(p.read_text()))
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidInput(f"cannot read allocation: {exc}", source=str(p)) from None
        except InvalidInput as exc:
            raise exc.with_source(str(p)) from None


def job_tput(snap: Snapshot, model: int, a: JobAllocation) -> float:
    """Throughput of one running job: gpus * per-GPU tput at its configuration."""
    return a.gpus * snap.profiles.tput(model, a.cpus_per_gpu, a.mem_gb_per_gpu)


def total_tput(snap: Snapshot, alloc: Allocation) -> float:
    """Objective: the summed throughput of the running jobs (unknown ids are ignored)."""
    pos = {j.id: i for i, j in enumerate(snap.jobs)}
    models = snap.model_indices()
    return float(
        sum(
            job_tput(snap, models[pos[a.job_id]], a)
            for a in alloc.jobs
            if a.job_id in pos and a.parts
        )
    )


def proportional_tput(snap: Snapshot, model: int) -> float:
    """Per-GPU throughput of `model` at the cluster's proportional share."""
    c = snap.cluster
    return snap.profiles.tput(model, c.prop_cpus_per_gpu, c.prop_mem_gb_per_gpu)


def check_allocation(
    snap: Snapshot, alloc: Allocation, *, require_proportional_set: bool = False
) -> list[str]:
    """Every violation of `alloc` (empty when valid).

    Checks: known, unique job ids; parts on existing servers, at most one part per server,
    positive whole GPUs, non-negative CPUs/memory; each job gets exactly its GPU demand and the
    same per-GPU CPUs and memory on all its servers, inside the profiled range; per-server GPU,
    CPU and memory capacity. With `require_proportional_set`: every job GPU-proportional would
    run does run, at no less than its proportional per-GPU throughput (the constraint set of
    the exact methods, TUNE and OPT).
    """
    out: list[str] = []
    cl = snap.cluster
    pos = {j.id: i for i, j in enumerate(snap.jobs)}
    models = snap.model_indices()
    used = [[0.0, 0.0, 0.0] for _ in range(cl.servers)]
    who: list[list[str]] = [[] for _ in range(cl.servers)]
    seen: set[str] = set()
    running: dict[int, JobAllocation] = {}
    for a in alloc.jobs:
        jid = a.job_id
        if jid not in pos:
            out.append(f"job {jid!r}: not in the snapshot")
            continue
        if jid in seen:
            out.append(f"job {jid!r}: allocated twice")
            continue
        seen.add(jid)
        if not _parts_ok(snap, a, out):
            continue
        _job_problems(snap, a, snap.jobs[pos[jid]], models[pos[jid]], out)
        for p in a.parts:
            u = used[p.server]
            u[0] += p.gpus
            u[1] += p.cpus
            u[2] += p.mem_gb
            who[p.server].append(jid)
        running[pos[jid]] = a
    out += _capacity_problems(snap, used, who)
    if require_proportional_set:
        out += _proportional_set_problems(snap, running, models)
    return out


def _parts_ok(snap: Snapshot, a: JobAllocation, out: list[str]) -> bool:
    """Whether the job's parts are well formed (existing servers, one part per server,
    positive GPUs, non-negative CPUs and memory); problems go to `out`."""
    jid, S = a.job_id, snap.cluster.servers
    if not a.parts:
        out.append(f"job {jid!r}: has no parts; leave a job out to not run it")
        return False
    ok = True
    servers = [p.server for p in a.parts]
    for p in a.parts:
        if not 0 <= p.server < S:
            out.append(f"job {jid!r}: server {p.server} does not exist (0..{S - 1})")
            ok = False
        if p.gpus < 1:
            out.append(f"job {jid!r}: server {p.server}: gpus must be >= 1 (got {p.gpus})")
            ok = False
        if p.cpus < 0 or p.mem_gb < 0:
            out.append(f"job {jid!r}: server {p.server}: negative CPUs or memory")
            ok = False
    if len(set(servers)) != len(servers):
        out.append(f"job {jid!r}: more than one part on the same server {servers}")
        ok = False
    return ok


def _job_problems(snap: Snapshot, a: JobAllocation, job: Job, model: int, out: list[str]) -> None:
    """Exact GPU demand, one per-GPU configuration on all servers, inside the profiled range."""
    jid, prof = a.job_id, snap.profiles
    if a.gpus != job.gpus:
        out.append(f"job {jid!r}: gets {a.gpus} GPUs but needs exactly {job.gpus}")
    c0, m0 = a.cpus_per_gpu, a.mem_gb_per_gpu
    for p in a.parts[1:]:
        c, m = p.cpus / p.gpus, p.mem_gb / p.gpus
        if not (math.isclose(c, c0, rel_tol=1e-9, abs_tol=1e-9)) or not (
            math.isclose(m, m0, rel_tol=1e-9, abs_tol=1e-9)
        ):
            out.append(
                f"job {jid!r}: per-GPU configuration differs across servers "
                f"({c0:g} CPUs/{m0:g} GB on server {a.parts[0].server}, "
                f"{c:g}/{m:g} on server {p.server}); it must be identical"
            )
            break
    if prof.tput(model, c0, m0) <= 0.0 and (
        c0 < prof.cpu_values[0] - 1e-9 or m0 < prof.mem_values[0] - 1e-9
    ):
        out.append(
            f"job {jid!r}: {c0:g} CPUs and {m0:g} GB per GPU lie below the profiled range "
            f"(at least {prof.cpu_values[0]:g} CPUs and {prof.mem_values[0]:g} GB per GPU)"
        )


def _capacity_problems(snap: Snapshot, used: list[list[float]], who: list[list[str]]) -> list[str]:
    """Per-server GPU, CPU and memory use above capacity."""
    cl = snap.cluster
    caps = (float(cl.gpus_per_server), cl.cpus_per_server, cl.mem_gb_per_server)
    names = ("GPUs", "CPUs", "memory GB")
    out = []
    for s in range(cl.servers):
        for k in range(3):
            if used[s][k] > capacity_limit(caps[k]):
                out.append(
                    f"server {s}: {names[k]} used {used[s][k]:g} > capacity {caps[k]:g} "
                    f"(jobs {', '.join(who[s])})"
                )
    return out


def _proportional_set_problems(
    snap: Snapshot, running: dict[int, JobAllocation], models: list[int]
) -> list[str]:
    """Every job of the proportional set runs, none below its proportional throughput."""
    out = []
    for i in snap.proportional_set():
        jid = snap.jobs[i].id
        if i not in running:
            out.append(
                f"job {jid!r}: GPU-proportional runs it this round, so it must run "
                "(proportional-set requirement)"
            )
    for i, a in running.items():
        floor = proportional_tput(snap, models[i])
        t = snap.profiles.tput(models[i], a.cpus_per_gpu, a.mem_gb_per_gpu)
        if t < floor - TPUT_TOL:
            out.append(
                f"job {a.job_id!r}: per-GPU throughput {t:g} at {a.cpus_per_gpu:g} CPUs/"
                f"{a.mem_gb_per_gpu:g} GB is below its proportional throughput {floor:g}"
            )
    return out


def validate_allocation(
    snap: Snapshot, alloc: Allocation, *, require_proportional_set: bool = False
) -> None:
    """Raise InvalidInput listing every violation (see `check_allocation`)."""
    problems = check_allocation(snap, alloc, require_proportional_set=require_proportional_set)
    if problems:
        raise InvalidInput(problems)
