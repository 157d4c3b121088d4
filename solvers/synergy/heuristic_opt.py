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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from schedlab.solvers.kit.linear import CscModel
from schedlab.solvers.kit.mip import solve_highs
from schedlab.solvers.options import NoOptions
from schedlab.solvers.result import Status
from schedlab.solvers.solve import register_method

# proportional, greedy and tune register before opt in every process (discovery imports this
# module first, by name): figures and `fast_methods()` list the allocators in that order.
from schedlab.solvers.synergy import heuristics as _heuristics  # noqa: F401
from schedlab.solvers.synergy.allocators import FAST_TAG, SUBJECT, Allocator
from schedlab.solvers.synergy.configs import Config, candidate_configs
from schedlab.solvers.synergy.placement import Placer, RoundResult
from schedlab.solvers.synergy.problem import Cluster
from schedlab.solvers.validate import NO_DEADLINE, Deadline

INT_TOL = 1e-6
ClassKey = tuple[float, float, int]  # phase 2's class of jobs: (CPUs, GB per GPU, GPUs)
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
) -> tuple[dict[int, Config], dict[str, Any]]:
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
    chosen: dict[int, Config] = {}
    for ti, t in enumerate(tkeys):  # the type's r-th job takes its r-th configuration
        if per_type is None:
            chosen.update(dict.fromkeys(types[t], (ra.pc, ra.pm, ra.prop_t[t[0]])))
        else:
            chosen.update(zip(types[t], per_type[ti], strict=False))
    return chosen, dict(stats)


@dataclass(frozen=True, eq=False)
class _TypeColumns:
    """Phase-1 columns of one job type (model, GPUs): its candidate configurations in
    `candidate_configs` order, and per configuration the objective coefficient and the GPUs
    times CPUs and times GB per GPU (the CPU and memory rows' coefficients)."""

    cfgs: tuple[Config, ...]
    cost: np.ndarray
    cpu: np.ndarray
    mem: np.ndarray


#: per Placer: (its profiles, its cluster, {(model, gpus, weighted): _TypeColumns})
_COLUMNS: WeakKeyDictionary[Placer, tuple[Any, Any, dict]] = WeakKeyDictionary()


def _type_columns(ra: Placer, k: int, g: int, weighted: bool) -> _TypeColumns:
    """The phase-1 columns of type (k, g), computed once per Placer (every round asks again)."""
    memo = _COLUMNS.get(ra)
    if memo is None or memo[0] is not ra.profiles or memo[1] is not ra.cluster:
        memo = _COLUMNS[ra] = (ra.profiles, ra.cluster, {})
    cols = memo[2].get((k, g, weighted))
    if cols is None:
        cfgs = tuple(candidate_configs(ra.profiles, ra.cluster, k, floor=True))
        c, m, t = np.array(cfgs, dtype=float).reshape(-1, 3).T
        cols = _TypeColumns(cfgs, g * t if weighted else t.copy(), g * c, g * m)
        memo[2][(k, g, weighted)] = cols
    return cols


def _phase1_model(ra: Placer, cols: list[_TypeColumns], sizes: list[int]) -> CscModel:
    """The aggregated phase-1 MILP: per type a row (its jobs, each one configuration), the
    cluster's CPU and memory totals; a column per (type, configuration), at most the type's
    size."""
    cl = ra.cluster
    T = len(cols)
    per = np.array([len(tc.cfgs) for tc in cols], dtype=np.int64)
    n = int(per.sum())
    size = np.array(sizes, dtype=float)
    index = np.empty((n, 3), dtype=np.int32)
    index[:, 0] = np.repeat(np.arange(T, dtype=np.int32), per)
    index[:, 1] = T
    index[:, 2] = T + 1
    value = np.empty((n, 3))
    value[:, 0] = 1.0
    value[:, 1] = np.concatenate([tc.cpu for tc in cols])
    value[:, 2] = np.concatenate([tc.mem for tc in cols])
    totals = [cl.servers * cl.cpus_per_server, cl.servers * cl.mem_gb_per_server]
    return CscModel(
        cost=np.concatenate([tc.cost for tc in cols]),
        lower=np.zeros(n),
        upper=np.repeat(size, per),
        starts=np.arange(0, 3 * n + 1, 3, dtype=np.int32),
        index=index.ravel(),
        value=value.ravel(),
        row_lower=np.concatenate([size, [0.0, 0.0]]),
        row_upper=np.concatenate([size, np.asarray(totals, dtype=float)]),
        maximize=True,
    )


def _phase1_solve(
    ra: Placer,
    tkeys: list[tuple[int, int]],
    sizes: list[int],
    deadline: Deadline,
    weighted: bool = True,
) -> tuple[list[list[Config]] | None, dict[str, Any]]:
    """The aggregated phase-1 MILP: per type, its configurations fastest first."""
    cols = [_type_columns(ra, k, g, weighted) for k, g in tkeys]
    out = solve_highs(_phase1_model(ra, cols, sizes), integer=True, deadline=deadline)
    stats: dict[str, Any] = {
        "phase1_status": out.status.value,
        "phase1_value": out.value,
        "phase1_bound": out.bound,
        "phase1_types": len(tkeys),
    }
    if out.x is None:  # no solution in time: everybody at the proportional share
        return None, stats
    x = out.x.tolist()
    per_type: list[list[Config]] = []
    o = 0
    for tc in cols:
        cut = x[o : o + len(tc.cfgs)]
        o += len(tc.cfgs)
        taken = [(cfg, int(round(v))) for cfg, v in zip(tc.cfgs, cut, strict=True)]
        taken.sort(key=lambda q: -q[0][2])  # stable: as sorting the copies one by one
        per_type.append([cfg for cfg, k in taken for _ in range(k)])
    return per_type, stats


def phase2(
    ra: Placer,
    gpus: Sequence[int],
    chosen: dict[int, Config],
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
    classes: dict[ClassKey, list[int]] = {}
    for j in sorted(chosen):  # policy order within each class
        c, m, _t = chosen[j]
        classes.setdefault((c, m, gpus[j]), []).append(j)
    keys = sorted(classes)
    ckey = tuple((q, len(classes[q])) for q in keys)
    stats: dict[str, Any] = {"phase2_classes": len(keys)}
    avail = cache.get(ckey) if cache is not None else None
    if avail is None:
        out = solve_highs(_phase2_model(cl, keys, classes), integer=False, deadline=deadline)
        stats["phase2_status"] = out.status.value
        if out.x is None:
            return {}, stats
        # whole GPUs of each class on each server (the LP's values, floored within INT_TOL)
        avail = np.floor(out.x + INT_TOL).astype(np.int64).reshape(len(keys), S).tolist()
        if cache is not None:
            if len(cache) > CACHE_SIZE:
                cache.clear()
            cache[ckey] = avail
    else:
        stats["phase2_status"] = "cached"
    placement: dict[int, list[tuple[int, int]]] = {}
    for r, q in enumerate(keys):
        _cut(q[2], list(avail[r]), classes[q], placement)
    return placement, stats


def _phase2_model(
    cl: Cluster, keys: list[ClassKey], classes: dict[ClassKey, list[int]]
) -> CscModel:
    """The phase-2 LP: a column per (class, server), the GPUs of the class there (at most the
    class's demand and one server); a row per class (its whole demand placed), three per
    server (GPUs, CPUs, memory)."""
    S, n = cl.servers, len(keys)
    demand = [float(q[2] * len(classes[q])) for q in keys]
    ub = [float(min(d, cl.gpus_per_server)) for d in demand]
    caps = np.array([float(cl.gpus_per_server), cl.cpus_per_server, cl.mem_gb_per_server])
    index = np.empty((n, S, 4), dtype=np.int32)
    index[:, :, 0] = np.arange(n, dtype=np.int32)[:, None]
    base = n + 3 * np.arange(S, dtype=np.int32)
    for i in range(3):
        index[:, :, i + 1] = base + i
    value = np.empty((n, S, 4))
    value[:, :, :2] = 1.0
    value[:, :, 2] = np.array([q[0] for q in keys], dtype=float)[:, None]
    value[:, :, 3] = np.array([q[1] for q in keys], dtype=float)[:, None]
    return CscModel(
        cost=np.zeros(n * S),
        lower=np.zeros(n * S),
        upper=np.repeat(np.array(ub, dtype=float), S),
        starts=np.arange(0, 4 * n * S + 1, 4, dtype=np.int32),
        index=index.ravel(),
        value=value.ravel(),
        row_lower=np.concatenate([np.array(demand, dtype=float), np.zeros(3 * S)]),
        row_upper=np.concatenate([np.array(demand, dtype=float), np.tile(caps, S)]),
        maximize=False,
    )


def _cut(
    g: int, avail: list[int], todo: list[int], placement: dict[int, list[tuple[int, int]]]
) -> None:
    """Cut a class's whole GPUs per server (`avail`, consumed) into its jobs `todo` (policy
    order, g GPUs each): whole-server pieces first (each job on the first server with g
    left), then the remaining GPUs across servers in server order."""
    S = len(avail)
    rest = []
    s = 0
    for j in todo:  # a server once short of g stays short: the first fit only moves right
        while s < S and avail[s] < g:
            s += 1
        if s == S:
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
        fractional = st.commit_fitting(jobs, chosen, placement, ra.tol_c, ra.tol_m)
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
