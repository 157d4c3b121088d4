"""Status cases of Synergy for tests/core/test_exact_status.py: tiny rounds off every grid.

Profiles, grid and cluster are drawn as floats with many decimals (a few with one or two), the
CPU (or memory) capacity of the servers then set exactly to what an optimum uses on its fullest
server, or a hair (1e-6, 1e-10 relative) above or below it. The oracle enumerates, for every job
in scope, every configuration (each grid point, and the proportional share) and every spread of
its GPUs over the servers, and keeps the best combination that fits every server: whole jobs,
one configuration per job, throughput gpus x table value at the largest grid point the
configuration covers (the documented step function), capacities by the documented check
(used <= capacity (1 + CAP_RTOL) + 1e-9). No other configuration can do better: any (c, m)
gives the throughput of its grid point below it at no less CPU and memory.

Both run sets are drawn: `proportional` (exactly the jobs GPU-proportional runs, each at no less
than its proportional throughput: every such job fits at its proportional share) and `any` (the
empty allocation is feasible). So a round always has an allocation and `optimal` is the only
status an exact method may give (BOTH_STATUSES = False). The run set travels in the snapshot's
`meta` for the oracle and, through `options`, to the method (drawn just before it is called).
"""

from __future__ import annotations

import itertools
import math

from hypothesis import strategies as st

from schedlab.solvers.registry import Entry
from schedlab.solvers.result import PROOF_TOL, SolveResult, Status
from schedlab.solvers.synergy.allocation import CAP_RTOL
from schedlab.solvers.synergy.problem import Cluster, Job, Snapshot
from schedlab.solvers.synergy.profiles import GRID_TOL, TPUT_TOL, ProfileSet

BOTH_STATUSES = False
HAIRS = (0.0, 0.0, 1e-6, -1e-6, 1e-10, -1e-10)
RUN_SETS = ("proportional", "any")
_LAST = {"run_set": "proportional"}  # the run set of the problem drawn last (see `options`)


def _number(draw: st.DrawFn, lo: float, hi: float) -> float:
    """A float in [lo, hi]: mostly with many decimals, sometimes with one or two."""
    x = draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))
    if draw(st.integers(0, 4)) == 0:
        x = min(hi, max(lo, round(x, draw(st.integers(1, 2)))))
    return x


def _increasing(draw: st.DrawFn, n: int, lo: float, hi: float) -> list[float]:
    vals: list[float] = []
    while len(vals) < n:
        v = _number(draw, lo, hi) * (1 + len(vals))
        vals.append(
            v if not vals or v > vals[-1] * 1.001 else vals[-1] * (1 + _number(draw, 1e-3, 1.0))
        )
    return vals


@st.composite
def _profiles(draw: st.DrawFn) -> dict:
    scale = draw(st.sampled_from([1e-3, 1.0, 1.0, 1.0, 1e3]))  # tiny to large resources
    cpu = _increasing(draw, draw(st.integers(1, 2)), 0.5 * scale, 4.0 * scale)
    mem = _increasing(draw, draw(st.integers(1, 2)), 5.0 * scale, 60.0 * scale)
    models = {}
    for k in range(draw(st.integers(1, 2))):
        rows = [[_number(draw, 0.0, 3.0) for _ in mem] for _ in cpu]
        for i, j in itertools.product(range(len(cpu)), range(len(mem))):  # non-decreasing
            rows[i][j] = max(
                [rows[i][j]] + ([rows[i - 1][j]] if i else []) + ([rows[i][j - 1]] if j else [])
            )
        models[f"m{k}"] = {
            "ideal_cpus_per_gpu": cpu[-1],
            "ideal_mem_gb_per_gpu": mem[-1],
            "tput": rows,
        }
    return {"cpu_values_per_gpu": cpu, "mem_values_gb_per_gpu": mem, "models": models}


@st.composite
def _draft(draw: st.DrawFn, run_sets: tuple[str, ...] = RUN_SETS) -> Snapshot:
    prof = ProfileSet.from_dict(draw(_profiles()))
    servers = draw(st.integers(1, 2))
    g = draw(st.integers(1, 3))
    cpus = g * prof.cpu_values[0] * _number(draw, 1.0, 3.0)
    mem = g * prof.mem_values[0] * _number(draw, 1.0, 3.0)
    cluster = Cluster(servers, g, cpus, mem)
    jobs = tuple(
        Job(f"j{i}", draw(st.sampled_from(prof.names)), draw(st.integers(1, min(3, servers * g))))
        for i in range(draw(st.integers(1, 4)))
    )
    run_set = draw(st.sampled_from(list(run_sets)))
    return Snapshot(cluster, jobs, prof, meta={"run_set": run_set})


@st.composite
def _snapshot(draw: st.DrawFn, run_sets: tuple[str, ...] = RUN_SETS) -> Snapshot:
    snap = draw(_draft(run_sets))
    _, best = _search(snap)
    which = draw(st.sampled_from(["cpus", "mem"]))
    hair = draw(st.sampled_from(HAIRS))
    if best is not None and best[1]:
        used = max(u[1 if which == "cpus" else 2] for u in best[1])
        cap = used * (1 + hair)
        cl = snap.cluster
        new = Cluster(
            cl.servers,
            cl.gpus_per_server,
            cap if which == "cpus" else cl.cpus_per_server,
            cap if which == "mem" else cl.mem_gb_per_server,
        )
        if cap > 0 and not new.problems(snap.profiles):
            snap = Snapshot(new, snap.jobs, snap.profiles, meta=dict(snap.meta))
    _LAST["run_set"] = snap.meta["run_set"]
    return snap


def problems(entry: Entry) -> st.SearchStrategy:
    """Rounds of 1..4 jobs on 1..2 servers of 1..3 GPUs, a capacity at an optimum's use. A
    heuristic's rounds have the run set "any": its allocation need not run exactly the jobs
    GPU-proportional runs (GREEDY skips some), and every allocation of whole jobs within the
    capacities is feasible there, so its optimum bounds every heuristic."""
    return _snapshot(RUN_SETS if entry.meta.get("exact") else ("any",))


def options(entry: Entry) -> dict:
    """The run set of the problem drawn just before (the property test draws, then solves);
    heuristics take no options."""
    return {"run_set": _LAST["run_set"]} if entry.meta.get("exact") else {}


def _floor(grid: tuple[float, ...], v: float) -> int:
    """Index of the largest grid value <= v (within the documented grid tolerance), -1 below."""
    return max((i for i, x in enumerate(grid) if x <= v + GRID_TOL * max(1.0, abs(v))), default=-1)


def _tput(prof: ProfileSet, model: str, c: float, m: float) -> float:
    i, j = _floor(prof.cpu_values, c), _floor(prof.mem_values, m)
    if i < 0 or j < 0:
        return 0.0
    return prof.models[prof.names.index(model)].tput[i][j]


def _scope(snap: Snapshot) -> list[int]:
    """The jobs that must run (proportional) or may run (any)."""
    if snap.meta["run_set"] == "any":
        return list(range(snap.n))
    free, out = snap.cluster.total_gpus, []
    for i, j in enumerate(snap.jobs):
        if j.gpus <= free:
            out.append(i)
            free -= j.gpus
    return out


def _choices(snap: Snapshot, i: int) -> list[tuple[float, float, float, tuple[int, ...]]]:
    """(CPUs per GPU, GB per GPU, throughput of the job, GPUs per server) for job i."""
    cl, prof, job = snap.cluster, snap.profiles, snap.jobs[i]
    pc, pm = cl.cpus_per_server / cl.gpus_per_server, cl.mem_gb_per_server / cl.gpus_per_server
    points = [*itertools.product(prof.cpu_values, prof.mem_values), (pc, pm)]
    floor = _tput(prof, job.model, pc, pm) - TPUT_TOL
    spreads = [
        n
        for n in itertools.product(range(min(job.gpus, cl.gpus_per_server) + 1), repeat=cl.servers)
        if sum(n) == job.gpus
    ]
    out = []
    for c, m in points:
        t = _tput(prof, job.model, c, m)
        if snap.meta["run_set"] == "proportional" and t < floor:
            continue
        out += [(c, m, job.gpus * t, n) for n in spreads]
    return out


def _fits(snap: Snapshot, used: list[list[float]]) -> bool:
    cl = snap.cluster
    caps = (cl.gpus_per_server, cl.cpus_per_server, cl.mem_gb_per_server)
    return all(u[k] <= caps[k] * (1 + CAP_RTOL) + 1e-9 for u in used for k in range(3))


def _search(snap: Snapshot) -> tuple[float | None, tuple | None]:
    """(optimum, (picks, per-server use)) over every combination, depth first, a branch left
    only when a server is over capacity; (None, None) if no combination fits."""
    scope = _scope(snap)
    must = snap.meta["run_set"] == "proportional"
    options_of = [_choices(snap, i) + ([] if must else [None]) for i in scope]
    used = [[0.0, 0.0, 0.0] for _ in range(snap.cluster.servers)]
    picks: list = []
    best: list = [None, None]

    def take(pick: tuple, sign: int) -> None:
        c, m, _t, n = pick
        for srv, k in enumerate(n):
            used[srv][0] += sign * k
            used[srv][1] += sign * k * c
            used[srv][2] += sign * k * m

    def dfs(level: int) -> None:
        if level == len(options_of):
            value = math.fsum(p[2] for p in picks if p is not None)
            if best[0] is None or value > best[0]:
                best[0], best[1] = value, (tuple(picks), [list(u) for u in used])
            return
        for pick in options_of[level]:
            if pick is not None:
                take(pick, 1)
            if pick is None or _fits(snap, used):
                picks.append(pick)
                dfs(level + 1)
                picks.pop()
            if pick is not None:
                take(pick, -1)

    dfs(0)
    return best[0], best[1]


_OPTIMA: dict[str, tuple[Status, float | None]] = {}


def oracle(snap: Snapshot) -> tuple[Status, float | None]:
    """Every configuration x every placement of the jobs in scope."""
    key = snap.to_json() + str(snap.meta)
    if key not in _OPTIMA:
        value, _ = _search(snap)
        _OPTIMA[key] = (Status.INFEASIBLE, None) if value is None else (Status.OPTIMAL, value)
    return _OPTIMA[key]


def recheck(snap: Snapshot, result: SolveResult) -> None:
    """Whole jobs of the snapshot, one configuration on all their servers, the run-set rule,
    every server within capacity; the throughput recomputed from the raw profiles is the value."""
    alloc = result.solution
    assert alloc is not None
    by_id = {j.id: (i, j) for i, j in enumerate(snap.jobs)}
    scope = set(_scope(snap))
    used = [[0.0, 0.0, 0.0] for _ in range(snap.cluster.servers)]
    total = []
    ran = set()
    for a in alloc.jobs:
        i, job = by_id[a.job_id]
        assert i in scope and i not in ran, a.job_id
        ran.add(i)
        assert sum(p.gpus for p in a.parts) == job.gpus, a
        c, m = a.parts[0].cpus / a.parts[0].gpus, a.parts[0].mem_gb / a.parts[0].gpus
        for p in a.parts:
            assert 0 <= p.server < snap.cluster.servers and p.gpus >= 1
            assert math.isclose(p.cpus, p.gpus * c, rel_tol=1e-12)
            assert math.isclose(p.mem_gb, p.gpus * m, rel_tol=1e-12)
            used[p.server][0] += p.gpus
            used[p.server][1] += p.cpus
            used[p.server][2] += p.mem_gb
        # inside the profiled range (the documented grid tolerance, as for the throughput)
        assert _floor(snap.profiles.cpu_values, c) >= 0 and _floor(snap.profiles.mem_values, m) >= 0
        t = _tput(snap.profiles, job.model, c, m)
        if snap.meta["run_set"] == "proportional":
            cl = snap.cluster
            prop = _tput(snap.profiles, job.model, cl.prop_cpus_per_gpu, cl.prop_mem_gb_per_gpu)
            assert t >= prop - TPUT_TOL, a
        total.append(job.gpus * t)
    if snap.meta["run_set"] == "proportional":
        assert ran == scope, (ran, scope)
    assert _fits(snap, used), used
    value = math.fsum(total)
    assert result.value is not None
    assert abs(value - result.value) <= PROOF_TOL * max(1.0, abs(value)), (value, result.value)
