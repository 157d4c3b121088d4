"""What the exact methods optimize, shared by the MILP, CP-SAT and the enumeration oracle.

Two run-set rules (`run_set`):
- "proportional" (default): exactly the jobs GPU-proportional runs this round
  (`Snapshot.proportional_set()`) run, each at a configuration with at least its proportional
  per-GPU throughput. Proportional, TUNE and rounded OPT allocations lie in this set, so the
  exact optimum bounds them and their gap is meaningful. No other job can run: the proportional
  set leaves fewer free GPUs than any other job needs.
- "any": any subset of the snapshot's jobs runs, at any profiled configuration (no floor).
  Its optimum bounds every valid allocation, GREEDY's included.
Objective: total throughput sum(gpus * tput(c, m)) with per-server GPU, CPU and memory
capacities, each job whole (exactly its GPUs) with one per-GPU configuration on all its servers.

The MILP and CP-SAT models aggregate single-GPU jobs of the same model (interchangeable: same
configurations, same throughput) into counts per (configuration, server); multi-GPU jobs are
modelled one by one. Servers are identical, so GPU use is required non-increasing in the server
index (symmetry breaking, valid because any solution can be permuted into that order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.highs import empty_model, run_highs
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve
from schedlab.solvers.synergy.allocation import (
    Allocation,
    JobAllocation,
    capacity_limit,
    check_allocation,
)
from schedlab.solvers.synergy.configs import Config, candidate_configs
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc

RUN_SETS = ("proportional", "any")
RunSet = Literal["proportional", "any"]
RUN_SET_HELP = (
    "run exactly the jobs GPU-proportional runs (each >= its proportional throughput), "
    "or any subset at any configuration"
)
#: Memory the door reserves per model variable (PuLP/CP-SAT objects, rows that name it).
MODEL_BYTES_PER_VAR = 1024


@dataclass(frozen=True)
class ExactStructure:
    """Jobs in scope, grouped: single-GPU types (model, positions) and multi-GPU jobs."""

    snap: Snapshot
    run_set: str
    must_run: bool
    scope: tuple[int, ...]
    types: tuple[tuple[int, tuple[int, ...]], ...]
    multi: tuple[int, ...]
    configs: dict[int, list[Config]]
    models: tuple[int, ...]


def build_structure(snap: Snapshot, run_set: str = "proportional") -> ExactStructure:
    if run_set not in RUN_SETS:
        raise InvalidInput(f"run_set: must be one of {', '.join(RUN_SETS)} (got {run_set!r})")
    must = run_set == "proportional"
    scope = tuple(snap.proportional_set()) if must else tuple(range(snap.n))
    models = tuple(snap.model_indices())
    groups: dict[int, list[int]] = {}
    multi = []
    for j in scope:
        if snap.jobs[j].gpus == 1:
            groups.setdefault(models[j], []).append(j)
        else:
            multi.append(j)
    configs = {
        k: candidate_configs(snap.profiles, snap.cluster, k, floor=must)
        for k in sorted({models[j] for j in scope})
    }
    types = tuple((k, tuple(v)) for k, v in sorted(groups.items()))
    st = ExactStructure(snap, run_set, must, scope, types, tuple(multi), configs, models)
    check_alloc(
        MODEL_BYTES_PER_VAR * model_variables(st),
        f"an exact model of {len(scope)} jobs on {snap.cluster.servers} servers",
        fix="use a heuristic (tune, opt, greedy) or fewer servers",
    )
    return st


def valid(st: ExactStructure, alloc: Allocation) -> bool:
    """`alloc` passes the validator and the run-set rule (a solver's solution can break a
    capacity within its own tolerances)."""
    return not check_allocation(st.snap, alloc, require_proportional_set=st.must_run)


def nothing_runs(st: ExactStructure) -> bool:
    """No job in scope has a candidate configuration (with run set "any", a model whose every
    configuration makes no progress has none): the empty allocation is the only one."""
    return not any(st.configs[st.models[j]] for j in st.scope)


def model_variables(st: ExactStructure) -> int:
    """Integer variables of the MILP/CP-SAT model: (type or multi-GPU job, config, server)."""
    per_server = sum(len(st.configs[k]) for k, _pos in st.types)
    per_server += sum(len(st.configs[st.models[j]]) for j in st.multi)
    return per_server * st.snap.cluster.servers


def decode(
    st: ExactStructure,
    counts: dict[tuple[int, int, int], int],
    multi: dict[int, tuple[int, dict[int, int]]],
) -> Allocation:
    """Allocation from type counts {(type, config, server): n} and multi-GPU choices
    {position: (config, {server: gpus})}; within a type, earlier jobs (policy order) get the
    faster configurations."""
    ids = [j.id for j in st.snap.jobs]
    out: list[tuple[int, JobAllocation]] = []
    for ti, (k, pos) in enumerate(st.types):
        cfgs = st.configs[k]
        slots = sorted(
            ((qi, s) for (t, qi, s), n in counts.items() if t == ti for _ in range(n)),
            key=lambda x: (-cfgs[x[0]][2], x[1]),
        )
        for j, (qi, s) in zip(pos, slots, strict=False):
            c, m, _t = cfgs[qi]
            out.append((j, JobAllocation.uniform(ids[j], c, m, [(s, 1)])))
    for j, (qi, parts) in multi.items():
        c, m, _t = st.configs[st.models[j]][qi]
        out.append((j, JobAllocation.uniform(ids[j], c, m, sorted(parts.items()))))
    return Allocation(tuple(a for _j, a in sorted(out, key=lambda x: x[0])))


Counts = dict[tuple[int, int, int], int]
MultiChoice = dict[int, tuple[int, dict[int, int]]]


def model_point(st: ExactStructure, alloc: Allocation) -> tuple[Counts, MultiChoice] | None:
    """`alloc` as a point of the exact model (the `decode` inverse), servers renumbered by
    non-increasing GPU use as the symmetry breaking requires; None when `alloc` lies outside
    the model's set (a job outside the run set, a configuration not among the candidates, or
    a job of a must-run set left out). Used as a MIP start / hint and as a fallback incumbent."""
    pos = {j.id: i for i, j in enumerate(st.snap.jobs)}
    scope = set(st.scope)
    tindex = {k: ti for ti, (k, _p) in enumerate(st.types)}
    counts: Counts = {}
    multi: MultiChoice = {}
    for a in alloc.jobs:
        j = pos.get(a.job_id, -1)
        if j not in scope:
            return None
        cfgs = st.configs[st.models[j]]
        qi = next(
            (
                i
                for i, (c, m, _t) in enumerate(cfgs)
                if math.isclose(c, a.cpus_per_gpu, abs_tol=1e-9)
                and math.isclose(m, a.mem_gb_per_gpu, abs_tol=1e-9)
            ),
            -1,
        )
        if qi < 0:
            return None
        if st.snap.jobs[j].gpus == 1:
            key = (tindex[st.models[j]], qi, a.parts[0].server)
            counts[key] = counts.get(key, 0) + 1
        else:
            multi[j] = (qi, {p.server: p.gpus for p in a.parts})
    if st.must_run and len(alloc.jobs) != len(scope):
        return None
    use = [0] * st.snap.cluster.servers
    for (_ti, _qi, s), n in counts.items():
        use[s] += n
    for _qi, parts in multi.values():
        for s, n in parts.items():
            use[s] += n
    ren = {old: new for new, old in enumerate(sorted(range(len(use)), key=lambda s: -use[s]))}
    counts = {(ti, qi, ren[s]): n for (ti, qi, s), n in counts.items()}
    multi = {j: (qi, {ren[s]: g for s, g in parts.items()}) for j, (qi, parts) in multi.items()}
    return counts, multi


def start_point(st: ExactStructure, deadline: Deadline) -> tuple[Counts, MultiChoice] | None:
    """A heuristic incumbent as a model point: rounded Synergy-OPT without a time limit, TUNE
    (seconds faster at 2,000 servers) with one; None when it lies outside the model's set or
    the deadline has passed (both heuristics are compiled or LP-based and cannot be
    interrupted, so neither is started late)."""
    # the hints' modules, imported here so that the code version of the exact methods (their
    # static import closure, `experiments/codeversion.py`) covers them: `solve` finds them by name
    from schedlab.solvers.synergy import heuristic_opt, heuristics  # noqa: F401

    if deadline.passed():
        return None
    res = solve(st.snap, "opt" if deadline.at is None else "tune")
    return None if res.solution is None else model_point(st, res.solution)


def relaxation_bound(st: ExactStructure, deadline: Deadline = NO_DEADLINE) -> float | None:
    """A proven upper bound on the exact optimum: the configuration choice under cluster-wide
    GPU, CPU and memory totals only (per-server capacities relaxed), solved by HiGHS."""
    snap, cl = st.snap, st.snap.cluster
    groups: dict[tuple[int, int], int] = {}
    for j in st.scope:
        key = (st.models[j], snap.jobs[j].gpus)
        groups[key] = groups.get(key, 0) + 1
    keys = sorted(groups)
    n = len(keys)
    lo = [float(groups[k]) if st.must_run else 0.0 for k in keys] + [0.0, 0.0, 0.0]
    hi = [float(groups[k]) for k in keys] + [
        float(cl.total_gpus),
        cl.servers * capacity_limit(cl.cpus_per_server),
        cl.servers * capacity_limit(cl.mem_gb_per_server),
    ]
    model = empty_model(lo, hi)
    for ti, (k, g) in enumerate(keys):
        for c, m, t in st.configs[k]:
            model.add_col(
                g * t, 0.0, float(groups[(k, g)]), [ti, n, n + 1, n + 2], [1.0, g, g * c, g * m]
            )
    if not model.cost:
        return 0.0
    out = run_highs(model, maximize=True, integer=True, deadline=deadline)
    if out.status is Status.OPTIMAL and out.bound is None:
        return out.value
    return out.bound  # HiGHS's dual bound (its optimal value may sit up to its gap below it)
