"""A workload for the online simulator: arrival times, GPU counts and size distributions.

Job i arrives at `arrival_s[i]` (sorted), needs `gpus[i]` servers at once for its whole run,
and has the discrete size distribution row i of `dists` (the last real size is success).
Immutable; `sample_levels` draws realized outcomes with a given Generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.sojourn.indices import Padded, level_table, pad


@dataclass(frozen=True)
class Workload:
    """Jobs in arrival order. `excluded_jobs` counts jobs left out upstream (too wide, ...)."""

    arrival_s: np.ndarray  # (n,) non-decreasing
    gpus: np.ndarray  # (n,) int >= 1
    dists: Padded
    name: str = "workload"
    excluded_jobs: int = 0
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        p = Problems()
        n = len(self.arrival_s)
        if n == 0:
            p.add(f"{self.name}: no jobs to simulate")
        if len(self.gpus) != n or self.dists.n != n:
            p.add(f"{self.name}: arrival_s, gpus and dists need the same number of jobs")
        elif n:
            if not np.all(np.isfinite(self.arrival_s)):
                p.add(f"{self.name}: arrival times must be finite")
            elif np.any(np.diff(self.arrival_s) < 0):
                p.add(f"{self.name}: arrival times must be sorted (non-decreasing)")
            if np.any(self.gpus < 1):
                p.add(f"{self.name}: every job needs at least one GPU")
            S, P, k = self.dists.sizes, self.dists.probs, self.dists.counts
            col = np.arange(self.dists.width)[None, :] < k[:, None]
            if np.any(k < 1):
                p.add(f"{self.name}: every job needs at least its success size")
            if np.any(~np.isfinite(S)) or np.any(S[col] <= 0):
                p.add(f"{self.name}: sizes must be positive and finite")
            if np.any(np.diff(S, axis=1)[col[:, 1:]] <= 0):
                p.add(f"{self.name}: sizes must be strictly increasing per job")
            if np.any(P < 0) or np.any(np.abs(P.sum(axis=1) - 1.0) > 1e-9):
                p.add(f"{self.name}: probabilities must be non-negative and sum to 1 per job")
        p.raise_if_any()

    @classmethod
    def from_lists(
        cls,
        arrival_s: Sequence[float],
        gpus: Sequence[int],
        dists: Sequence[tuple[Sequence[float], Sequence[float]]],
        **kw: Any,
    ) -> Workload:
        """Build from plain lists; jobs are sorted by arrival (stable)."""
        arr = np.asarray(arrival_s, dtype=float)
        order = np.argsort(arr, kind="stable")
        d = pad([dists[i] for i in order])
        return cls(arr[order], np.asarray(gpus, dtype=np.int64)[order], d, **kw)

    @property
    def n(self) -> int:
        return len(self.arrival_s)

    @cached_property
    def expected_size(self) -> np.ndarray:
        """E[X_i] per job."""
        return self.dists.mean

    @cached_property
    def indices(self) -> dict[str, np.ndarray]:
        """Every index at every checkpoint level (see solvers.sojourn.indices.level_table)."""
        return level_table(self.dists)

    def offered_load(self, servers: int) -> float:
        """sum_i g_i E[X_i] / (servers * arrival span); inf when all jobs arrive at once."""
        span = float(self.arrival_s[-1] - self.arrival_s[0])
        work = float(np.dot(self.gpus, self.expected_size))
        return work / (servers * span) if span > 0 else float("inf")

    def scaled_to_load(self, load: float, servers: int) -> Workload:
        """Stretch or compress inter-arrival times so that offered_load(servers) == load."""
        if not load > 0:
            raise InvalidInput(f"load: must be positive (got {load})")
        now = self.offered_load(servers)
        if not np.isfinite(now):
            raise InvalidInput(f"{self.name}: all jobs arrive at once; its load cannot be scaled")
        t0 = self.arrival_s[0]
        arr = (self.arrival_s - t0) * (now / load)
        return replace(self, arrival_s=arr, meta={**self.meta, "load_scale": now / load})

    def head(self, jobs: int) -> Workload:
        """The first `jobs` jobs by arrival."""
        if jobs < 1:
            raise InvalidInput(f"jobs: must be at least 1 (got {jobs})")
        if jobs >= self.n:
            return self
        d = self.dists
        k = d.counts[:jobs]
        w = int(k.max())
        sub = Padded(d.sizes[:jobs, :w], d.probs[:jobs, :w], k)
        return replace(self, arrival_s=self.arrival_s[:jobs], gpus=self.gpus[:jobs], dists=sub)

    def without_wide(self, servers: int) -> Workload:
        """Drop jobs needing more than `servers` GPUs, counting them in `excluded_jobs`."""
        keep = self.gpus <= servers
        dropped = int((~keep).sum())
        if dropped == 0:
            return self
        if dropped == self.n:
            raise InvalidInput(
                f"servers: every job of {self.name} needs more than {servers} GPUs; "
                f"use at least {int(self.gpus.min())} servers"
            )
        d = self.dists
        k = d.counts[keep]
        w = int(k.max())
        sub = Padded(d.sizes[keep, :w], d.probs[keep, :w], k)
        return replace(
            self,
            arrival_s=self.arrival_s[keep],
            gpus=self.gpus[keep],
            dists=sub,
            excluded_jobs=self.excluded_jobs + dropped,
        )

    def sample_levels(self, rng: np.random.Generator) -> np.ndarray:
        """Realized outcome per job: the index r_i of its realized size (k_i - 1 = success).

        Inverse-CDF with one uniform per job; zero-probability sizes are never drawn.
        """
        P = self.dists.probs
        C = np.cumsum(P, axis=1)
        last = C[np.arange(self.n), self.dists.counts - 1]
        C = C / last[:, None]
        u = rng.random(self.n)
        r = (C <= u[:, None]).sum(axis=1)
        return np.minimum(r, self.dists.counts - 1).astype(np.int64)
