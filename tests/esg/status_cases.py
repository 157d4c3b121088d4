"""ESG's cases for tests/core/test_exact_status.py: tiny apps and queue sets on no grid.

One definition of a plan that fits (docs/esg.md, "Statuses and the SLO tolerance"): a function's
stage latency is latency_ms + wait_ms + transfer_ms (left to right); a plan's latency is its
longest path, each path summed from 0.0 in path order; it fits when latency <= budget + LAT_TOL
in IEEE doubles. Many queues: a stage runs ceil(requests / batch) batches, so its latency is
runs * latency_ms + wait_ms + transfer_ms; a queue hits when its stage latencies, summed from 0.0
in stage order, fit its budget the same way; the containers on an invoker fit when their vCPUs
(shares), summed from 0.0 in queue-then-stage order, are <= capacity + CAP_TOL.

The oracle enumerates every plan (every configuration path; for queues also every miss and
every invoker placement) in plain Python from the raw dataclasses: no method under test, no
kernel, no `tables()` or `make_plan`. Only the two tolerance constants are imported.

Budgets are placed at the optimum plan's latency L, at the largest b with b + LAT_TOL <= L
(the tolerance's edge, where the order of a sum decides), 1e-9 relative and a few ulps around
both, and far below the fastest plan (infeasible);
capacities at the usage of a chosen placement, a hair and a few ulps around it. Latencies are
random doubles, four-decimal values and near-equal ones like 20.00005 (none on CP-SAT's tick).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from hypothesis import strategies as st

from schedlab.solvers.esg.dispatch import CAP_TOL
from schedlab.solvers.esg.problem import LAT_TOL, App, Config, Function, Prices
from schedlab.solvers.esg.problem_queues import InvokerCap, Queue, QueuesProblem
from schedlab.solvers.registry import Entry
from schedlab.solvers.result import SolveResult, Status

BOTH_STATUSES = True
#: every queue may miss, so a many-queue problem always has a plan: never infeasible
QUEUE_METHODS = ("q_brute", "q_milp", "q_cpsat")


def both_statuses(entry: Entry) -> bool:
    """Whether `entry`'s cases must reach both `optimal` and `infeasible`."""
    return entry.name not in QUEUE_METHODS


def options(entry: Entry) -> dict[str, Any]:
    """Every method runs with its defaults (what a user gets)."""
    return {}


# --- the definition, written out ----------------------------------------------------------------
def _stage_latency(f: Function, c: Config) -> float:
    return c.latency_ms + c.wait_ms + f.transfer_ms


def _config_cost(c: Config, prices: Prices) -> float:
    rate = c.vcpus * prices.vcpu_s + c.gpu_share * prices.gpu_s
    return rate * c.latency_ms / 1000.0 / c.batch


def _fits(latency: float, budget: float) -> bool:
    return latency <= budget + LAT_TOL


def _plan_latency(app: App, choice: tuple[int, ...]) -> float:
    """The longest path: the latest finish, each function after all its predecessors."""
    ids = [f.id for f in app.functions]
    preds: dict[str, list[str]] = {i: [] for i in ids}
    for u, v in app.edges:
        preds[v].append(u)
    finish: dict[str, float] = {}
    while len(finish) < len(ids):  # Kahn's order; the file order when it is topological
        for i, f in enumerate(app.functions):
            if f.id not in finish and all(p in finish for p in preds[f.id]):
                start = max((finish[p] for p in preds[f.id]), default=0.0)
                finish[f.id] = start + _stage_latency(f, f.configs[choice[i]])
    return max(finish.values())


def _plan_cost(app: App, choice: tuple[int, ...]) -> float:
    return sum(
        _config_cost(f.configs[k], app.prices) for f, k in zip(app.functions, choice, strict=True)
    )


def _app_plans(app: App) -> list[tuple[float, float, tuple[int, ...]]]:
    """(latency, cost, choice) of every plan."""
    out = []
    for choice in itertools.product(*(range(len(f.configs)) for f in app.functions)):
        out.append((_plan_latency(app, choice), _plan_cost(app, choice), choice))
    return out


def _queue_rows(q: Queue) -> list[list[tuple[float, float, float, float]]]:
    """Per remaining stage, per configuration: (latency, cost, vCPUs, share)."""
    pr, rows = q.app.prices, []
    for f in q.app.functions[q.from_stage :]:
        row = []
        for c in f.configs:
            runs = -(-q.requests // c.batch)
            lat = float(runs) * c.latency_ms + c.wait_ms + f.transfer_ms
            cost = float(runs) * (c.vcpus * pr.vcpu_s + c.gpu_share * pr.gpu_s)
            row.append((lat, cost * c.latency_ms / 1000.0, c.vcpus, c.gpu_share))
        rows.append(row)
    return rows


def _cost_ref(problem: QueuesProblem) -> float:
    total = sum(sum(max(c[1] for c in row) for row in _queue_rows(q)) for q in problem.queues)
    return 2.0 * max(total, 1e-300)


def _queue_options(problem: QueuesProblem, qi: int) -> list[Any]:
    """None (a miss) and every ((config, invoker) per stage) whose path fits the budget."""
    q, rows = problem.queues[qi], _queue_rows(problem.queues[qi])
    out: list[Any] = [None]
    places = range(len(problem.invokers))
    for ks in itertools.product(*(range(len(r)) for r in rows)):
        lat = 0.0
        for r, k in zip(rows, ks, strict=True):
            lat += r[k][0]
        if _fits(lat, q.budget_ms):
            out += [
                tuple(zip(ks, js, strict=True))
                for js in itertools.product(places, repeat=len(rows))
            ]
    return out


def _usage_fits(problem: QueuesProblem, choices: tuple[Any, ...]) -> bool:
    use = [[0.0, 0.0] for _ in problem.invokers]
    for q, c in zip(problem.queues, choices, strict=True):
        if c is None:
            continue
        for row, (k, j) in zip(_queue_rows(q), c, strict=True):
            use[j][0] += row[k][2]
            use[j][1] += row[k][3]
    return all(
        u[0] <= inv.vcpus + CAP_TOL and u[1] <= inv.gpu + CAP_TOL
        for u, inv in zip(use, problem.invokers, strict=True)
    )


def _queues_value(problem: QueuesProblem, choices: tuple[Any, ...]) -> float:
    cost, misses = 0.0, 0
    for q, c in zip(problem.queues, choices, strict=True):
        if c is None:
            misses += 1
            continue
        for row, (k, _) in zip(_queue_rows(q), c, strict=True):
            cost += row[k][1]
    return misses + cost / _cost_ref(problem)


def oracle(problem: App | QueuesProblem) -> tuple[Status, float | None]:
    """The proven status and optimal value, by enumerating every plan."""
    if isinstance(problem, QueuesProblem):
        opts = [_queue_options(problem, qi) for qi in range(len(problem.queues))]
        best = min(
            _queues_value(problem, pick)
            for pick in itertools.product(*opts)
            if _usage_fits(problem, pick)
        )  # all misses always fits
        return Status.OPTIMAL, best
    ok = [cost for lat, cost, _ in _app_plans(problem) if _fits(lat, problem.budget)]
    return (Status.OPTIMAL, min(ok)) if ok else (Status.INFEASIBLE, None)


def recheck(problem: App | QueuesProblem, result: SolveResult) -> None:
    """The returned plan fits the raw data and its recomputed value is the reported one."""
    if isinstance(problem, QueuesProblem):
        choices = tuple(result.solution.choices)
        assert len(choices) == len(problem.queues)
        for q, c in zip(problem.queues, choices, strict=True):
            if c is not None:
                rows = _queue_rows(q)
                assert len(c) == len(rows)
                lat = 0.0
                for row, (k, _) in zip(rows, c, strict=True):
                    lat += row[k][0]
                assert _fits(lat, q.budget_ms), f"queue latency {lat} over {q.budget_ms}"
        assert _usage_fits(problem, choices), f"capacity exceeded by {choices}"
        value = _queues_value(problem, choices)
        assert math.isclose(result.value, value, rel_tol=1e-12, abs_tol=1e-15), (result, value)
        return
    plan = result.solution
    choice = tuple(plan.configs[f.id] for f in problem.functions)
    lat, cost = _plan_latency(problem, choice), _plan_cost(problem, choice)
    assert _fits(lat, problem.budget), f"plan latency {lat} over budget {problem.budget}"
    assert plan.latency_ms == lat, (plan.latency_ms, lat)
    assert math.isclose(result.value, cost, rel_tol=1e-12, abs_tol=1e-300), (result.value, cost)


# --- strategies ----------------------------------------------------------------------------------
def _ulps(x: float, k: int) -> float:
    """x moved by k ulps (k < 0: down)."""
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


@st.composite
def _latency(draw: st.DrawFn) -> float:
    style = draw(st.sampled_from(("float", "four_decimals", "near_equal")))
    if style == "float":
        return draw(st.floats(0.01, 150.0, allow_nan=False, allow_infinity=False))
    if style == "four_decimals":
        return round(draw(st.floats(0.01, 150.0)), 4)
    base = draw(st.sampled_from((20.0, 3.0, 0.25)))
    return base + draw(st.integers(-4, 4)) * 5e-5  # 20.00005, 19.9999, ...


@st.composite
def _config(draw: st.DrawFn, cpu_only_too: bool = False) -> Config:
    wait = draw(st.sampled_from((0.0, 0.0, draw(st.floats(0.0, 5.0)))))
    # apps: a fifth CPU-only (the BATCH and INFless baselines' spaces)
    cpu_only = cpu_only_too and draw(st.integers(0, 4)) == 0
    return Config(
        batch=draw(st.integers(1, 4)),
        vcpus=draw(st.floats(0.25 if cpu_only else 0.0, 8.0)),
        gpu_share=0.0 if cpu_only else draw(st.floats(0.01, 1.0)),
        latency_ms=draw(_latency()),
        wait_ms=wait,
    )


@st.composite
def _functions(
    draw: st.DrawFn, n: int, max_configs: int, cpu_only_too: bool = False
) -> tuple[Function, ...]:
    out = []
    for i in range(n):
        configs = draw(st.lists(_config(cpu_only_too), min_size=1, max_size=max_configs))
        transfer = draw(st.sampled_from((0.0, 0.0, draw(st.floats(0.0, 2.0)))))
        out.append(Function(f"f{i}", tuple(configs), transfer_ms=transfer))
    return tuple(out)


_PRICES = st.sampled_from((Prices(), Prices(vcpu_s=0.37, gpu_s=2.9), Prices(3.1e-3, 0.0)))


def _edge(x: float, tol: float) -> float:
    """The largest b with b + tol <= x in doubles: x is then exactly the largest value that fits
    b (when b + tol == x), so a method that sums x's terms in another order can disagree."""
    b = x - tol
    while b + tol > x:
        b = _ulps(b, -1)
    while _ulps(b, 1) + tol <= x:
        b = _ulps(b, 1)
    return b


def _near(draw: st.DrawFn, x: float, tol: float) -> float:
    """x, or the tolerance's edge below it (`_edge`), moved by a hair (1e-9 relative) or a few
    ulps."""
    base = draw(st.sampled_from((x, _edge(x, tol), _edge(x, tol))))
    how = draw(st.sampled_from(("exact", "exact", "rel", "ulps")))
    if how == "rel":
        return base * (1 + draw(st.sampled_from((-1e-9, 1e-9))))
    if how == "ulps":
        return _ulps(base, draw(st.sampled_from((-3, -1, 1, 2))))
    return base


@st.composite
def apps(draw: st.DrawFn, chains_only: bool = False) -> App:
    """An app of 1-4 functions, 1-4 configurations each, its budget at or around an optimum."""
    n = draw(st.integers(1, 4))
    funcs = draw(_functions(n, 4, cpu_only_too=True))
    ids = [f.id for f in funcs]
    chain = tuple((ids[i], ids[i + 1]) for i in range(n - 1))
    if chains_only or draw(st.booleans()):
        edges = chain
    else:
        pairs = [(ids[i], ids[j]) for i in range(n) for j in range(i + 1, n)]
        edges = tuple(p for p in pairs if draw(st.booleans()))
    app = App("status-case", 1.0, funcs, edges, draw(_PRICES))
    plans = _app_plans(app)
    fastest = min(lat for lat, _, _ in plans)
    if draw(st.integers(0, 3)) == 0:  # below the fastest plan: by a hair, or far
        if draw(st.booleans()):
            budget = fastest * draw(st.floats(0.05, 0.95))
        else:
            below = _ulps(_edge(fastest, LAT_TOL), -1)  # the largest budget that misses
            budget = draw(st.sampled_from((below, _ulps(below, -2), min(below, fastest * 0.999))))
    else:  # at (or a hair around) the latency of the optimum under some plan's latency
        anchor = draw(st.sampled_from(plans))[0]
        ok = [(cost, lat) for lat, cost, _ in plans if _fits(lat, anchor)]
        budget = _near(draw, min(ok)[1], LAT_TOL)
    budget = max(budget, 1e-6)
    if draw(st.booleans()):
        return App(app.name, budget, funcs, edges, app.prices)
    return app.with_budget(budget)


@st.composite
def queue_problems(draw: st.DrawFn) -> QueuesProblem:
    """1-3 queues of 1-2 remaining stages (1-3 configurations), 1-2 invokers; budgets and
    capacities at or around a plan's latency and usage."""
    queues = []
    for _ in range(draw(st.integers(1, 3))):
        stages = draw(st.integers(1, 3))
        funcs = draw(_functions(stages, 3))
        ids = [f.id for f in funcs]
        edges = tuple((ids[i], ids[i + 1]) for i in range(stages - 1))
        app = App("q", 1.0, funcs, edges, draw(_PRICES))
        start = draw(st.integers(max(0, stages - 2), stages - 1))
        q = Queue(app, 1.0, draw(st.integers(1, 3)), start)
        rows = _queue_rows(q)
        lat = 0.0
        for row in rows:
            lat += draw(st.sampled_from(row))[0]
        budget = max(_near(draw, lat, LAT_TOL), 1e-6) if draw(st.integers(0, 4)) else lat * 0.5
        queues.append(Queue(app, budget, q.requests, start))
    invokers = []
    for _ in range(draw(st.integers(1, 2))):
        use = [0.0, 0.0]
        for q in queues:  # the usage of one stage of some queues
            if draw(st.booleans()):
                row = draw(st.sampled_from(_queue_rows(q)))
                c = draw(st.sampled_from(row))
                use = [use[0] + c[2], use[1] + c[3]]
        vcpus = max(_near(draw, use[0], CAP_TOL), 0.01) if draw(st.booleans()) else 64.0
        gpu = max(_near(draw, use[1], CAP_TOL), 0.01) if draw(st.booleans()) else 4.0
        invokers.append(InvokerCap(vcpus, gpu))
    return QueuesProblem(tuple(queues), tuple(invokers))


def problems(entry: Entry) -> st.SearchStrategy:
    """Problems `entry` accepts: queue sets for q_*, chains for A* (exact on chains only; on a
    DAG it runs the SLO split, a heuristic), chains and DAGs for the others."""
    if "queues" in (entry.meta.get("kinds") or ()):  # the q_* methods, exact or not
        return queue_problems()
    return apps(chains_only=entry.name == "astar")
