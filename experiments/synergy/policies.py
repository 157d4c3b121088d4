"""Scheduling policies: each orders the runnable jobs of a round; the allocator then places them.

Every policy is a sort key over a `PolicyView` (one numpy array per job attribute), with the
Synergy simulator's tie-breaks: jobs bumped for starvation first, then the key, then arrival
time, then job id. Any policy combines with any allocation algorithm. Definitions (after
msr-fiddle/synergy's `simulator/schedulers/`):

- fifo:   arrival time (starvation bumps do not apply, as in Synergy's FIFO).
- srtf:   remaining time estimate = remaining work / est. speedup (shortest first).
- las:    attained service = GPU-seconds the job has run so far (least first).
- ftf:    Themis finish-time fairness rho = (now - arrival + remaining estimate) / work,
          the *largest* rho first (the most unfairly treated job; Synergy's simulator sorts
          this key ascending, which favours the fairest-treated jobs, we follow Themis).
- drf:    dominant share of the job's ideal demand, max(gpus/G, cpus/C, mem/M), least first.
- tetris: remaining estimate x the sum of the job's normalized ideal demands, least first.

Each policy is its sort key, registered with `@register_policy("synergy", name, summary=...,
uses_bump=...)` (`schedlab.experiments.registry`; tag "figure": the policies the Synergy figures
compare); a plugin module adds one the same way.

"est. speedup" is 1 under GPU-proportional allocation and the model's speedup at its ideal
demand under the Synergy allocators (Synergy ranks by best-case time when it may give more).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from schedlab.experiments.registry import POLICIES, register_policy

SUBJECT = "synergy"


@dataclass(frozen=True)
class PolicyView:
    """Per-job state of the runnable jobs at a round boundary (all arrays one entry per job)."""

    now_s: float
    job_id: np.ndarray
    arrival_s: np.ndarray
    gpus: np.ndarray
    cpu_demand: np.ndarray  # ideal CPUs of the whole job
    mem_demand_gb: np.ndarray  # ideal memory of the whole job (GB)
    work_s: np.ndarray  # total work (proportional-share seconds)
    remaining_s: np.ndarray  # remaining work (proportional-share seconds)
    attained_gpu_s: np.ndarray  # GPU-seconds run so far
    est_speedup: np.ndarray  # speedup assumed by the time estimates
    bumped: np.ndarray  # bool: starving job, scheduled first
    total_gpus: float
    total_cpus: float
    total_mem_gb: float


KeyFunc = Callable[[PolicyView], np.ndarray]


@dataclass(frozen=True)
class Policy:
    """A named ordering; `uses_bump` says whether starvation bumps take precedence."""

    name: str
    key: KeyFunc
    uses_bump: bool
    summary: str

    def order(self, v: PolicyView) -> np.ndarray:
        """Positions (into the view's arrays) in scheduling order."""
        keys: list[np.ndarray] = [v.job_id, v.arrival_s, self.key(v)]
        if self.uses_bump:
            keys.append(~v.bumped)
        return np.lexsort(keys)


def get_policy(name: str) -> Policy:
    """Policy by name (InvalidInput listing the known names)."""
    entry = POLICIES.get(name.lower(), scope=SUBJECT)
    return Policy(entry.name, entry.obj, entry.meta["uses_bump"], entry.summary)


@register_policy(
    SUBJECT, "fifo", uses_bump=False, summary="first in, first out (arrival time)", tags=("figure",)
)
def _fifo(v: PolicyView) -> np.ndarray:
    return v.arrival_s


@register_policy(
    SUBJECT, "srtf", uses_bump=True, summary="shortest remaining time first", tags=("figure",)
)
def _srtf(v: PolicyView) -> np.ndarray:
    return v.remaining_s / v.est_speedup


@register_policy(
    SUBJECT, "las", uses_bump=True, summary="least attained service (GPU-seconds) first"
)
def _las(v: PolicyView) -> np.ndarray:
    return v.attained_gpu_s


def ftf_rho(v: PolicyView) -> np.ndarray:
    """Themis finish-time fairness estimate (shared-cluster time / ideal time)."""
    return (v.now_s - v.arrival_s + v.remaining_s / v.est_speedup) / v.work_s


@register_policy(
    SUBJECT, "ftf", uses_bump=True, summary="finish-time fairness (Themis): largest rho first"
)
def _ftf(v: PolicyView) -> np.ndarray:
    return -ftf_rho(v)


def dominant_share(v: PolicyView) -> np.ndarray:
    return np.maximum.reduce(
        [v.gpus / v.total_gpus, v.cpu_demand / v.total_cpus, v.mem_demand_gb / v.total_mem_gb]
    )


@register_policy(
    SUBJECT, "drf", uses_bump=True, summary="dominant resource fairness: least dominant share first"
)
def _drf(v: PolicyView) -> np.ndarray:
    return dominant_share(v)


@register_policy(
    SUBJECT,
    "tetris",
    uses_bump=True,
    summary="Tetris: remaining time x normalized demand, least first",
)
def _tetris(v: PolicyView) -> np.ndarray:
    norm = v.gpus / v.total_gpus + v.cpu_demand / v.total_cpus + v.mem_demand_gb / v.total_mem_gb
    return norm * (v.remaining_s / v.est_speedup)
