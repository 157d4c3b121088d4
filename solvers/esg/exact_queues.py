"""Exact plans of many queues under invoker capacities: brute force, a MILP and CP-SAT.

Model (both solvers): w[q, s, k, j] = 1 when stage s of queue q runs configuration k on
invoker j (only pairs where the configuration fits the invoker alone); y[q] = 1 when queue q is
served. Each stage of a served queue has exactly one (k, j): sum_kj w[q, s, k, j] = y[q]; a
served queue fits its budget: sum_skj lat * w <= budget; each invoker's vCPUs and GPU share
hold: sum v * w <= V_j, sum g * w <= G_j. Lexicographic objective (see `queues`):
- MILP: two solves, max sum y, then min cost subject to sum y >= the first optimum;
- CP-SAT: one integer objective misses * W + scaled cost with W = 1 + the largest total scaled
  cost, so a miss outweighs any cost difference (exact in integers).
Pre-filter (keeps an optimum): configurations that fit no invoker, that miss the budget even
with the fastest other stages, or that are dominated in (latency, cost, vCPUs, share) are
dropped: replacing a dominated configuration by its dominator on the same invoker keeps every
constraint and never raises the cost.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.dispatch import CAP_TOL
from schedlab.solvers.esg.problem import LAT_TOL
from schedlab.solvers.esg.problem_queues import Choice, QueuesProblem, StageTable, queues_result
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import check_alloc, check_deadline, time_left

KINDS = ("queues",)


def dominated(t: StageTable) -> np.ndarray:
    """Mask of configurations dominated in (latency, cost, vCPUs, share) (first of ties kept)."""
    m = np.stack([t.lat, t.cost, t.vcpus, t.share], axis=1)
    n = len(m)
    le = (m[:, None, :] <= m[None, :, :]).all(axis=2)  # le[a, b]: a no worse than b everywhere
    lt = (m[:, None, :] < m[None, :, :]).any(axis=2)
    strictly = le & lt
    tie = le & ~lt & (np.arange(n)[:, None] < np.arange(n)[None, :])
    out = np.asarray((strictly | tie).any(axis=0), dtype=bool)
    return out


def candidates(problem: QueuesProblem, prune: bool) -> list[list[np.ndarray]]:
    """Per queue and stage, the configuration indices kept (see the module doc)."""
    out = []
    for q, rows in zip(problem.queues, problem.tables(), strict=True):
        fast = [float(t.lat.min()) for t in rows]
        per = []
        for s, t in enumerate(rows):
            ok = np.ones(len(t.lat), dtype=bool)
            if prune:
                fit = np.zeros(len(t.lat), dtype=bool)
                for inv in problem.invokers:
                    fit |= (t.vcpus <= inv.vcpus + CAP_TOL) & (t.share <= inv.gpu + CAP_TOL)
                rest = sum(fast) - fast[s]
                ok = fit & (t.lat + rest <= q.budget_ms + LAT_TOL) & ~dominated(t)
            per.append(np.flatnonzero(ok))
        out.append(per)
    return out


def _fits(tab: list[tuple[float, float]], caps: list[list[float]], i: int) -> bool:
    """Depth-first: can items tab[i:] be packed into the remaining capacities?"""
    if i == len(tab):
        return True
    v, g = tab[i]
    for cap in caps:
        if cap[0] >= v - CAP_TOL and cap[1] >= g - CAP_TOL:
            cap[0] -= v
            cap[1] -= g
            ok = _fits(tab, caps, i + 1)
            cap[0] += v
            cap[1] += g
            if ok:
                return True
    return False


def _pack(tab: list[tuple[float, float]], caps: list[list[float]]) -> list[int] | None:
    """An invoker per item (first found by the same depth-first order), or None."""
    out: list[int] = []
    for i, (v, g) in enumerate(tab):
        for j, cap in enumerate(caps):
            if cap[0] >= v - CAP_TOL and cap[1] >= g - CAP_TOL:
                cap[0] -= v
                cap[1] -= g
                if _fits(tab, caps, i + 1):
                    out.append(j)
                    break
                cap[0] += v
                cap[1] += g
        else:
            return None
    return out


@dataclass(frozen=True)
class QBruteOptions:
    max_combos: int = field(
        default=2_000_000,
        metadata={"help": "refuse larger spaces (each is listed in memory)", "range": (1, 10**8)},
    )


#: Bytes per listed combination of q_brute (a tuple of the pick, misses and cost).
COMBO_BYTES = 200


@register_method(
    "esg", "q_brute", exact=True, kinds=KINDS, options=QBruteOptions,
    summary="many queues: enumerate paths per queue (or miss) x placements",
)  # fmt: skip
def solve_q_brute(
    problem: QueuesProblem,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: QBruteOptions,
) -> SolveResult:
    """Proven optimum: every (path or miss) per queue by (misses, cost), first that packs."""
    t0 = time.perf_counter()
    tabs = problem.tables()
    raw = sum(math.prod(len(t.lat) for t in rows) for rows in tabs)
    if raw > options.max_combos:  # refused before enumerating (listing them alone would hang)
        raise InvalidInput(
            f"q_brute: {raw} configuration paths to list exceed max_combos={options.max_combos}"
        )
    check_alloc(COMBO_BYTES * raw, f"q_brute: listing {raw} configuration paths", fix="use q_milp")
    opts: list[list[tuple[float, tuple[int, ...] | None]]] = []
    for q, rows in zip(problem.queues, tabs, strict=True):
        check_deadline()
        paths: list[tuple[float, tuple[int, ...] | None]] = [(0.0, None)]
        for ks in itertools.product(*(range(len(t.lat)) for t in rows)):
            lat = sum(float(t.lat[k]) for k, t in zip(ks, rows, strict=True))
            if lat <= q.budget_ms + LAT_TOL:
                paths.append((sum(float(t.cost[k]) for k, t in zip(ks, rows, strict=True)), ks))
        opts.append(paths)
    space = math.prod(len(o) for o in opts)
    if space > options.max_combos:
        raise InvalidInput(f"q_brute: {space} combinations exceed max_combos={options.max_combos}")
    check_alloc(COMBO_BYTES * space, f"q_brute: listing {space} combinations", fix="use q_milp")
    combos = []
    for pick in itertools.product(*opts):
        misses = sum(ks is None for _, ks in pick)
        combos.append((misses, sum(c for c, _ in pick), pick))
    combos.sort(key=lambda x: (x[0], x[1]))
    caps = [[inv.vcpus, inv.gpu] for inv in problem.invokers]
    for n_tried, (_, _, pick) in enumerate(combos):
        if n_tried % 1024 == 0:
            check_deadline()
        items = [
            (q, s, k) for q, (_, ks) in enumerate(pick) if ks is not None for s, k in enumerate(ks)
        ]
        tab = [(float(tabs[q][s].vcpus[k]), float(tabs[q][s].share[k])) for q, s, k in items]
        where = _pack(tab, caps)
        if where is None:
            continue
        choices: list[Choice] = [None] * len(problem.queues)
        for qi, (_, picked) in enumerate(pick):
            if picked is not None:
                choices[qi] = tuple((k, where[n]) for n, (qq, _, k) in enumerate(items) if qq == qi)
        return queues_result(
            problem, choices, "q_brute", time.perf_counter() - t0, exact=True,
            stats={"combinations": space},
        )  # fmt: skip
    raise AssertionError("unreachable: missing every queue always packs")


def _fit_pairs(problem: QueuesProblem, t: StageTable, k: int) -> list[int]:
    return [
        j
        for j, inv in enumerate(problem.invokers)
        if t.vcpus[k] <= inv.vcpus + CAP_TOL and t.share[k] <= inv.gpu + CAP_TOL
    ]


def _index(problem: QueuesProblem, prune: bool) -> list[tuple[int, int, int, int]]:
    """Every (queue, stage, config, invoker) of the model."""
    tabs, cand = problem.tables(), candidates(problem, prune)
    return [
        (q, s, int(k), j)
        for q, per in enumerate(cand)
        for s, ks in enumerate(per)
        for k in ks
        for j in _fit_pairs(problem, tabs[q][s], int(k))
    ]


def _choices(problem: QueuesProblem, on: list[tuple[int, int, int, int]]) -> list[Choice]:
    """Choices from the (q, s, k, j) tuples set to 1."""
    per: dict[int, dict[int, tuple[int, int]]] = {}
    for q, s, k, j in on:
        per.setdefault(q, {})[s] = (k, j)
    return [
        tuple(per[q][s] for s in sorted(per[q])) if q in per else None
        for q in range(len(problem.queues))
    ]


@dataclass(frozen=True)
class QMilpOptions:
    prune: bool = field(default=True, metadata={"help": "drop dominated / unusable configs"})
    threads: int = field(default=1, metadata={"help": "HiGHS threads"})


def _highs_bound(prob: Any) -> float:
    model = getattr(prob, "solverModel", None)
    b = float(model.getInfo().mip_dual_bound) if model is not None else float("nan")
    return b if math.isfinite(b) and abs(b) < 1e30 else float("nan")


@register_method(
    "esg", "q_milp", exact=True, kinds=KINDS, options=QMilpOptions,
    summary="many queues: MILP, max hits then min cost (PuLP + HiGHS, two solves)",
)  # fmt: skip
def solve_q_milp(
    problem: QueuesProblem,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: QMilpOptions,
) -> SolveResult:
    """Lexicographic optimum by two MILP solves (hits, then cost with the hits held)."""
    import pulp

    t0 = time.perf_counter()
    tabs, idx = problem.tables(), _index(problem, options.prune)
    nq = len(problem.queues)
    scale = 1.0 / problem.cost_ref()
    prob = pulp.LpProblem("esg_queues", pulp.LpMaximize)
    w = {key: pulp.LpVariable("w_{}_{}_{}_{}".format(*key), cat=pulp.LpBinary) for key in idx}
    y = [pulp.LpVariable(f"y_{q}", cat=pulp.LpBinary) for q in range(nq)]
    by_qs: dict[tuple[int, int], list[Any]] = {}
    by_q: dict[int, list[tuple[tuple[int, int, int, int], Any]]] = {}
    by_j: dict[int, list[tuple[tuple[int, int, int, int], Any]]] = {}
    for key, v in w.items():  # one pass (grouping by scanning w per row was quadratic)
        by_qs.setdefault(key[:2], []).append(v)
        by_q.setdefault(key[0], []).append((key, v))
        by_j.setdefault(key[3], []).append((key, v))
    for q, rows in enumerate(tabs):
        check_deadline()  # building can outlast the time limit on many queues
        for s in range(len(rows)):
            prob += pulp.lpSum(by_qs.get((q, s), [])) == y[q]
        lat = [float(tabs[q][s].lat[k]) * v for (_, s, k, _), v in by_q.get(q, [])]
        prob += pulp.lpSum(lat) <= problem.queues[q].budget_ms
    for j, inv in enumerate(problem.invokers):
        on_j = by_j.get(j, [])
        prob += pulp.lpSum(float(tabs[q][s].vcpus[k]) * v for (q, s, k, _), v in on_j) <= inv.vcpus
        prob += pulp.lpSum(float(tabs[q][s].share[k]) * v for (q, s, k, _), v in on_j) <= inv.gpu
    prob += pulp.lpSum(y)
    stats: dict[str, Any] = {"variables": len(w) + nq}

    def run(limit: float | None) -> int:
        prob.solve(pulp.HiGHS(msg=False, timeLimit=limit, gapRel=0.0, gapAbs=1e-9,
                              threads=options.threads))  # fmt: skip
        return int(prob.sol_status)

    sol1 = run(time_left(t0, time_limit))  # building counts against the limit
    stats["phase1"] = pulp.LpSolution[sol1]
    if sol1 not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return queues_result(problem, None, "q_milp", time.perf_counter() - t0, exact=True,
                             stats=stats)  # fmt: skip
    hits = round(sum(v.value() or 0.0 for v in y))
    hits_ub = hits
    if sol1 != pulp.LpSolutionOptimal:
        b = _highs_bound(prob)
        hits_ub = nq if math.isnan(b) else min(nq, math.floor(b + 1e-6))
    prob += pulp.lpSum(y) >= hits, "keep_hits"
    prob.sense = pulp.LpMinimize
    prob.setObjective(
        pulp.lpSum(float(tabs[q][s].cost[k]) * scale * v for (q, s, k, _), v in w.items())
    )
    left = None if time_limit is None else max(time_limit - (time.perf_counter() - t0), 0.01)
    sol2 = run(left)
    stats["phase2"] = pulp.LpSolution[sol2]
    on = [key for key, v in w.items() if (v.value() or 0.0) > 0.5]
    if hits_ub > hits:
        bound = float(nq - hits_ub)
    elif sol2 == pulp.LpSolutionOptimal:
        bound = None  # both phases proven
    else:
        b = _highs_bound(prob)
        bound = float(nq - hits) + (0.0 if math.isnan(b) else max(b, 0.0))
    return queues_result(problem, _choices(problem, on), "q_milp", time.perf_counter() - t0,
                         exact=True, bound=bound, stats=stats)  # fmt: skip


@dataclass(frozen=True)
class QCpsatOptions:
    prune: bool = field(default=True, metadata={"help": "drop dominated / unusable configs"})
    num_workers: int = field(default=1, metadata={"help": "CP-SAT search workers"})
    time_unit_ms: float = field(default=0.001, metadata={"help": "integer time unit (ms)"})
    resource_unit: float = field(
        default=1e-6, metadata={"help": "integer vCPU / share unit", "range": (1e-6, 1.0)}
    )


def _ints(values: list[float], unit: float, up: bool) -> tuple[list[int], bool]:
    """Values in integer units, rounded up (or down) when inexact; and whether all were exact."""
    out, exact = [], True
    for v in values:
        x = v / unit
        r = round(x)
        if abs(x - r) <= 1e-6 * max(1.0, abs(x)):
            out.append(int(r))
        else:
            exact = False
            out.append(math.ceil(x) if up else math.floor(x))
    return out, exact


@register_method(
    "esg", "q_cpsat", exact=True, kinds=KINDS, options=QCpsatOptions,
    summary="many queues: CP-SAT, one objective misses * W + scaled cost",
)  # fmt: skip
def solve_q_cpsat(
    problem: QueuesProblem,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: QCpsatOptions,
) -> SolveResult:
    """Lexicographic optimum by CP-SAT with an exact integer weight (see the module doc)."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    tabs, idx = problem.tables(), _index(problem, options.prune)
    nq, ref = len(problem.queues), problem.cost_ref()
    scale = float(2**40) / ref  # a whole path set costs at most 2**39 units
    lat, ex1 = _ints([float(tabs[q][s].lat[k]) for q, s, k, _ in idx], options.time_unit_ms, True)
    bud, ex2 = _ints([q.budget_ms for q in problem.queues], options.time_unit_ms, False)
    ru = options.resource_unit
    vc, ex3 = _ints([float(tabs[q][s].vcpus[k]) for q, s, k, _ in idx], ru, True)
    sh, ex4 = _ints([float(tabs[q][s].share[k]) for q, s, k, _ in idx], ru, True)
    cap_v, ex5 = _ints([i.vcpus for i in problem.invokers], ru, False)
    cap_g, ex6 = _ints([i.gpu for i in problem.invokers], ru, False)
    exact = ex1 and ex2 and ex3 and ex4 and ex5 and ex6
    cost = [int(round(float(tabs[q][s].cost[k]) * scale)) for q, s, k, _ in idx]
    # any plan's integer cost is below W: each stage's rounded cost is at most its rounded max
    weight = 1 + sum(int(round(float(t.cost.max()) * scale)) for rows in tabs for t in rows)
    n_stages = sum(len(rows) for rows in tabs)
    m = cp_model.CpModel()
    w = [m.new_bool_var(f"w{n}") for n in range(len(idx))]
    y = [m.new_bool_var(f"y{q}") for q in range(nq)]
    by_qs: dict[tuple[int, int], list[int]] = {}
    for n, (q, s, _, _) in enumerate(idx):
        by_qs.setdefault((q, s), []).append(n)
    for q, rows in enumerate(tabs):
        for s in range(len(rows)):
            ns = by_qs.get((q, s), [])
            if ns:
                m.add(sum(w[n] for n in ns) == y[q])
            else:
                m.add(y[q] == 0)
        m.add(sum(lat[n] * w[n] for n, key in enumerate(idx) if key[0] == q) <= bud[q])
    for j in range(len(problem.invokers)):
        on_j = [n for n, key in enumerate(idx) if key[3] == j]
        m.add(sum(vc[n] * w[n] for n in on_j) <= cap_v[j])
        m.add(sum(sh[n] * w[n] for n in on_j) <= cap_g[j])
    m.minimize(weight * (nq - sum(y)) + sum(c * v for c, v in zip(cost, w, strict=True)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = options.num_workers
    solver.parameters.random_seed = int(seed or 0)
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    code = solver.solve(m)
    stats: dict[str, Any] = {"cpsat_status": solver.status_name(code), "scaling_exact": exact}
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return queues_result(problem, None, "q_cpsat", time.perf_counter() - t0, exact=True,
                             stats=stats)  # fmt: skip
    on = [key for n, key in enumerate(idx) if solver.boolean_value(w[n])]
    bound = -math.inf
    if exact:  # a plan with m' misses, integer cost c' < W has m' W + c' >= ib, so m' >= ib // W
        # and, when equal, c' >= ib % W; rounding moved each chosen cost by at most 1/2 unit
        ib = int(math.ceil(solver.best_objective_bound - 1e-6))
        lb_miss, lb_cost = divmod(max(ib, 0), weight)
        bound = lb_miss + max(lb_cost - n_stages / 2, 0.0) / scale / ref
    return queues_result(problem, _choices(problem, on), "q_cpsat", time.perf_counter() - t0,
                         exact=True, bound=bound, stats=stats)  # fmt: skip
