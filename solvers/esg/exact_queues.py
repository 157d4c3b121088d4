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
with the fastest other stages (tested with `problem.prune_limit`'s float slack), or that are
dominated in (latency, cost, vCPUs, share) are dropped: replacing a dominated configuration by
its dominator on the same invoker keeps every constraint and never raises the cost.

A plan fits the real data as `problem_queues.evaluate` says (latency <= budget + LAT_TOL,
usage <= capacity + CAP_TOL, float sums in order). q_brute tests exactly that. The MILP and
CP-SAT bracket it (`plan.bracket`): a relaxation (MILP: budgets and capacities loosened by
LOOSE_REL; CP-SAT: latencies and usages rounded down, budgets and capacities up by the float
rounding of a sum) that every fitting plan satisfies gives the bound; its plan is re-checked on
the real data and, when it does not fit, cut off (no-good) and the relaxation solved again; a
restriction (MILP: tightened by more than HiGHS's tolerances; CP-SAT: rounded the other way)
gives a plan that fits when the cuts run out (then `feasible`).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.backends import cpsat_solver
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.exact_cpsat import ceil_ticks, floor_ticks, limit_ticks
from schedlab.solvers.esg.exact_milp import LOOSE_REL, TIGHT_REL, highs_bound
from schedlab.solvers.esg.plan import Relaxed, bracket
from schedlab.solvers.esg.problem import budget_limit, fits_budget, prune_limit
from schedlab.solvers.esg.problem_queues import (
    Choice,
    QueuesProblem,
    StageTable,
    cap_limit,
    evaluate,
    queues_result,
)
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc, solver_seed

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
                    fit |= (t.vcpus <= cap_limit(inv.vcpus)) & (t.share <= cap_limit(inv.gpu))
                rest = sum(fast) - fast[s]
                ok = fit & (t.lat + rest <= prune_limit(budget_limit(q.budget_ms)))
                ok &= ~dominated(t)
            per.append(np.flatnonzero(ok))
        out.append(per)
    return out


def _fits(tab: list[tuple[float, float]], caps: list[list[float]], use: list[list[float]],
          i: int) -> bool:  # fmt: skip
    """Depth-first: can items tab[i:] be placed, each invoker's usage summed in item order
    (as `evaluate` sums it) staying within its limits `caps` (capacity + CAP_TOL)?"""
    if i == len(tab):
        return True
    v, g = tab[i]
    for cap, u in zip(caps, use, strict=True):
        if u[0] + v <= cap[0] and u[1] + g <= cap[1]:
            old = (u[0], u[1])
            u[0] += v
            u[1] += g
            ok = _fits(tab, caps, use, i + 1)
            u[0], u[1] = old  # restored exactly (subtracting would round)
            if ok:
                return True
    return False


def _pack(tab: list[tuple[float, float]], caps: list[list[float]]) -> list[int] | None:
    """An invoker per item (first found by the same depth-first order), or None."""
    out: list[int] = []
    use = [[0.0, 0.0] for _ in caps]
    for i, (v, g) in enumerate(tab):
        for j, (cap, u) in enumerate(zip(caps, use, strict=True)):
            if u[0] + v <= cap[0] and u[1] + g <= cap[1]:
                old = (u[0], u[1])
                u[0] += v
                u[1] += g
                if _fits(tab, caps, use, i + 1):
                    out.append(j)
                    break
                u[0], u[1] = old
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
    deadline: Deadline = NO_DEADLINE,
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
        deadline.check()
        paths: list[tuple[float, tuple[int, ...] | None]] = [(0.0, None)]
        for ks in itertools.product(*(range(len(t.lat)) for t in rows)):
            lat = sum(float(t.lat[k]) for k, t in zip(ks, rows, strict=True))
            if fits_budget(lat, q.budget_ms):
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
    caps = [[cap_limit(inv.vcpus), cap_limit(inv.gpu)] for inv in problem.invokers]
    for n_tried, (_, _, pick) in enumerate(combos):
        if n_tried % 1024 == 0:
            deadline.check()
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
        if t.vcpus[k] <= cap_limit(inv.vcpus) and t.share[k] <= cap_limit(inv.gpu)
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


def _keys(choices: list[Choice]) -> set[tuple[int, int, int, int]]:
    """The (q, s, k, j) tuples a plan sets to 1."""
    return {
        (q, s, k, j) for q, c in enumerate(choices) if c is not None for s, (k, j) in enumerate(c)
    }


def _fits_real(problem: QueuesProblem) -> Any:
    """The re-check of a plan on the real data (`evaluate` finds no violation)."""
    return lambda choices: not evaluate(problem, list(choices))[1]


@dataclass(frozen=True)
class QMilpOptions:
    prune: bool = field(default=True, metadata={"help": "drop dominated / unusable configs"})
    threads: int = shared("threads")


@register_method(
    "esg", "q_milp", exact=True, kinds=KINDS, options=QMilpOptions,
    summary="many queues: MILP, max hits then min cost (PuLP + HiGHS, two solves)",
)  # fmt: skip
def solve_q_milp(
    problem: QueuesProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: QMilpOptions,
) -> SolveResult:
    """Lexicographic optimum by two MILP solves (hits, then cost with the hits held)."""
    import pulp

    t0 = time.perf_counter()
    tabs, idx = problem.tables(), _index(problem, options.prune)
    nq = len(problem.queues)
    scale = 1.0 / problem.cost_ref()
    lims = [budget_limit(q.budget_ms) for q in problem.queues]
    caps = [(cap_limit(i.vcpus), cap_limit(i.gpu)) for i in problem.invokers]
    items = sum(len(rows) for rows in tabs)
    stats: dict[str, Any] = {"variables": len(idx) + nq}

    def run(budgets: list[float], capacity: list[tuple[float, float]],
            cuts: list[list[Choice]]) -> Relaxed[list[Choice]]:  # fmt: skip
        """Both phases on the model with these budgets and capacities, plans in `cuts` cut."""
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
            deadline.check()  # building can outlast the time limit on many queues
            for s in range(len(rows)):
                prob += pulp.lpSum(by_qs.get((q, s), [])) == y[q]
            lat = [float(tabs[q][s].lat[k]) * v for (_, s, k, _), v in by_q.get(q, [])]
            prob += pulp.lpSum(lat) <= budgets[q]
        for j, (cap_v, cap_g) in enumerate(capacity):
            on_j = by_j.get(j, [])
            prob += pulp.lpSum(float(tabs[q][s].vcpus[k]) * v for (q, s, k, _), v in on_j) <= cap_v
            prob += pulp.lpSum(float(tabs[q][s].share[k]) * v for (q, s, k, _), v in on_j) <= cap_g
        for cut in cuts:  # no-good: not exactly this assignment
            ones = _keys(cut)
            prob += pulp.lpSum(v if key in ones else -v for key, v in w.items()) <= len(ones) - 1
        prob += pulp.lpSum(y)

        def solve(limit: float | None) -> int:
            prob.solve(pulp.HiGHS(msg=False, timeLimit=limit, gapRel=0.0, gapAbs=1e-9,
                                  threads=options.threads))  # fmt: skip
            return int(prob.sol_status)

        ok = (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
        sol1 = solve(deadline.remaining(floor=0.01))  # building counts against the limit
        stats["phase1"] = pulp.LpSolution[sol1]
        if sol1 not in ok:  # every queue may miss: no plan means the time ran out
            return Relaxed(None, None)
        on = [key for key, v in w.items() if (v.value() or 0.0) > 0.5]
        hits = round(sum(v.value() or 0.0 for v in y))
        hits_ub = hits
        if sol1 != pulp.LpSolutionOptimal:
            b = highs_bound(prob)
            hits_ub = nq if math.isnan(b) else min(nq, math.floor(b + 1e-6))
        prob += pulp.lpSum(y) >= hits, "keep_hits"
        prob.sense = pulp.LpMinimize
        prob.setObjective(
            pulp.lpSum(float(tabs[q][s].cost[k]) * scale * v for (q, s, k, _), v in w.items())
        )
        sol2 = solve(deadline.remaining(floor=0.01))
        stats["phase2"] = pulp.LpSolution[sol2]
        if sol2 in ok:
            on = [key for key, v in w.items() if (v.value() or 0.0) > 0.5]
        b2 = highs_bound(prob) if sol2 in ok else float("nan")
        if math.isnan(b2) and sol2 == pulp.LpSolutionOptimal:
            b2 = float(pulp.value(prob.objective) or 0.0)
        if hits_ub > hits:
            bound = float(nq - hits_ub)
        else:
            bound = float(nq - hits) + (0.0 if math.isnan(b2) else max(b2, 0.0))
        proven = sol1 == pulp.LpSolutionOptimal and sol2 == pulp.LpSolutionOptimal
        return Relaxed(_choices(problem, on), bound, proven=proven)

    def relax(cuts: list[list[Choice]]) -> Relaxed[list[Choice]]:
        budgets = [b + LOOSE_REL * max(1.0, b) for b in lims]
        capacity = [(v + LOOSE_REL * max(1.0, v), g + LOOSE_REL * max(1.0, g)) for v, g in caps]
        return run(budgets, capacity, cuts)

    def restrict() -> list[Choice] | None:
        stats["restricted"] = True
        budgets = [
            b - TIGHT_REL * (len(rows) + 1) * max(1.0, b)
            for b, rows in zip(lims, tabs, strict=True)
        ]
        tight = TIGHT_REL * (items + 1)
        capacity = [(v - tight * max(1.0, v), g - tight * max(1.0, g)) for v, g in caps]
        return run(budgets, capacity, []).choice

    out = bracket(relax, restrict, _fits_real(problem), deadline.passed)
    stats["cuts"] = out.cuts
    bound = out.bound if math.isfinite(out.bound) else None
    return queues_result(problem, out.choice, "q_milp", time.perf_counter() - t0, exact=True,
                         bound=-math.inf if bound is None else bound, stats=stats)  # fmt: skip


@dataclass(frozen=True)
class QCpsatOptions:
    prune: bool = field(default=True, metadata={"help": "drop dominated / unusable configs"})
    num_workers: int = shared("num_workers")
    time_unit_ms: float = field(default=0.001, metadata={"help": "integer time unit (ms)"})
    resource_unit: float = field(
        default=1e-6, metadata={"help": "integer vCPU / share unit", "range": (1e-6, 1.0)}
    )


@register_method(
    "esg", "q_cpsat", exact=True, kinds=KINDS, options=QCpsatOptions,
    summary="many queues: CP-SAT, one objective misses * W + scaled cost",
)  # fmt: skip
def solve_q_cpsat(
    problem: QueuesProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: QCpsatOptions,
) -> SolveResult:
    """Lexicographic optimum by CP-SAT with an exact integer weight (see the module doc)."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    tabs, idx = problem.tables(), _index(problem, options.prune)
    nq, ref = len(problem.queues), problem.cost_ref()
    unit = float(2**40)  # cost / ref < 1/2: a whole plan costs at most 2**39 units
    tu, ru = options.time_unit_ms, options.resource_unit
    lat_ms = [float(tabs[q][s].lat[k]) for q, s, k, _ in idx]
    vcpus = [float(tabs[q][s].vcpus[k]) for q, s, k, _ in idx]
    share = [float(tabs[q][s].share[k]) for q, s, k, _ in idx]
    items = sum(len(rows) for rows in tabs)
    cost = [int(round(float(tabs[q][s].cost[k]) / ref * unit)) for q, s, k, _ in idx]
    # any plan's integer cost is below W: each stage's rounded cost is at most its rounded max
    weight = 1 + sum(int(round(float(t.cost.max()) / ref * unit)) for rows in tabs for t in rows)
    position = {key: n for n, key in enumerate(idx)}
    stats: dict[str, Any] = {}

    def run(up: bool, cuts: list[list[Choice]]) -> tuple[Any, Any, list[Choice] | None]:
        """The relaxation (`up`: usages down, limits up) or the restriction, solved."""
        tick = floor_ticks if up else ceil_ticks
        lat = [tick(v, tu) for v in lat_ms]
        vc, sh = [tick(v, ru) for v in vcpus], [tick(v, ru) for v in share]
        bud = [
            limit_ticks(budget_limit(q.budget_ms), len(rows), tu, up)
            for q, rows in zip(problem.queues, tabs, strict=True)
        ]
        cap_v = [limit_ticks(cap_limit(i.vcpus), items, ru, up) for i in problem.invokers]
        cap_g = [limit_ticks(cap_limit(i.gpu), items, ru, up) for i in problem.invokers]
        m = cp_model.CpModel()
        w = [m.new_bool_var(f"w{n}") for n in range(len(idx))]
        y = [m.new_bool_var(f"y{q}") for q in range(nq)]
        by_qs: dict[tuple[int, int], list[int]] = {}
        for n, (q, s, _, _) in enumerate(idx):
            by_qs.setdefault((q, s), []).append(n)
        for q, rows in enumerate(tabs):
            deadline.check()
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
        for cut in cuts:  # no-good: not exactly this assignment
            ones = {position[key] for key in _keys(cut)}
            m.add_bool_or([w[n].Not() if n in ones else w[n] for n in range(len(idx))])
        m.minimize(weight * (nq - sum(y)) + sum(c * v for c, v in zip(cost, w, strict=True)))
        solver = cpsat_solver(
            num_workers=options.num_workers, seed=solver_seed(seed), deadline=deadline
        )
        code = solver.solve(m)
        stats["cpsat_status"] = solver.status_name(code)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return code, solver, None
        on_keys = [key for n, key in enumerate(idx) if solver.boolean_value(w[n])]
        return code, solver, _choices(problem, on_keys)

    def relax(cuts: list[list[Choice]]) -> Relaxed[list[Choice]]:
        code, solver, choices = run(True, cuts)
        if choices is None:  # every queue may miss: no plan means the time ran out
            return Relaxed(None, None)
        # a plan with m' misses, integer cost c' < W has m' W + c' >= ib, so m' >= ib // W
        # and, when equal, c' >= ib % W; rounding moved each chosen cost by at most 1/2 unit
        ib = int(math.ceil(solver.best_objective_bound - 1e-6))
        lb_miss, lb_cost = divmod(max(ib, 0), weight)
        bound = lb_miss + max(lb_cost - items / 2, 0.0) / unit
        return Relaxed(choices, bound, proven=code == cp_model.OPTIMAL)

    def restrict() -> list[Choice] | None:
        stats["restricted"] = True
        return run(False, [])[2]

    out = bracket(relax, restrict, _fits_real(problem), deadline.passed)
    stats["cuts"] = out.cuts
    bound = out.bound if math.isfinite(out.bound) else -math.inf
    return queues_result(problem, out.choice, "q_cpsat", time.perf_counter() - t0, exact=True,
                         bound=bound, stats=stats)  # fmt: skip
