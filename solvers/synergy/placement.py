"""Placement on a cluster's servers, shared by every fast-path allocator (heuristics and OPT).

A job asks for a per-GPU demand (c CPUs, m GB). It goes whole on the server with the fewest free
GPUs that fits all its GPUs, CPUs and memory (ties: lowest index); if none and it needs more
than one GPU, its GPUs are taken from servers in ascending order of free GPUs, each server
giving as many GPUs as fit with c and m each. Every GPU of a job carries the same (c, m).

`Placer` holds a cluster's constants (proportional share, tolerances, each model's ideal and
fallback configuration); `PlacementState` the free resources of one round; `RoundResult` what
every allocator returns (`Placer.pack` for the compiled rounds, `Placer.result` from a state).
`Placer.serve` is TUNE's three steps (ideal, fallback, reclaim), reused by OPT's rounding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from schedlab.solvers.synergy.allocation import Allocation, JobAllocation, capacity_limit
from schedlab.solvers.synergy.problem import Cluster
from schedlab.solvers.synergy.profiles import GRID_TOL, ProfileSet, default_profiles


@dataclass(slots=True)
class RoundResult:
    """What every allocator returns: a round's outcome per input job (policy order), as arrays.

    `run`: whether the job runs; `cpus_per_gpu`, `mem_gb_per_gpu`, `tput_per_gpu`: its per-GPU
    configuration and throughput (meaningful where it runs); `gpus`: its GPU demand; its
    placement [(server, gpus), ...] is the slice [start, start + count) of the part arrays
    (`placement(j)`). `stats`: the allocator's counters; `bound`: a proven upper bound on the
    round's optimum when the allocator knows one (OPT's phase 1). Arrays, so that the simulator
    reads a round of thousands of jobs without a Python object per job."""

    run: np.ndarray
    cpus_per_gpu: np.ndarray
    mem_gb_per_gpu: np.ndarray
    tput_per_gpu: np.ndarray
    gpus: np.ndarray
    part_start: np.ndarray
    part_count: np.ndarray
    part_server: np.ndarray
    part_gpus: np.ndarray
    stats: dict[str, Any]
    bound: float | None = None

    @property
    def n_run(self) -> int:
        return int(self.run.sum())

    @property
    def used_gpus(self) -> int:
        """GPUs allocated in all."""
        return int(self.gpus[self.run].sum())

    def _sum_per_gpu(self, per_gpu: np.ndarray) -> float:
        """sum of gpus * per_gpu over running jobs, in job order (Python floats)."""
        g, v, r = self.gpus.tolist(), per_gpu.tolist(), self.run.tolist()
        return float(sum(gi * vi for gi, vi, ri in zip(g, v, r, strict=True) if ri))

    @property
    def total_tput(self) -> float:
        """Objective: sum of gpus * per-GPU throughput over running jobs."""
        return self._sum_per_gpu(self.tput_per_gpu)

    @property
    def used_cpus(self) -> float:
        return self._sum_per_gpu(self.cpus_per_gpu)

    @property
    def used_mem_gb(self) -> float:
        return self._sum_per_gpu(self.mem_gb_per_gpu)

    def placement(self, j: int) -> list[tuple[int, int]]:
        """Job j's placement [(server, GPUs), ...] (empty when it does not run)."""
        a = int(self.part_start[j])
        b = a + int(self.part_count[j])
        return list(zip(self.part_server[a:b].tolist(), self.part_gpus[a:b].tolist(), strict=True))

    def placements(self, n: int | None = None) -> list[list[tuple[int, int]]]:
        """Placements of the first n jobs (all by default)."""
        count = self.run.size if n is None else n
        return [self.placement(j) if self.run[j] else [] for j in range(count)]

    def to_allocation(self, ids: Sequence[str]) -> Allocation:
        """The validated-model form (`Allocation`) with the given job ids."""
        c, m = self.cpus_per_gpu.tolist(), self.mem_gb_per_gpu.tolist()
        return Allocation(
            tuple(
                JobAllocation.uniform(ids[i], c[i], m[i], self.placement(i))
                for i in np.flatnonzero(self.run).tolist()
            )
        )


class PlacementState:
    """Free resources per server and the current configuration of every placed job."""

    __slots__ = ("free_g", "free_c", "free_m", "total_free", "on", "parts", "c", "m", "t")

    def __init__(self, n: int, cl: Cluster) -> None:
        s = cl.servers
        self.free_g = [cl.gpus_per_server] * s
        self.free_c = [float(cl.cpus_per_server)] * s
        self.free_m = [float(cl.mem_gb_per_server)] * s
        self.total_free = cl.total_gpus
        self.on: list[list[int]] = [[] for _ in range(s)]
        self.parts: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.c = [0.0] * n
        self.m = [0.0] * n
        self.t = [0.0] * n

    def commit(self, j: int, parts: list[tuple[int, int]], c: float, m: float, t: float) -> None:
        """Record job j on `parts` [(server, gpus)] at (c, m) per GPU with throughput t."""
        self.total_free -= self._take(j, parts, c, m)
        self.parts[j] = parts
        self.c[j], self.m[j], self.t[j] = c, m, t

    def _take(self, j: int, parts: list[tuple[int, int]], c: float, m: float) -> int:
        """Take `parts` [(server, gpus)] at (c, m) per GPU from the free resources of their
        servers and list job j on them; the GPUs taken (the caller updates `total_free`)."""
        free_g, free_c, free_m, on = self.free_g, self.free_c, self.free_m, self.on
        used = 0
        for s, n in parts:
            free_g[s] -= n
            free_c[s] -= n * c
            free_m[s] -= n * m
            on[s].append(j)
            used += n
        return used

    def commit_fitting(
        self,
        jobs: Sequence[int],
        configs: Mapping[int, tuple[float, float, float]],
        parts_of: Mapping[int, list[tuple[int, int]]],
        tol_c: float,
        tol_m: float,
    ) -> list[int]:
        """`commit` each job j of `jobs` in order at configs[j] (c, m, t) on parts_of[j] if it
        has parts and each fits its server's free GPUs, CPUs (within tol_c) and memory (within
        tol_m) at that point; the jobs left out, in order. One call per round: `commit` with
        its lookups hoisted."""
        free_g, free_c, free_m = self.free_g, self.free_c, self.free_m
        placed, cs, ms, ts = self.parts, self.c, self.m, self.t
        left = []
        used = 0
        for j in jobs:
            parts = parts_of.get(j)
            if not parts:
                left.append(j)
                continue
            c, m, t = configs[j]
            for s, n in parts:
                if free_g[s] < n or free_c[s] < n * c - tol_c or free_m[s] < n * m - tol_m:
                    left.append(j)
                    break
            else:
                used += self._take(j, parts, c, m)
                placed[j] = parts
                cs[j], ms[j], ts[j] = c, m, t
        self.total_free -= used
        return left


def _slack(capacity: float) -> float:
    """Half of what `check_allocation` lets a server's use exceed `capacity` by."""
    return 0.5 * (capacity_limit(capacity) - capacity)


class Placer:
    """A cluster's placement constants; build once per (cluster, profiles), reuse every round."""

    def __init__(self, cluster: Cluster | None = None, profiles: ProfileSet | None = None):
        self.cluster = cl = cluster or Cluster()
        self.profiles = pr = profiles or default_profiles()
        self.S = cl.servers
        self.pc = cl.prop_cpus_per_gpu
        self.pm = cl.prop_mem_gb_per_gpu
        # fit checks may go this far past a server's capacity: at most half the validator's
        # slack (`allocation.CAP_RTOL`), so every placement passes `check_allocation` (ten grid
        # tolerances alone, 1e-8 absolute, went past it on capacities of 1e-3)
        cap_c, cap_m = cl.cpus_per_server, cl.mem_gb_per_server
        self.tol_c = min(GRID_TOL * max(1.0, cap_c) * 10, _slack(cap_c))
        self.tol_m = min(GRID_TOL * max(1.0, cap_m) * 10, _slack(cap_m))
        n = len(pr.models)
        self.ideal_c = [0.0] * n
        self.ideal_m = [0.0] * n
        self.ideal_t = [0.0] * n
        self.prop_t = [0.0] * n
        self.fb_c = [0.0] * n
        self.fb_m = [0.0] * n
        self.fb_t = [0.0] * n
        guaranteed = True
        for k in range(n):
            c, m = pr.ideal(k)
            self.ideal_c[k], self.ideal_m[k] = c, m
            self.ideal_t[k] = pr.tput(k, c, m)
            self.prop_t[k] = pr.tput(k, self.pc, self.pm)
            below = self.le_prop(c, m)
            above = c >= self.pc - self.tol_c and m >= self.pm - self.tol_m
            guaranteed = guaranteed and (below or above)
            if below:
                self.fb_c[k], self.fb_m[k], self.fb_t[k] = c, m, self.ideal_t[k]
            else:
                self.fb_c[k], self.fb_m[k], self.fb_t[k] = self.pc, self.pm, self.prop_t[k]
        #: every model's ideal is comparable with the proportional share (see heuristics.tune)
        self.tune_guaranteed = guaranteed
        self._consts = tuple(np.asarray(v, dtype=float) for v in (
            self.ideal_c, self.ideal_m, self.ideal_t, self.prop_t
        ))  # fmt: skip

    def pack(
        self, mode: int, models: Sequence[int] | np.ndarray, gpus: Sequence[int] | np.ndarray
    ) -> RoundResult:
        """One whole round of proportional / greedy / TUNE placement (`packing.pack_round`,
        compiled; the same decisions as `place` and `serve` job by job)."""
        # compiled (numba): imported on first use, so importing the solvers loads no JIT
        from schedlab.solvers.synergy.packing import COUNTERS, pack_round

        cl = self.cluster
        k = np.ascontiguousarray(models, dtype=np.int64)
        g = np.ascontiguousarray(gpus, dtype=np.int64)
        start, count, server, ngpu, c, m, t, ctr = pack_round(
            mode, k, g, self.S, int(cl.gpus_per_server), float(cl.cpus_per_server),
            float(cl.mem_gb_per_server), self.pc, self.pm, self.tol_c, self.tol_m, *self._consts,
        )  # fmt: skip
        stats = dict(zip(COUNTERS, ctr.tolist(), strict=True))
        return RoundResult(count > 0, c, m, t, g, start, count, server, ngpu, stats)

    def model_index(self, name: str) -> int:
        return self.profiles.index(name)

    def le_prop(self, c: float, m: float) -> bool:
        """Whether (c, m) is at most the proportional share in both resources."""
        return c <= self.pc + self.tol_c and m <= self.pm + self.tol_m

    def state(self, n: int) -> PlacementState:
        """Empty cluster for a round of n jobs."""
        return PlacementState(n, self.cluster)

    def serve(
        self,
        st: PlacementState,
        j: int,
        k: int,
        g: int,
        c: float,
        m: float,
        t: float,
        models: Sequence[int],
        counts: dict[str, Any],
    ) -> bool:
        """TUNE's three steps for job j (model k, g GPUs) starting from configuration (c, m)."""
        if self.place(st, j, g, c, m, t):
            counts["at_ideal"] = counts.get("at_ideal", 0) + 1
            return True
        if not self.le_prop(c, m):
            c, m, t = self.pc, self.pm, self.prop_t[k]
            if self.place(st, j, g, c, m, t):
                counts["at_fallback"] = counts.get("at_fallback", 0) + 1
                return True
        counts["peers_reset"] = counts.get("peers_reset", 0) + self.reclaim(st, g, c, m, models)
        if self.place(st, j, g, c, m, t):
            counts["reclaimed"] = counts.get("reclaimed", 0) + 1
            return True
        counts["unplaced"] = counts.get("unplaced", 0) + 1
        return False

    def place(self, st: PlacementState, j: int, g: int, c: float, m: float, t: float) -> bool:
        """Place job j with g GPUs at (c, m) per GPU (see module docstring); commit if it fits."""
        parts = self.find(st, g, c, m)
        if parts is None:
            return False
        st.commit(j, parts, c, m, t)
        return True

    def find(self, st: PlacementState, g: int, c: float, m: float) -> list[tuple[int, int]] | None:
        """Where g GPUs at (c, m) per GPU would go (best fit, else spread), None if nowhere."""
        free_g, free_c, free_m = st.free_g, st.free_c, st.free_m
        nc = g * c - self.tol_c
        nm = g * m - self.tol_m
        best = -1
        bf = 1 << 30
        for s in range(self.S):
            fg = free_g[s]
            if g <= fg < bf and free_c[s] >= nc and free_m[s] >= nm:
                best, bf = s, fg
                if fg == g:
                    break
        if best >= 0:
            return [(best, g)]
        if g == 1:
            return None
        parts = []
        rem = g
        tc, tm = self.tol_c, self.tol_m
        for fg, s in sorted((free_g[s], s) for s in range(self.S) if free_g[s] > 0):
            n = min(fg, rem)
            if c > 0:
                n = min(n, int((free_c[s] + tc) / c))
            if m > 0:
                n = min(n, int((free_m[s] + tm) / m))
            if n > 0:
                parts.append((s, n))
                rem -= n
                if rem == 0:
                    break
        return None if rem > 0 else parts

    def reclaim(self, st: PlacementState, g: int, c: float, m: float, models: Sequence[int]) -> int:
        """Reset over-provisioned peers on the candidate servers to the proportional share
        until the job (g GPUs at (c, m)) fits there; returns how many peers were reset."""
        free_c, free_m = st.free_c, st.free_m
        pc, pm, tc, tm = self.pc, self.pm, self.tol_c, self.tol_m
        reset = 0
        for s, n in self._candidates(st, g):
            if free_c[s] >= n * c - tc and free_m[s] >= n * m - tm:
                continue
            peers = sorted(st.on[s], key=lambda p: (len(st.parts[p]), -st.c[p], -st.m[p]))
            for p in peers:
                cp, mp = st.c[p], st.m[p]
                if cp < pc - tc or mp < pm - tm or (cp <= pc + tc and mp <= pm + tm):
                    continue  # not above the proportional share in both resources
                for s2, n2 in st.parts[p]:
                    free_c[s2] += n2 * (cp - pc)
                    free_m[s2] += n2 * (mp - pm)
                st.c[p], st.m[p], st.t[p] = pc, pm, self.prop_t[models[p]]
                reset += 1
                if free_c[s] >= n * c - tc and free_m[s] >= n * m - tm:
                    break
        return reset

    def _candidates(self, st: PlacementState, g: int) -> list[tuple[int, int]]:
        """Servers a g-GPU job would use: one with enough free GPUs (multi-GPU jobs), else the
        servers with the fewest free GPUs."""
        free_g = st.free_g
        if g > 1:
            for s in range(self.S):
                if free_g[s] >= g:
                    return [(s, g)]
        cands: list[tuple[int, int]] = []
        rem = g
        for fg, s in sorted((free_g[s], s) for s in range(self.S) if free_g[s] > 0):
            n = min(fg, rem)
            cands.append((s, n))
            rem -= n
            if rem == 0:
                break
        return cands

    def result(
        self, st: PlacementState, gpus: Sequence[int] | np.ndarray, stats: dict[str, Any]
    ) -> RoundResult:
        """The round's outcome from its final state."""
        parts = st.parts
        count = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
        start = np.zeros_like(count)
        np.cumsum(count[:-1], out=start[1:])
        flat = chain.from_iterable(chain.from_iterable(parts))
        pairs = np.fromiter(flat, dtype=np.int64, count=2 * int(count.sum())).reshape(-1, 2)
        server = pairs[:, 0].copy()
        ngpu = pairs[:, 1].copy()
        c, m, t = (np.array(v, dtype=float) for v in (st.c, st.m, st.t))
        g = np.array(gpus, dtype=np.int64)
        return RoundResult(count > 0, c, m, t, g, start, count, server, ngpu, stats)
