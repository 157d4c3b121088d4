"""Every pruning switch combination of ESG's A* equals brute force; each blade's ablation is real.

48 settings (latency blade, cost blade, Pareto pre-filter, dominance on/off x the heuristics
dp_buckets 1024 / 3 / 0) on 42 random chains against `brute` (exact_enum, every path), with
budgets where pruning bites: the SLO, one random path's latency (a tie at the boundary), just
below the SLO optimum's latency (the optimum is cut), the fastest path's latency exactly, just
below it (infeasible) and in between. On 20 random DAGs (A* runs the SLO split) every A* search
the split makes is checked against a plain enumeration of the same chain, and the DAG's status
against brute force. 200 raw chains with near-tie latencies and costs check `astar_chain` itself.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from schedlab.solvers.esg import dag_split
from schedlab.solvers.esg.astar import AStarOptions, ChainSearch, astar_chain
from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.plan import longest_path
from schedlab.solvers.esg.problem import App, budget_limit
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import solve
from schedlab.solvers.validate import NO_DEADLINE
from tests.esg import status_cases

SWITCHES = ("latency_blade", "cost_blade", "pareto", "dominance")
COMBOS: list[dict[str, Any]] = [
    {**dict(zip(SWITCHES, on, strict=True)), "dp_buckets": dp}
    for on in itertools.product((True, False), repeat=4)
    for dp in (1024, 3, 0)
]
N_CHAINS, N_DAGS = 42, 20
NEAR_TIE_CASES = 200
BARE = {**dict.fromkeys(SWITCHES, False), "dp_buckets": 0}


def _order_sum(lats: list[float]) -> float:
    """A chain's latency summed from 0.0 in stage order, as a plan sums it."""
    total = 0.0
    for x in lats:
        total += x
    return total


def _chain_budget(app: App, kind: int, rng: np.random.Generator) -> float:
    """A budget of the given kind (0..5; see the module docstring) for a chain."""
    lats = [app.stage_latency()[i] for i in app.topo_order()]
    fastest = _order_sum([float(a.min()) for a in lats])
    if kind == 0:
        return app.slo_ms
    if kind == 1:
        return _order_sum([float(a[rng.integers(len(a))]) for a in lats])
    if kind == 2:
        best = solve(app, "brute", options={"backend": "numpy"})
        if best.status is not Status.OPTIMAL:
            return app.slo_ms
        return _opt_lat(app, best) * (1 - 1e-6)  # the optimum no longer fits
    if kind == 3:
        return fastest
    if kind == 4:
        return fastest * (1 - 1e-6)
    return float(rng.uniform(fastest, max(app.slo_ms, fastest)))


def _opt_lat(app: App, res: SolveResult) -> float:
    """The latency of a result's plan, recomputed from the raw data."""
    ids = app.ids
    choice = [res.solution.configs[f] for f in ids]
    lat = app.stage_latency()
    return longest_path(app, [float(lat[i][choice[i]]) for i in range(len(ids))])


def random_chains() -> Iterator[App]:
    """N_CHAINS seeded chains of 1-5 stages x 2-10 configurations, budgets of every kind."""
    for s in range(N_CHAINS):
        rng = np.random.default_rng(7000 + s)
        app = generate(int(rng.integers(1, 6)), int(rng.integers(2, 11)), 7000 + s)
        yield app.with_budget(_chain_budget(app, s % 6, rng))


def _agrees(got: SolveResult, ref: SolveResult) -> bool:
    """Same status; same optimal cost (relative 1e-9) when there is a plan."""
    if ref.status is Status.INFEASIBLE or got.status is Status.INFEASIBLE:
        return got.status is ref.status
    return got.status is Status.OPTIMAL and math.isclose(got.value, ref.value, rel_tol=1e-9)


def test_every_switch_combination_equals_brute_force_on_random_chains():
    statuses, bite = set(), 0
    for app in random_chains():
        ref = solve(app, "brute", options={"backend": "numpy"})
        assert ref.status in (Status.OPTIMAL, Status.INFEASIBLE)
        statuses.add(ref.status)
        nodes = {}
        for opts in COMBOS:
            got = solve(app, "astar", options=opts)
            assert _agrees(got, ref), (app.name, app.budget, opts, got, ref)
            if got.status is Status.OPTIMAL:
                status_cases.recheck(app, got)
            nodes[str(opts)] = got.stats["nodes_expanded"]
        bite += nodes[str(COMBOS[0])] < nodes[str(BARE)]
    assert statuses == {Status.OPTIMAL, Status.INFEASIBLE}
    assert bite >= N_CHAINS // 2  # the defaults pruned something on most chains


def _enumerate(lats: list[np.ndarray], costs: list[np.ndarray], budget: float) -> float:
    """The cheapest path's cost whose latency (summed in stage order) fits; inf when none."""
    best, top = math.inf, budget_limit(budget)
    for ks in itertools.product(*(range(len(a)) for a in lats)):
        lat = _order_sum([float(lats[s][k]) for s, k in enumerate(ks)])
        if lat <= top:
            best = min(best, _order_sum([float(costs[s][k]) for s, k in enumerate(ks)]))
    return best


def random_dags() -> Iterator[App]:
    """N_DAGS seeded DAGs of 4-7 functions x 2-4 configurations, budgets near the fastest plan."""
    seed, made = 8000, 0
    while made < N_DAGS:
        rng = np.random.default_rng(seed)
        app = generate(int(rng.integers(4, 8)), int(rng.integers(2, 5)), seed, shape="dag")
        seed += 1
        if app.kind != "dag":
            continue
        lat = app.stage_latency()
        fastest = longest_path(app, [float(a.min()) for a in lat])
        kind = made % 4
        budget = [app.slo_ms, fastest, fastest * (1 - 1e-6), rng.uniform(fastest, 1.3 * fastest)]
        made += 1
        yield app.with_budget(float(budget[kind]))


def test_every_switch_combination_equals_brute_force_inside_the_split_on_random_dags(
    monkeypatch,
):
    calls: list[int] = []
    memo: dict[tuple[Any, ...], float] = {}

    def checked(lats, costs, budget, opts=None, deadline=NO_DEADLINE) -> ChainSearch:
        """The real A*, then the same chain enumerated: the costs must agree."""
        s = astar_chain(lats, costs, budget, opts, deadline)
        key = (tuple(a.tobytes() for a in lats), tuple(c.tobytes() for c in costs), budget)
        if key not in memo:
            memo[key] = _enumerate(lats, costs, budget)
        want = memo[key]
        if want == math.inf:
            assert s.choice is None, (opts, budget)
        else:
            assert s.choice is not None and math.isclose(s.cost, want, rel_tol=1e-9), (opts, s)
            assert _order_sum([float(a[k]) for a, k in zip(lats, s.choice, strict=True)]) <= (
                budget_limit(budget)
            )
        calls.append(1)
        return s

    monkeypatch.setattr(dag_split, "astar_chain", checked)
    statuses = set()
    for app in random_dags():
        ref = solve(app, "brute", options={"backend": "numpy"})
        statuses.add(ref.status)
        for opts in COMBOS:
            got = solve(app, "astar", options=opts)
            if ref.status is Status.INFEASIBLE:
                assert got.status is Status.INFEASIBLE, (app.name, opts, got)
                continue
            assert got.status in (Status.FEASIBLE, Status.OPTIMAL), (app.name, opts, got)
            status_cases.recheck(app, got)
            assert got.value >= ref.value * (1 - 1e-9), (app.name, opts, got.value, ref.value)
    assert statuses == {Status.OPTIMAL, Status.INFEASIBLE}
    assert len(calls) >= N_DAGS * len(COMBOS)  # the split searched with every combination


@pytest.mark.parametrize("dp", [1024, 0])
def test_switching_the_latency_blade_off_stops_every_latency_pruning(dp):
    # an infeasible chain: with the blade on the root proves it (nothing expanded); off, the
    # search must expand nodes before it finds no goal (the DP's infinity prunes no more)
    app = generate(4, 8, 3)
    lats = [app.stage_latency()[i] for i in app.topo_order()]
    app = app.with_budget(_order_sum([float(a.min()) for a in lats]) * 0.999)
    on = solve(app, "astar", options={"dp_buckets": dp})
    off = solve(app, "astar", options={"dp_buckets": dp, "latency_blade": False})
    assert on.status is off.status is Status.INFEASIBLE
    assert on.stats["nodes_expanded"] == 0 < off.stats["nodes_expanded"]


def test_each_blade_ablation_costs_work_on_a_feasible_chain():
    # with the DP heuristic on (the default), switching the latency blade off expands more
    # nodes; the cost blade saves generated nodes (A* pops by cost + h, so not expansions)
    app = generate(10, 500, 10_000)  # the first chain of bench_astar_blades
    base = solve(app, "astar")
    no_lat = solve(app, "astar", options={"latency_blade": False})
    no_cost = solve(app, "astar", options={"cost_blade": False})
    for r in (no_lat, no_cost):
        assert math.isclose(r.value, base.value, rel_tol=1e-9)
    assert no_lat.stats["nodes_expanded"] > base.stats["nodes_expanded"]
    assert no_cost.stats["nodes_generated"] > base.stats["nodes_generated"]


def _near_ties(rng: np.random.Generator, n: int) -> np.ndarray:
    """n values on a coarse grid, some moved by a few 1e-7: exact and near ties."""
    return np.round(rng.uniform(1, 4, n), 0) * (1 + 1e-7 * rng.integers(-2, 3, n))


def test_astar_direct_call_matches_enumeration_with_near_ties():
    # astar_chain itself on raw arrays whose paths tie or nearly tie in cost and latency, with
    # the budget at one path's latency: a blade or dominance test off by a hair shows here
    rng = np.random.default_rng(5)
    for _ in range(NEAR_TIE_CASES):
        k = int(rng.integers(1, 6))
        lats = [_near_ties(rng, int(rng.integers(1, 7))) for _ in range(k)]
        costs = [_near_ties(rng, len(a)) for a in lats]
        budget = _order_sum([float(a[rng.integers(len(a))]) for a in lats])
        want = _enumerate(lats, costs, budget)
        for opts in COMBOS:
            s = astar_chain(lats, costs, budget, AStarOptions(**opts))
            if want == math.inf:
                assert s.choice is None, opts
            else:
                assert s.choice is not None and math.isclose(s.cost, want, rel_tol=1e-12), opts
