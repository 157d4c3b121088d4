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

The model of the MILP and CP-SAT is built once (`build_model`) and handed to either back end;
only the numbers it is written in differ (`FloatScales` for the MILP, `Scales` for CP-SAT's
integers). It aggregates single-GPU jobs of the same model (interchangeable: same
configurations, same throughput) into counts per (configuration, server); multi-GPU jobs are
modelled one by one. Servers are identical, so GPU use is required non-increasing in the server
index (symmetry breaking, valid because any solution can be permuted into that order).

Variables: w[t,q,s] = number of single-GPU jobs of type t at configuration q on server s
(integer); for a multi-GPU job j, y[j,q] = 1 if it uses configuration q and z[j,q,s] = its GPUs
on server s at q (integer, z <= min(gpus, gpus_per_server) y, sum_s z[j,q,s] = gpus_j y[j,q]).
Per server: GPUs, CPUs (c_q per GPU) and memory (m_q per GPU) within capacity. Objective: max
sum t_q (w + gpus y); a proven upper bound on it (`cut`), when given, caps it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.linear import INF, LinearModel, empty_model
from schedlab.solvers.kit.mip import solve_highs
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve
from schedlab.solvers.synergy.allocation import (
    Allocation,
    JobAllocation,
    capacity_limit,
    check_allocation,
    total_tput,
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


def bound_and_start(
    st: ExactStructure, relaxation_cut: bool, hint: bool, deadline: Deadline,
    stats: dict[str, Any],
) -> tuple[float | None, tuple[Counts, MultiChoice] | None]:  # fmt: skip
    """What both back ends start from: the cluster-totals bound (`relaxation_bound`, when
    `relaxation_cut`) and the heuristic start (`start_point`, when `hint`), noted in `stats`."""
    rel = relaxation_bound(st) if relaxation_cut else None
    stats["relaxation_bound"] = rel
    start = start_point(st, deadline) if hint else None
    if start is not None:
        stats["hint_value"] = total_tput(st.snap, decode(st, *start))
    return rel, start


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
    model = empty_model(lo, hi, maximize=True)
    for ti, (k, g) in enumerate(keys):
        for c, m, t in st.configs[k]:
            model.add_col(
                g * t, 0.0, float(groups[(k, g)]), [ti, n, n + 1, n + 2], [1.0, g, g * c, g * m]
            )
    if not model.cost:
        return 0.0
    out = solve_highs(model, integer=True, deadline=deadline)
    if out.status is Status.OPTIMAL and out.bound is None:
        return out.value
    return out.bound  # HiGHS's dual bound (its optimal value may sit up to its gap below it)


# ---- the numbers the model is written in --------------------------------------------------
class Coefficients(Protocol):
    """How the model's data are written: CPUs and memory of a demand and of a capacity,
    throughput, and the cap a proven bound `rel` puts on the objective; `integral`: integers."""

    @property
    def integral(self) -> bool: ...

    def c(self, v: float) -> float: ...
    def m(self, v: float) -> float: ...
    def cap_c(self, v: float) -> float: ...
    def cap_m(self, v: float) -> float: ...
    def t(self, v: float) -> float: ...
    def cut(self, rel: float, gpus: int) -> float: ...


#: CPU and memory rows of the MILP count in this share of the server's capacity.
ROW_UNIT = 1e-3


@dataclass(frozen=True)
class FloatScales:
    """The MILP's numbers: CPU and memory rows in units of ROW_UNIT of the capacity, up to the
    validator's limit, so that the solvers' absolute tolerances (HiGHS's MIP feasibility 1e-6)
    let a solution break a capacity by 1e-9 of it at most, as the validator does, whatever the
    capacity's size; throughput as it is."""

    cpu: float
    mem: float
    integral: bool = False

    def c(self, v: float) -> float:
        return v * self.cpu

    def m(self, v: float) -> float:
        return v * self.mem

    def cap_c(self, v: float) -> float:
        return capacity_limit(v) * self.cpu

    def cap_m(self, v: float) -> float:
        return capacity_limit(v) * self.mem

    def t(self, v: float) -> float:
        return v

    def cut(self, rel: float, gpus: int) -> float:
        return rel + 1e-7 * max(1.0, abs(rel))


def float_scales(st: ExactStructure) -> FloatScales:
    cl = st.snap.cluster
    return FloatScales(
        1.0 / (ROW_UNIT * cl.cpus_per_server), 1.0 / (ROW_UNIT * cl.mem_gb_per_server)
    )


#: CP-SAT's capacities are scaled to about 2^CAP_BITS: a demand's rounding is below 2^-40 of a
#: capacity, far inside the validator's 1e-9, and a server's row sums stay far below 2^62.
CAP_BITS = 40
#: CP-SAT's scaled objective stays below 2^OBJ_BITS (exact in its doubles, below 2^53; at 2^56
#: CP-SAT reported half the optimum as its bound), and every variable at its upper bound below
#: 2^62 (CP-SAT's overflow check).
OBJ_BITS = 50


def pow2_scale(top: float, bits: int) -> float:
    """The power of two S with top S in [2^(bits - 1), 2^bits) (1 when top is not positive)."""
    if not top > 0:
        return 1.0
    return math.ldexp(1.0, min(bits - math.frexp(top)[1], 1000))  # a subnormal top: 2^1000


@dataclass(frozen=True)
class Scales:
    """CP-SAT's numbers: scales (powers of two) of CPUs, memory and throughput; `tput_exact`:
    every throughput scales to an integer; `relaxed`: round so that the model relaxes the true
    one (demands down, capacities up), else restricts it (demands up, capacities down)."""

    cpu: float
    mem: float
    tput: float
    tput_exact: bool
    relaxed: bool = True
    integral: bool = True

    def _demand(self, v: float, scale: float) -> int:
        return int(math.floor(v * scale) if self.relaxed else math.ceil(v * scale))

    def _capacity(self, v: float, scale: float) -> int:
        limit = capacity_limit(v) * scale
        return int(math.ceil(limit) if self.relaxed else math.floor(limit))

    def c(self, v: float) -> int:
        """Scaled CPUs of a demand."""
        return self._demand(v, self.cpu)

    def m(self, v: float) -> int:
        """Scaled GB of a demand."""
        return self._demand(v, self.mem)

    def cap_c(self, v: float) -> int:
        """Scaled CPU capacity limit of a server of `v` CPUs."""
        return self._capacity(v, self.cpu)

    def cap_m(self, v: float) -> int:
        """Scaled memory capacity limit of a server of `v` GB."""
        return self._capacity(v, self.mem)

    def t(self, v: float) -> int:
        """Scaled throughput, rounded up (exact when `tput_exact`): the bound stays an upper
        bound; the value is recomputed in true units anyway."""
        return int(math.ceil(v * self.tput))

    def cut(self, rel: float, gpus: int) -> int:
        """Every valid allocation scores at most rel, so at most rel S + its GPUs (rounding up
        each throughput adds less than 1 per GPU-weighted term): the cut keeps the optimum."""
        return int(math.ceil(rel * self.tput)) + gpus


def scales_of(st: ExactStructure, relaxed: bool = True) -> Scales:
    """CP-SAT's scales of the structure's data (any finite data: no decimals required)."""
    cl = st.snap.cluster
    all_cfgs = [q for k in st.configs for q in st.configs[k]]
    top_t = max((q[2] for q in all_cfgs), default=0.0)
    ub = max((j.gpus for j in st.snap.jobs), default=1) * cl.gpus_per_server
    gpus = sum(st.snap.jobs[j].gpus for j in st.scope)
    ts = min(
        pow2_scale(top_t * gpus, OBJ_BITS),
        pow2_scale(top_t * ub * max(1, model_variables(st)), 62),
    )
    exact = all(float(q[2] * ts).is_integer() for q in all_cfgs)
    cs = pow2_scale(capacity_limit(cl.cpus_per_server), CAP_BITS)
    ms = pow2_scale(capacity_limit(cl.mem_gb_per_server), CAP_BITS)
    return Scales(cs, ms, ts, exact, relaxed)


# ---- the model, built once ----------------------------------------------------------------
@dataclass
class ModelColumns:
    """The model (maximized) and the column of each variable."""

    model: LinearModel
    w: dict[tuple[int, int, int], int]
    y: dict[tuple[int, int], int]
    z: dict[tuple[int, int, int], int]


def build_model(
    st: ExactStructure,
    coef: Coefficients,
    *,
    cut: float | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> ModelColumns:
    """The model column by column (fast: no per-term Python objects, so building 10^6 columns
    takes seconds, not minutes) in `coef`'s numbers; `cut`, when given, is a proven upper bound
    on the objective. DeadlineExceeded once `deadline` passes."""
    cl = st.snap.cluster
    S, G = cl.servers, cl.gpus_per_server
    model = empty_model(maximize=True)
    gpu = [model.row(-INF, G) for _ in range(S)]
    cpu = [model.row(-INF, coef.cap_c(cl.cpus_per_server)) for _ in range(S)]
    mem = [model.row(-INF, coef.cap_m(cl.mem_gb_per_server)) for _ in range(S)]
    sym = [model.row(0.0, INF) for _ in range(S - 1)]  # gpu_use[s] - gpu_use[s + 1] >= 0
    gpus = sum(st.snap.jobs[j].gpus for j in st.scope)
    cut_row = None if cut is None else model.row(-INF, coef.cut(cut, gpus))

    def col(cost: float, ub: float, s: int, c: float, m: float, rows: list[int],
            vals: list[float]) -> int:  # fmt: skip
        rows = [*rows, gpu[s], cpu[s], mem[s]]
        vals = [*vals, 1.0, coef.c(c), coef.m(m)]
        if s > 0:
            rows.append(sym[s - 1])
            vals.append(-1.0)
        if s < S - 1:
            rows.append(sym[s])
            vals.append(1.0)
        if cut_row is not None and cost:
            rows.append(cut_row)
            vals.append(cost)
        return model.add_col(cost, 0.0, ub, rows, vals)

    out = ModelColumns(model, {}, {}, {})
    for ti, (k, pos) in enumerate(st.types):
        r = model.row(len(pos), len(pos)) if st.must_run else model.row(-INF, len(pos))
        for qi, (c, m, t) in enumerate(st.configs[k]):
            deadline.check()  # building can outlast the time limit on large clusters
            for s in range(S):
                out.w[ti, qi, s] = col(coef.t(t), min(len(pos), G), s, c, m, [r], [1.0])
    for j in st.multi:
        g = st.snap.jobs[j].gpus
        pick = model.row(1.0, 1.0) if st.must_run else model.row(-INF, 1.0)
        for qi, (c, m, t) in enumerate(st.configs[st.models[j]]):
            deadline.check()
            whole = model.row(0.0, 0.0)  # sum_s z[j, q, s] - g y[j, q] = 0
            links = [model.row(-INF, 0.0) for _ in range(S)]  # z[j, q, s] - min(g, G) y <= 0
            rows, vals = [pick, whole, *links], [1.0, -g, *[-min(g, G)] * S]
            cost = g * coef.t(t)
            if cut_row is not None:
                rows.append(cut_row)
                vals.append(cost)
            out.y[j, qi] = model.add_col(cost, 0.0, 1.0, rows, vals)
            for s in range(S):
                out.z[j, qi, s] = col(0.0, min(g, G), s, c, m, [whole, links[s]], [1.0, 1.0])
    return out


def start_vector(mc: ModelColumns, counts: Counts, multi: MultiChoice) -> np.ndarray:
    """A model point (`model_point`) as column values: a MIP start or a CP-SAT hint."""
    x = np.zeros(mc.model.n_cols)
    for key, n in counts.items():
        x[mc.w[key]] = n
    for j, (qi, parts) in multi.items():
        x[mc.y[j, qi]] = 1.0
        for s, g in parts.items():
            x[mc.z[j, qi, s]] = g
    return x


def decode_columns(st: ExactStructure, mc: ModelColumns, x: np.ndarray) -> Allocation:
    """The allocation of a solution's column values."""
    counts = {key: int(round(x[i])) for key, i in mc.w.items() if x[i] > 0.5}
    multi: dict[int, tuple[int, dict[int, int]]] = {}
    S = st.snap.cluster.servers
    for (j, qi), i in mc.y.items():
        if x[i] > 0.5:
            parts = {s: int(round(x[mc.z[j, qi, s]])) for s in range(S)}
            multi[j] = (qi, {s: g for s, g in parts.items() if g > 0})
    return decode(st, counts, multi)
