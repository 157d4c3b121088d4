"""Fast round allocator for simulators: GPU-proportional, Synergy-GREEDY and Synergy-TUNE.

The hot path takes plain sequences (model index and GPU demand per job, in policy order) and
does no validation; build one `RoundAllocator` per (cluster, profiles) and call it every round.
Pure Python on lists (a round of 128 jobs on 16 servers takes well under 2 ms).

Placement (shared by all three, after Synergy's placement-sensitive allocator): a job asks for
a per-GPU demand (c CPUs, m GB). It goes whole on the server with the fewest free GPUs that
fits all its GPUs, CPUs and memory (ties: lowest index); if none and it needs more than one GPU,
its GPUs are taken from servers in ascending order of free GPUs, each server giving as many
GPUs as fit with c and m each. Every GPU of a job carries the same (c, m).

- proportional: every job whose GPUs fit cluster-wide runs at the proportional share
  (cpus_per_server / gpus_per_server, mem_gb_per_server / gpus_per_server per GPU).
- greedy: every job whose GPUs fit cluster-wide asks for its ideal (c, m); if it does not fit,
  it is skipped this round.
- tune: ideal first; else the proportional share (a job whose ideal is at most the proportional
  share in both resources keeps its ideal); else, on the servers it would use (one server with
  enough free GPUs for a multi-GPU job, else the servers with fewest free GPUs), jobs already
  placed there that use more than the proportional share in both resources are reset to the
  proportional share, most over-provisioned first (fewest servers spanned, then most CPUs per
  GPU, then most memory per GPU), until the job fits; then it is placed. When every model's ideal
  is comparable with the proportional share (<= or >= in both resources; true for the shipped
  profiles on the default cluster), this always succeeds: TUNE runs exactly the jobs
  GPU-proportional runs, none below its proportional throughput (`tune_guaranteed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schedlab.solvers.synergy.allocation import Allocation, JobAllocation
from schedlab.solvers.synergy.model import Cluster
from schedlab.solvers.synergy.profiles import GRID_TOL, ProfileSet, default_profiles

HEURISTICS = ("proportional", "greedy", "tune")
FAST_METHODS = HEURISTICS + ("opt",)


@dataclass(slots=True)
class RoundResult:
    """Per input job (policy order): whether it runs, its per-GPU configuration and throughput,
    and its placement as [(server, gpus), ...] (empty when it does not run)."""

    run: list[bool]
    cpus_per_gpu: list[float]
    mem_gb_per_gpu: list[float]
    tput_per_gpu: list[float]
    placement: list[list[tuple[int, int]]]
    gpus: list[int]
    stats: dict[str, Any]

    @property
    def n_run(self) -> int:
        return sum(self.run)

    @property
    def total_tput(self) -> float:
        """Objective: sum of gpus * per-GPU throughput over running jobs."""
        return float(
            sum(g * t for g, t, r in zip(self.gpus, self.tput_per_gpu, self.run, strict=True) if r)
        )

    @property
    def used_gpus(self) -> int:
        return sum(g for g, r in zip(self.gpus, self.run, strict=True) if r)

    @property
    def used_cpus(self) -> float:
        return float(
            sum(g * c for g, c, r in zip(self.gpus, self.cpus_per_gpu, self.run, strict=True) if r)
        )

    @property
    def used_mem_gb(self) -> float:
        return float(
            sum(
                g * m for g, m, r in zip(self.gpus, self.mem_gb_per_gpu, self.run, strict=True) if r
            )
        )

    def to_allocation(self, ids: Sequence[str]) -> Allocation:
        """The validated-model form (`Allocation`) with the given job ids."""
        return Allocation(
            tuple(
                JobAllocation.uniform(ids[i], self.cpus_per_gpu[i], self.mem_gb_per_gpu[i], pl)
                for i, pl in enumerate(self.placement)
                if self.run[i]
            )
        )


class _State:
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


class RoundAllocator:
    """Allocates one round of jobs on a cluster; reuse it across rounds (no per-call checks)."""

    def __init__(self, cluster: Cluster | None = None, profiles: ProfileSet | None = None):
        self.cluster = cl = cluster or Cluster()
        self.profiles = pr = profiles or default_profiles()
        self.S = cl.servers
        self.pc = cl.prop_cpus_per_gpu
        self.pm = cl.prop_mem_gb_per_gpu
        self.tol_c = GRID_TOL * max(1.0, cl.cpus_per_server) * 10
        self.tol_m = GRID_TOL * max(1.0, cl.mem_gb_per_server) * 10
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
            below = self._le_prop(c, m)
            above = c >= self.pc - self.tol_c and m >= self.pm - self.tol_m
            guaranteed = guaranteed and (below or above)
            if below:
                self.fb_c[k], self.fb_m[k], self.fb_t[k] = c, m, self.ideal_t[k]
            else:
                self.fb_c[k], self.fb_m[k], self.fb_t[k] = self.pc, self.pm, self.prop_t[k]
        self.tune_guaranteed = guaranteed
        self._opt: Any = None

    def model_index(self, name: str) -> int:
        return self.profiles.index(name)

    def _le_prop(self, c: float, m: float) -> bool:
        return c <= self.pc + self.tol_c and m <= self.pm + self.tol_m

    # ---- public entry points ------------------------------------------------------------
    def allocate(self, method: str, models: Sequence[int], gpus: Sequence[int]) -> RoundResult:
        """Allocate one round with `method` in {proportional, greedy, tune, opt}.

        "opt" is Synergy-OPT (`opt.OptAllocator`, created on first use and kept, so its
        memoized phase results carry over between rounds)."""
        if method == "tune":
            return self.tune(models, gpus)
        if method == "greedy":
            return self.greedy(models, gpus)
        if method == "proportional":
            return self.proportional(models, gpus)
        if method == "opt":
            if self._opt is None:
                from schedlab.solvers.synergy.opt import OptAllocator

                self._opt = OptAllocator(self)
            return self._opt.allocate(models, gpus)
        raise ValueError(f"unknown method {method!r}; choose one of {FAST_METHODS}")

    def proportional(self, models: Sequence[int], gpus: Sequence[int]) -> RoundResult:
        st = _State(len(models), self.cluster)
        pc, pm, prop_t = self.pc, self.pm, self.prop_t
        for j, (k, g) in enumerate(zip(models, gpus, strict=True)):
            if st.total_free == 0:
                break
            if g <= st.total_free:
                ok = self.place(st, j, g, pc, pm, prop_t[k])
                assert ok, "proportional share always fits when the GPUs do"
        return self._result(st, gpus, {})

    def greedy(self, models: Sequence[int], gpus: Sequence[int]) -> RoundResult:
        st = _State(len(models), self.cluster)
        skipped = 0
        for j, (k, g) in enumerate(zip(models, gpus, strict=True)):
            if st.total_free == 0:
                break
            if g <= st.total_free and not self.place(
                st, j, g, self.ideal_c[k], self.ideal_m[k], self.ideal_t[k]
            ):
                skipped += 1
        return self._result(st, gpus, {"skipped_no_fit": skipped})

    def tune(self, models: Sequence[int], gpus: Sequence[int]) -> RoundResult:
        st = _State(len(models), self.cluster)
        counts = {"at_ideal": 0, "at_fallback": 0, "reclaimed": 0, "peers_reset": 0, "unplaced": 0}
        for j, (k, g) in enumerate(zip(models, gpus, strict=True)):
            if st.total_free == 0:
                break
            if g <= st.total_free:
                self.serve(
                    st, j, k, g, self.ideal_c[k], self.ideal_m[k], self.ideal_t[k], models, counts
                )
        return self._result(st, gpus, counts)

    # ---- building blocks (also used by OPT's rounding) ----------------------------------
    def serve(
        self,
        st: _State,
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
        if not self._le_prop(c, m):
            c, m, t = self.pc, self.pm, self.prop_t[k]
            if self.place(st, j, g, c, m, t):
                counts["at_fallback"] = counts.get("at_fallback", 0) + 1
                return True
        counts["peers_reset"] = counts.get("peers_reset", 0) + self._reclaim(st, g, c, m, models)
        if self.place(st, j, g, c, m, t):
            counts["reclaimed"] = counts.get("reclaimed", 0) + 1
            return True
        counts["unplaced"] = counts.get("unplaced", 0) + 1
        return False

    def place(self, st: _State, j: int, g: int, c: float, m: float, t: float) -> bool:
        """Place job j with g GPUs at (c, m) per GPU (see module docstring); commit if it fits."""
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
            parts = [(best, g)]
        elif g == 1:
            return False
        else:
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
            if rem > 0:
                return False
        for s, n in parts:
            free_g[s] -= n
            free_c[s] -= n * c
            free_m[s] -= n * m
            st.on[s].append(j)
        st.total_free -= g
        st.parts[j] = parts
        st.c[j], st.m[j], st.t[j] = c, m, t
        return True

    def _reclaim(self, st: _State, g: int, c: float, m: float, models: Sequence[int]) -> int:
        """Reset over-provisioned peers on the candidate servers to the proportional share
        until the job (g GPUs at (c, m)) fits there; returns how many peers were reset."""
        free_g, free_c, free_m = st.free_g, st.free_c, st.free_m
        cands: list[tuple[int, int]] = []
        if g > 1:
            for s in range(self.S):
                if free_g[s] >= g:
                    cands = [(s, g)]
                    break
        if not cands:
            rem = g
            for fg, s in sorted((free_g[s], s) for s in range(self.S) if free_g[s] > 0):
                n = min(fg, rem)
                cands.append((s, n))
                rem -= n
                if rem == 0:
                    break
        pc, pm, tc, tm = self.pc, self.pm, self.tol_c, self.tol_m
        reset = 0
        for s, n in cands:
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

    def _result(self, st: _State, gpus: Sequence[int], stats: dict[str, Any]) -> RoundResult:
        run = [bool(p) for p in st.parts]
        return RoundResult(run, st.c, st.m, st.t, st.parts, list(gpus), stats)
