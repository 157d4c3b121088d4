"""Successful-job sojourn instances: jobs with a discrete size distribution.

Each job has sizes s_1 < ... < s_k with probabilities p_1..p_k; the largest size is success
(probability pi = p_k), the others are checkpoints where the job is cancelled. Instances are
immutable, validated on construction (every problem reported at once) and round-trip to JSON:
``{"jobs": [{"id": "a", "sizes": [3, 10], "probs": [0.4, 0.6]}, ...], "name": ..., "meta": ...}``.

`SojournProblem(instance, objective)` is what `schedlab.solvers.solve` takes: `subject =
"sojourn"` and `kind` = the objective's kind ("A", "B", "TK", "DK"), so a method registered with
`kinds={"A", "B"}` is refused for TK and DK before it runs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.serialize import (
    JobListFile,
    duplicate_ids,
    id_problems,
    name_and_meta,
    unknown_fields,
)
from schedlab.solvers.validate import MAX_MAGNITUDE, check_id

#: Input rule: a job's outcome probabilities sum to 1 within this (absolute).
PROB_TOL = 1e-9
#: Input rules (see docs/architecture.md): at most MAX_JOBS jobs of at most MAX_OUTCOMES
#: outcomes each; sizes in (0, MAX_MAGNITUDE] (1e12), so every derived sum stays finite.
MAX_JOBS = 1_000_000
MAX_OUTCOMES = 1_000


@dataclass(frozen=True)
class Job:
    """One job: strictly increasing positive sizes; the last one is success."""

    id: str
    sizes: tuple[float, ...]
    probs: tuple[float, ...]

    @property
    def success_size(self) -> float:
        """m: the size of a successful run."""
        return self.sizes[-1]

    @property
    def success_prob(self) -> float:
        """pi: the probability that the job succeeds."""
        return self.probs[-1]

    @property
    def cancel_mass(self) -> float:
        """e = sum_{l<k} s_l p_l = E[X 1{cancelled}]."""
        return float(sum(s * p for s, p in zip(self.sizes[:-1], self.probs[:-1], strict=True)))

    @property
    def mean_size(self) -> float:
        """E[X] = e + pi m."""
        return self.cancel_mass + self.success_prob * self.success_size

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "sizes": list(self.sizes), "probs": list(self.probs)}


def _cut(v: Sequence[float]) -> str:
    text = repr(list(v))
    return text if len(text) <= 80 else text[:77] + "..."


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _check_job(raw: Any, index: int, problems: Problems) -> Job | None:
    """Validate one raw job mapping; add every problem found; return a Job if it is valid."""
    if not isinstance(raw, Mapping):
        problems.add(f"job #{index}: must be an object with 'sizes' and 'probs'")
        return None
    jid_raw = raw.get("id", str(index))
    label = f"job #{index}"
    bad_id = check_id(jid_raw, f"{label}: field 'id'")
    if bad_id:
        problems.add(bad_id)
        jid = str(index)
    else:
        jid = jid_raw
        label = f"job {jid!r}"
    unknown = set(raw) - {"id", "sizes", "probs"}
    if unknown:
        problems.add(f"{label}: unknown field(s) {sorted(unknown)}; allowed: id, sizes, probs")
    ok = True
    vals: dict[str, list[float]] = {}
    for key in ("sizes", "probs"):
        v = raw.get(key)
        if v is None:
            problems.add(f"{label}: field '{key}' is missing; give a list of numbers")
            ok = False
            continue
        if not isinstance(v, Sequence) or isinstance(v, str):
            problems.add(f"{label}: field '{key}' must be a list of numbers (got {v!r})")
            ok = False
            continue
        if len(v) == 0:
            problems.add(f"{label}: field '{key}' is empty; a job needs at least its success size")
            ok = False
            continue
        if len(v) > MAX_OUTCOMES:
            problems.add(f"{label}: field '{key}' has {len(v)} entries (at most {MAX_OUTCOMES})")
            ok = False
            continue
        bad = [x for x in v if not _is_number(x)]
        if bad:
            problems.add(f"{label}: field '{key}' has non-numbers {bad!r}")
            ok = False
            continue
        nonfinite = [x for x in v if not math.isfinite(x)]
        if nonfinite:
            problems.add(f"{label}: field '{key}' has NaN or infinite values {nonfinite!r}")
            ok = False
            continue
        vals[key] = [float(x) for x in v]
    if not ok:
        return None
    sizes, probs = vals["sizes"], vals["probs"]
    if len(sizes) != len(probs):
        problems.add(
            f"{label}: fields 'sizes' and 'probs' have different lengths "
            f"({len(sizes)} vs {len(probs)}); give one probability per size"
        )
        return None
    good = True
    if any(s <= 0 for s in sizes):
        problems.add(f"{label}: field 'sizes' must be positive (got {_cut(sizes)})")
        good = False
    elif any(s > MAX_MAGNITUDE for s in sizes):
        problems.add(
            f"{label}: field 'sizes' must be at most {MAX_MAGNITUDE:g} (got {_cut(sizes)}); "
            "larger sizes overflow the objectives' sums: change the time unit"
        )
        good = False
    if any(b <= a for a, b in zip(sizes, sizes[1:], strict=False)):
        problems.add(
            f"{label}: field 'sizes' must be strictly increasing; the last is the success size "
            f"(got {sizes})"
        )
        good = False
    if any(p < 0 or p > 1 for p in probs):
        problems.add(f"{label}: field 'probs' must lie in [0, 1] (got {probs})")
        good = False
    elif abs(sum(probs) - 1.0) > PROB_TOL:
        problems.add(
            f"{label}: field 'probs' must sum to 1 within {PROB_TOL:g} (sums to {sum(probs)!r})"
        )
        good = False
    return Job(jid, tuple(sizes), tuple(probs)) if good else None


@dataclass(frozen=True)
class Instance(JobListFile):
    """A single-server instance: all jobs present at time 0. Immutable and validated."""

    FILE_WHAT: ClassVar[str] = "instance file"

    jobs: tuple[Job, ...]
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problems = Problems()
        if len(self.jobs) == 0:
            problems.add("field 'jobs' is empty; an instance needs at least one job")
        if len(self.jobs) > MAX_JOBS:
            problems.add(f"field 'jobs' has {len(self.jobs)} jobs (at most {MAX_JOBS})")
        id_problems((j.id for j in self.jobs), problems)
        for j in self.jobs:
            if not all(_is_number(x) and 0 < x <= MAX_MAGNITUDE for x in j.sizes):
                problems.add(f"job {j.id!r}: field 'sizes' must lie in (0, {MAX_MAGNITUDE:g}]")
        problems.raise_if_any()

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> Instance:
        """Build from a parsed JSON object, reporting every problem at once."""
        problems = Problems()
        if not isinstance(data, Mapping):
            raise InvalidInput("top level must be an object with a 'jobs' list")
        unknown_fields(data, ("jobs", "name", "meta"), problems)
        raw_jobs = data.get("jobs")
        if not isinstance(raw_jobs, Sequence) or isinstance(raw_jobs, str):
            problems.add("field 'jobs' must be a list of job objects")
            raw_jobs = []
        elif len(raw_jobs) == 0:
            problems.add("field 'jobs' is empty; an instance needs at least one job")
        elif len(raw_jobs) > MAX_JOBS:
            problems.add(f"field 'jobs' has {len(raw_jobs)} jobs (at most {MAX_JOBS})")
            raw_jobs = []
        name, meta = name_and_meta(data, problems)
        jobs = [_check_job(r, i, problems) for i, r in enumerate(raw_jobs)]
        ids = [
            r.get("id", str(i)) if isinstance(r, Mapping) else str(i)
            for i, r in enumerate(raw_jobs)
        ]
        duplicate_ids([i for i in ids if isinstance(i, str)], problems)
        problems.raise_if_any()
        return cls(tuple(j for j in jobs if j is not None), name=name, meta=meta)

    @classmethod
    def from_arrays(
        cls,
        sizes: Sequence[Sequence[float]],
        probs: Sequence[Sequence[float]],
        ids: Sequence[str] | None = None,
        name: str | None = None,
    ) -> Instance:
        """Convenience constructor with full validation."""
        ids = list(ids) if ids is not None else [str(i) for i in range(len(sizes))]
        jobs = [
            {"id": i, "sizes": list(s), "probs": list(p)}
            for i, s, p in zip(ids, sizes, probs, strict=True)
        ]
        return cls.from_dict({"jobs": jobs, **({"name": name} if name else {})})

    # ---- serialization ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"jobs": [j.to_dict() for j in self.jobs]}
        if self.name is not None:
            d["name"] = self.name
        if self.meta:
            d["meta"] = dict(self.meta)
        return d

    # ---- derived arrays (cached) --------------------------------------------------------
    @cached_property
    def _arrays(self) -> dict[str, np.ndarray]:
        pi = np.array([j.success_prob for j in self.jobs], dtype=float)
        m = np.array([j.success_size for j in self.jobs], dtype=float)
        e = np.array([j.cancel_mass for j in self.jobs], dtype=float)
        return {"pi": pi, "m": m, "e": e, "mean": e + pi * m}

    @property
    def pi(self) -> np.ndarray:
        """Success probabilities, shape (n,)."""
        return self._arrays["pi"]

    @property
    def m(self) -> np.ndarray:
        """Success sizes, shape (n,)."""
        return self._arrays["m"]

    @property
    def e(self) -> np.ndarray:
        """Cancellation mass E[X 1{cancelled}], shape (n,)."""
        return self._arrays["e"]

    @property
    def mean(self) -> np.ndarray:
        """E[X], shape (n,)."""
        return self._arrays["mean"]

    def index_of(self, job_id: str) -> int:
        try:
            return self.ids.index(job_id)
        except ValueError:
            raise InvalidInput(f"order: unknown job id {job_id!r}") from None

    def warnings(self) -> list[str]:
        """Non-fatal remarks: zero success probability makes pi-divided indices infinite."""
        return [
            f"job {j.id!r}: success probability is 0; indices that divide by it treat it as "
            "infinite (scheduled last)"
            for j in self.jobs
            if j.success_prob == 0.0
        ]

    def order_from_ids(self, ids: Sequence[str]) -> tuple[int, ...]:
        """Translate job ids to positions, checking it is a permutation of all jobs."""
        idx = [self.index_of(i) for i in ids]
        check_order(idx, self.n)
        return tuple(idx)

    def ids_of(self, order: Sequence[int]) -> list[str]:
        return [self.jobs[i].id for i in order]


def _few(xs: list[int], k: int = 10) -> str:
    return str(xs) if len(xs) <= k else f"{xs[:k]} and {len(xs) - k} more"


def check_order(order: Sequence[int], n: int) -> None:
    """Raise InvalidInput unless `order` is a permutation of range(n)."""
    order = list(order)
    if len(order) != n or sorted(order) != list(range(n)):
        missing = sorted(set(range(n)) - set(order))
        dups = sorted(i for i, k in Counter(order).items() if k > 1)
        raise InvalidInput(
            f"order: must list each of the {n} jobs exactly once "
            f"(got {len(order)} entries; missing positions {_few(missing)}, "
            f"repeated {_few(dups)})"
        )


# ---- the objective: part of the problem, evaluated in objectives.py ----------------------
#: The objectives a sojourn problem can minimize (closed forms in `objectives`).
OBJECTIVES = ("A", "B", "TK", "DK")
#: The objectives that are linear ordering problems (pairwise weights).
LINEAR_ORDERING = ("A", "B")


@dataclass(frozen=True)
class Objective:
    """Which objective to minimize; `k` is required for TK and DK (1 <= k <= n)."""

    kind: str
    k: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in OBJECTIVES:
            raise InvalidInput(
                f"objective: unknown {self.kind!r}; choose one of {', '.join(OBJECTIVES)}"
            )
        if self.kind in ("TK", "DK"):
            if self.k is None:
                raise InvalidInput(f"k: objective {self.kind} needs K (e.g. --k 2)")
            if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
                raise InvalidInput(f"k: must be a positive integer (got {self.k!r})")
        elif self.k is not None:
            raise InvalidInput(f"k: objective {self.kind} takes no K (got {self.k})")

    def check_for(self, instance: Instance) -> None:
        if self.k is not None and self.k > instance.n:
            raise InvalidInput(f"k: must be at most the number of jobs {instance.n} (got {self.k})")

    @property
    def label(self) -> str:
        return f"{self.kind}(K={self.k})" if self.k is not None else self.kind

    @classmethod
    def parse(cls, kind: str, k: int | None = None) -> Objective:
        return cls(kind.upper(), k)


SUBJECT = "sojourn"


@dataclass(frozen=True)
class SojournProblem:
    """Find a non-preemptive order of `instance`'s jobs that minimizes `objective`."""

    subject: ClassVar[str] = SUBJECT
    instance: Instance
    objective: Objective

    def __post_init__(self) -> None:
        self.objective.check_for(self.instance)

    @property
    def kind(self) -> str:
        """The objective's kind: what a method's `kinds` must contain."""
        return self.objective.kind
