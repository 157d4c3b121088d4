"""The Synergy simulator's state: per-job arrays, per-round records, the policy's view of jobs.

Internal to `simulator.py` and `sim_forward.py` (the round-by-round loop and its fast-forward of
unchanged rounds), which read and update the same state; kept apart so that neither module
imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.experiments.synergy.metrics import Utilization
from schedlab.experiments.synergy.policies import PolicyView
from schedlab.experiments.synergy.workloads import JobSpec

# A job whose remaining work ends within this (relative) of the round end completes.
DONE_RTOL = 1e-12


class Jobs:
    """Growable per-job arrays (jobs arrive lazily from an endless stream)."""

    def __init__(self, cap: int = 1024) -> None:
        self.n = 0
        self.cap = cap
        self.id = np.zeros(cap, dtype=np.int64)
        self.arrival = np.zeros(cap)
        self.gpus = np.zeros(cap, dtype=np.int64)
        self.model = np.zeros(cap, dtype=np.int64)
        self.work = np.zeros(cap)
        self.remaining = np.zeros(cap)
        self.done = np.zeros(cap)
        self.attained = np.zeros(cap)
        self.last_run = np.full(cap, np.nan)
        self.completion = np.full(cap, np.nan)
        self.bumped = np.zeros(cap, dtype=bool)
        self.cpu_demand = np.zeros(cap)
        self.mem_demand = np.zeros(cap)
        self.speedup = np.ones(cap)
        self.iter_time = np.ones(cap)  # seconds per iteration at the proportional share
        self.iters_total = np.zeros(cap)  # whole iterations (fidelity.iterations "integer")
        self.iters_done = np.zeros(cap)

    def _grow(self) -> None:
        new = self.cap * 2
        for name in (
            "id arrival gpus model work remaining done attained last_run completion bumped "
            "cpu_demand mem_demand speedup iter_time iters_total iters_done"
        ).split():
            old = getattr(self, name)
            fill = np.nan if name in ("last_run", "completion") else 0
            arr = np.full(new, fill, dtype=old.dtype)
            arr[: self.cap] = old
            setattr(self, name, arr)
        self.cap = new

    def add(
        self, spec: JobSpec, model: int, cpu: float, mem: float, speedup: float, iter_s: float
    ) -> int:
        """Append one admitted job (its model index, ideal CPUs and memory per GPU, speed-up
        estimate, seconds per iteration); returns its position in the arrays."""
        if self.n == self.cap:
            self._grow()
        i = self.n
        self.id[i] = spec.job_id
        self.arrival[i] = spec.arrival_s
        self.gpus[i] = spec.gpus
        self.model[i] = model
        self.work[i] = spec.work_s
        self.remaining[i] = spec.work_s
        self.cpu_demand[i] = cpu * spec.gpus
        self.mem_demand[i] = mem * spec.gpus
        self.speedup[i] = speedup
        self.iter_time[i] = iter_s
        self.iters_total[i] = int(spec.work_s / iter_s)  # theirs: int(duration / iter time)
        self.n += 1
        return i

    def advance_iterations(
        self, run_idx: np.ndarray, rate: np.ndarray, R: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Whole iterations (theirs): the jobs `run_idx` at per-GPU speed `rate` do
        floor(R / (iteration time / speed)) iterations in a round of R seconds; returns
        the time each job needs to finish (inf beyond the round) and which finish."""
        step = self.iter_time[run_idx] / rate  # seconds per iteration at this speed
        per_round = np.floor(R / step)
        left = self.iters_total[run_idx] - self.iters_done[run_idx]
        fin = per_round >= left
        need = np.where(fin, left * step, np.inf)
        done = np.minimum(self.iters_done[run_idx] + per_round, self.iters_total[run_idx])
        self.iters_done[run_idx] = done
        self.done[run_idx] = done * self.iter_time[run_idx]
        self.remaining[run_idx] = (self.iters_total[run_idx] - done) * self.iter_time[run_idx]
        return need, fin


@dataclass
class UtilLog:
    """Per-round records: start time, GPU/CPU/memory shares, running and queued jobs."""

    t: list[float] = field(default_factory=list)
    g: list[float] = field(default_factory=list)
    c: list[float] = field(default_factory=list)
    m: list[float] = field(default_factory=list)
    run: list[int] = field(default_factory=list)
    q: list[int] = field(default_factory=list)
    cu: list[float] = field(default_factory=list)  # CPUs used (allocated, at most the ideal)
    mu: list[float] = field(default_factory=list)

    def repeat(self, starts: list[float]) -> None:
        """The last round's shares again for rounds starting at `starts`."""
        n = len(starts)
        self.t.extend(starts)
        for shares in (self.g, self.c, self.m, self.cu, self.mu):
            shares.extend([shares[-1]] * n)
        for counts in (self.run, self.q):
            counts.extend([counts[-1]] * n)

    def record(
        self,
        t: float,
        g: np.ndarray,
        frac: np.ndarray,
        cpg: np.ndarray,
        mpg: np.ndarray,
        ideal: tuple[np.ndarray, np.ndarray],
        totals: tuple[float, float, float],
        queued: int,
    ) -> None:
        """Utilization of the round starting at t (each running job weighted by the share
        `frac` of the round it ran): its GPUs `g`, CPUs and memory per GPU `cpg`, `mpg`, its
        profile's ideal CPUs and memory per GPU (`ideal`: it uses at most those), the cluster's
        GPUs, CPUs and memory (`totals`) and how many runnable jobs did not run."""
        total_gpus, total_cpus, total_mem = totals
        self.t.append(t)
        self.g.append(float((g * frac).sum()) / total_gpus)
        self.c.append(float((g * cpg * frac).sum()) / total_cpus)
        self.m.append(float((g * mpg * frac).sum()) / total_mem)
        used_c = np.minimum(cpg, ideal[0])
        used_m = np.minimum(mpg, ideal[1])
        self.cu.append(float((g * used_c * frac).sum()) / total_cpus)
        self.mu.append(float((g * used_m * frac).sum()) / total_mem)
        self.run.append(int(g.size))
        self.q.append(queued)

    def utilization(self, skipped_rounds: int) -> Utilization:
        """The records as arrays (`skipped_rounds`: rounds with no runnable job, not logged)."""
        return Utilization(
            np.asarray(self.t),
            np.asarray(self.g),
            np.asarray(self.c),
            np.asarray(self.m),
            np.asarray(self.run),
            np.asarray(self.q),
            skipped_rounds=skipped_rounds,
            cpu_used=np.asarray(self.cu),
            mem_used=np.asarray(self.mu),
        )


def policy_view(
    jobs: Jobs,
    index: np.ndarray,
    remaining: np.ndarray,
    attained: np.ndarray,
    now: Any,
    totals: tuple[float, float, float],
) -> PolicyView:
    """The `PolicyView` of jobs `index` (positions in `jobs`) at `now` with the given remaining
    work and attained GPU service; `totals`: the cluster's GPUs, CPUs and memory (GB). The one
    builder of the per-round order (scalar `now`) and of fast-forward's check of many rounds at
    once (a column of round starts and one row per round), so both give the policy the same
    fields."""
    return PolicyView(
        now_s=now,
        job_id=jobs.id[index],
        arrival_s=jobs.arrival[index],
        gpus=jobs.gpus[index],
        cpu_demand=jobs.cpu_demand[index],
        mem_demand_gb=jobs.mem_demand[index],
        work_s=jobs.work[index],
        remaining_s=remaining,
        attained_gpu_s=attained,
        est_speedup=jobs.speedup[index],
        bumped=jobs.bumped[index],
        total_gpus=totals[0],
        total_cpus=totals[1],
        total_mem_gb=totals[2],
    )
