"""Synergy-OPT: phase 1 picks configurations (MILP), phase 2 packs servers (LP), then rounds.

Jobs: those GPU-proportional runs this round (the proportional set).
Phase 1 (MILP, HiGHS): one configuration per job from its non-dominated candidates at or above
its proportional throughput, maximizing total throughput sum(gpus * tput) under the
cluster-wide CPU and memory totals. Jobs of the same model and GPU demand are interchangeable,
so the MILP counts how many of each type take each configuration (same optimum, far smaller);
within a type, earlier jobs in policy order get the faster configurations. Its optimum is an
upper bound on every allocation of the exact problem (it relaxes per-server capacities).
Phase 2 (LP, HiGHS simplex): GPUs of each job on each server as continuous variables with the
phase-1 configurations fixed, every job fully placed, per-server GPU/CPU/memory capacities; a
vertex solution splits at most 3 x servers jobs fractionally.
Rounding: jobs whose GPUs the LP put in whole numbers keep that placement (in policy order,
re-checked against capacity); the others ("fractional jobs") are re-placed in policy order by
TUNE's steps: first fit at their phase-1 configuration, else at the proportional share (or
their configuration when it is below it in both resources), else by taking back peers' excess
over the proportional share (placement.Placer.serve). When the TUNE guarantee holds (the
shipped profiles on the default cluster) every job of the proportional set runs, none below
proportional throughput; a job that still does not fit is left out and counted in
stats["unplaced"].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedlab.solvers.kit.linear import empty_model
from schedlab.solvers.kit.mip import solve_highs
from schedlab.solvers.options import NoOptions
from schedlab.solvers.result import Status
from schedlab.solvers.solve import register_method

# proportional, greedy and tune register before opt in every process (discovery imports this
# module first, by name): figures and `fast_methods()` list the allocators in that order.
from schedlab.solvers.synergy import heuristics as _heuristics  # noqa: F401
from schedlab.solvers.synergy.allocators import FAST_TAG, SUBJECT, Allocator
from schedlab.solvers.synergy.configs import candidate_configs
from schedlab.solvers.synergy.placement import Placer, RoundResult
from schedlab.solvers.validate import NO_DEADLINE, Deadline

INT_TOL = 1e-6
CACHE_SIZE = 20_000


def proportional_set(ra: Placer, gpus: Sequence[int]) -> list[int]:
    free = ra.cluster.total_gpus
    out = []
    for i, g in enumerate(gpus):
        if g <= free:
            out.append(i)
            free -= g
    return out


def phase1(
    ra: Placer,
    models: Sequence[int],
    gpus: Sequence[int],
    jobs: Sequence[int],
    *,
    deadline: Deadline = NO_DEADLINE,
    cache: dict | None = None,
    weighted: bool = True,
) -> tuple[dict[int, tuple[float, float, float]], dict[str, Any]]:
    """Configuration per job (position -> (c, m, t)) and solver stats (value, bound, status).

    `weighted`: the objective is sum(gpus * tput) (ours); False: the unweighted sum of per-GPU
    throughputs, the objective of the Synergy authors' OPT (equal for single-GPU jobs). A cache
    serves one objective only."""
    types: dict[tuple[int, int], list[int]] = {}
    for j in jobs:
        types.setdefault((models[j], gpus[j]), []).append(j)
    tkeys = sorted(types)
    key = tuple((t, len(types[t])) for t in tkeys)
    hit = cache.get(key) if cache is not None else None
    if hit is None:
        hit = _phase1_solve(ra, tkeys, [len(types[t]) for t in tkeys], deadline, weighted)
        if cache is not None and hit[1]["phase1_status"] == Status.OPTIMAL.value:
            if len(cache) > CACHE_SIZE:
                cache.clear()
            cache[key] = hit
    per_type, stats = hit
    chosen: dict[int, tuple[float, float, float]] = {}
    for ti, t in enumerate(tkeys):
        cfgs = per_type[ti] if per_type is not None else None
        for r, j in enumerate(types[t]):
            chosen[j] = cfgs[r] if cfgs is not None else (ra.pc, ra.pm, ra.prop_t[models[j]])
    return chosen, dict(stats)


def _phase1_solve(
    ra: Placer,
    tkeys: list[tuple[int, int]],
    sizes: list[int],
    deadline: Deadline,
    weighted: bool = True,
) -> tuple[list[list[tuple[float, float, float]]] | None, dict[str, Any]]:
    """The aggregated phase-1 MILP: per type, its configurations fastest first."""
    cl, pr = ra.cluster, ra.profiles
    model = empty_model(
        [float(n) for n in sizes] + [0.0, 0.0],
        [float(n) for n in sizes]
        + [cl.servers * cl.cpus_per_server, cl.servers * cl.mem_gb_per_server],
        maximize=True,
    )
    cpu_row, mem_row = len(tkeys), len(tkeys) + 1
    cols: list[tuple[int, tuple[float, float, float]]] = []
    for ti, (k, g) in enumerate(tkeys):
        for cfg in candidate_configs(pr, cl, k, floor=True):
            c, m, t = cfg
            model.add_col(
                g * t if weighted else t,
                0.0,
                float(sizes[ti]),
                [ti, cpu_row, mem_row],
                [1.0, g * c, g * m],
            )
            cols.append((ti, cfg))
    out = solve_highs(model, integer=True, deadline=deadline)
    stats: dict[str, Any] = {
        "phase1_status": out.status.value,
        "phase1_value": out.value,
        "phase1_bound": out.bound,
        "phase1_types": len(tkeys),
    }
    if out.x is None:  # no solution in time: everybody at the proportional share
        return None, stats
    per_type: list[list[tuple[float, float, float]]] = [[] for _ in tkeys]
    for (ti, cfg), v in zip(cols, out.x, strict=True):
        per_type[ti].extend([cfg] * int(round(v)))
    for lst in per_type:
        lst.sort(key=lambda q: -q[2])
    return per_type, stats


def phase2(
    ra: Placer,
    gpus: Sequence[int],
    chosen: dict[int, tuple[float, float, float]],
    *,
    deadline: Deadline = NO_DEADLINE,
    cache: dict | None = None,
) -> tuple[dict[int, list[tuple[int, int]]], dict[str, Any]]:
    """LP packing, then the integral part of its vertex solution: job -> [(server, gpus)].

    Jobs with the same (CPUs, GB, GPUs) are interchangeable in the LP, so it is solved per
    class (GPUs of the class on each server); whole-number amounts are cut into jobs in policy
    order (whole-server pieces first). Jobs left without a whole placement are fractional and
    absent from the returned mapping.
    """
    cl = ra.cluster
    S = cl.servers
    classes: dict[tuple[float, float, int], list[int]] = {}
    for j in sorted(chosen):  # policy order within each class
        c, m, _t = chosen[j]
        classes.setdefault((c, m, gpus[j]), []).append(j)
    keys = sorted(classes)
    ckey = tuple((q, len(classes[q])) for q in keys)
    stats: dict[str, Any] = {"phase2_classes": len(keys)}
    x = cache.get(ckey) if cache is not None else None
    if x is None:
        n = len(keys)
        demand = [float(q[2] * len(classes[q])) for q in keys]
        row_hi = list(demand)
        for _ in range(S):
            row_hi += [float(cl.gpus_per_server), cl.cpus_per_server, cl.mem_gb_per_server]
        model = empty_model(demand + [0.0] * (3 * S), row_hi)
        for r, (c, m, _g) in enumerate(keys):
            ub = float(min(demand[r], cl.gpus_per_server))
            for s in range(S):
                base = n + 3 * s
                model.add_col(0.0, 0.0, ub, [r, base, base + 1, base + 2], [1.0, 1.0, c, m])
        out = solve_highs(model, integer=False, deadline=deadline)
        stats["phase2_status"] = out.status.value
        if out.x is None:
            return {}, stats
        x = [[float(v) for v in out.x[r * S : (r + 1) * S]] for r in range(n)]
        if cache is not None:
            if len(cache) > CACHE_SIZE:
                cache.clear()
            cache[ckey] = x
    else:
        stats["phase2_status"] = "cached"
    placement: dict[int, list[tuple[int, int]]] = {}
    for r, q in enumerate(keys):
        g = q[2]
        avail = [int(math.floor(v + INT_TOL)) for v in x[r]]
        todo = list(classes[q])
        rest = []
        for j in todo:  # whole-server pieces first
            s = next((s for s in range(S) if avail[s] >= g), -1)
            if s < 0:
                rest.append(j)
                continue
            avail[s] -= g
            placement[j] = [(s, g)]
        for j in rest:  # then cut the remaining whole GPUs across servers
            if sum(avail) < g:
                break
            need, parts = g, []
            for s in range(S):
                k = min(avail[s], need)
                if k > 0:
                    parts.append((s, k))
                    avail[s] -= k
                    need -= k
                    if need == 0:
                        break
            placement[j] = parts
    return placement, stats


class OptAllocator:
    """Synergy-OPT on the fast path (the `Allocator` protocol); phase results are memoized by
    the round's job mix (they depend only on how many jobs of each model and GPU demand there
    are)."""

    def __init__(self, ra: Placer) -> None:
        self.ra = ra
        self._p1: dict = {}
        self._p2: dict = {}

    def __call__(
        self,
        models: Sequence[int] | np.ndarray,
        gpus: Sequence[int] | np.ndarray,
        *,
        deadline: Deadline = NO_DEADLINE,
    ) -> RoundResult:
        # Python ints: the phase caches are keyed by them
        return self._round(np.asarray(models).tolist(), np.asarray(gpus).tolist(), deadline)

    def _round(self, models: list[int], gpus: list[int], deadline: Deadline) -> RoundResult:
        ra = self.ra
        jobs = proportional_set(ra, gpus)
        st = ra.state(len(models))
        counts: dict[str, Any] = {}
        if not jobs:
            return ra.result(st, gpus, counts)
        chosen, s1 = phase1(ra, models, gpus, jobs, deadline=deadline, cache=self._p1)
        placement, s2 = phase2(ra, gpus, chosen, deadline=deadline, cache=self._p2)
        counts.update(s1)
        counts.update(s2)
        fractional = []
        tc, tm = ra.tol_c, ra.tol_m
        for j in jobs:
            c, m, t = chosen[j]
            ip = placement.get(j)
            if not ip or any(
                st.free_g[s] < n or st.free_c[s] < n * c - tc or st.free_m[s] < n * m - tm
                for s, n in ip
            ):
                fractional.append(j)
                continue
            st.commit(j, ip, c, m, t)
        counts["fractional_jobs"] = len(fractional)
        for j in fractional:
            c, m, t = chosen[j]
            ra.serve(st, j, models[j], gpus[j], c, m, t, models, counts)
        if "at_ideal" in counts:  # serve's first step is the phase-1 configuration here
            counts["refit_at_phase1_config"] = counts.pop("at_ideal")
        rr = ra.result(st, gpus, counts)
        rr.bound = counts.get("phase1_bound")
        return rr


@register_method(
    SUBJECT,
    "opt",
    exact=False,
    tags=("paper", FAST_TAG),
    summary="Synergy-OPT: MILP configurations, LP packing, rounding",
)
def opt(p: Placer, options: NoOptions) -> Allocator:
    """Phase-1 MILP, phase-2 LP and rounding; the phase-1 optimum is reported as the bound.

    Phase results are memoized by the round's job mix for as long as `p` is reused."""
    return OptAllocator(p)
