"""ESG_1Q: A* over the configuration paths of a chain, with the dual-blade pruning of ESG.

Nodes are (stage, accumulated latency L, accumulated cost C); the heuristic h(i) is the sum of
the remaining stages' minimum costs (admissible and consistent), so the first complete path
popped is the cheapest one that fits the budget. Pruning (each can be switched off):
- latency blade: drop a node when L + (sum of remaining minimum latencies) exceeds the budget;
- cost blade: drop a node when C + h reaches the best complete path generated so far;
- Pareto pre-filter: drop configurations dominated in (latency, cost) before the search;
- dominance (ours, not in the paper): a popped node whose L is no smaller than that of a node
  already expanded at the same stage is dropped (that one was no dearer, since pops come in
  nondecreasing C + h and h is the same for a stage).
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass

import numpy as np

from schedlab.solvers.esg.app import APP_KINDS, LAT_TOL, App
from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.plan import result
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method


@dataclass(frozen=True)
class AStarOptions:
    latency_blade: bool = True
    cost_blade: bool = True
    pareto: bool = True
    dominance: bool = True


@dataclass(frozen=True)
class ChainSearch:
    """What one A* search found: the choice (None: no path fits) and its counters."""

    choice: list[int] | None
    cost: float
    nodes_expanded: int
    nodes_generated: int
    raw_space: float


def astar_chain(
    lats: list[np.ndarray],
    costs: list[np.ndarray],
    budget: float,
    opts: AStarOptions | None = None,
) -> ChainSearch:
    """Cheapest configuration path through the stages whose summed latency fits `budget`."""
    opts = opts or AStarOptions()
    k = len(lats)
    raw = float(np.prod([float(len(x)) for x in lats]))
    cand = [
        pareto_indices(lats[i], costs[i]) if opts.pareto else np.arange(len(lats[i]))
        for i in range(k)
    ]
    cl = [lats[i][cand[i]] for i in range(k)]
    cc = [costs[i][cand[i]] for i in range(k)]
    min_lat = np.concatenate([np.cumsum([x.min() for x in cl][::-1])[::-1], [0.0]])
    h = np.concatenate([np.cumsum([x.min() for x in cc][::-1])[::-1], [0.0]])
    if min_lat[0] > budget + LAT_TOL:
        return ChainSearch(None, np.inf, 0, 0, raw)
    parent: list[tuple[int, int]] = [(-1, -1)]  # node id -> (parent id, candidate position)
    heap: list[tuple[float, float, int, int, float]] = [(h[0], 0.0, 0, 0, 0.0)]
    best, expanded, generated = np.inf, 0, 1
    seen_lat = np.full(k, np.inf)
    while heap:
        f, lat, nid, stage, cost = heapq.heappop(heap)
        if stage == k:
            choice, node = [0] * k, nid
            for s in range(k - 1, -1, -1):
                node, pos = parent[node]
                choice[s] = int(cand[s][pos])
            return ChainSearch(choice, cost, expanded, generated, raw)
        if opts.cost_blade and f >= best and best < np.inf:
            continue
        if opts.dominance:
            if lat >= seen_lat[stage]:
                continue
            seen_lat[stage] = lat
        expanded += 1
        new_lat, new_cost = lat + cl[stage], cost + cc[stage]
        rest = min_lat[stage + 1] if opts.latency_blade else 0.0
        for pos in range(len(new_lat)):
            nl = float(new_lat[pos])
            if nl + rest > budget + LAT_TOL:
                if opts.latency_blade:
                    continue  # latency blade
                if stage + 1 == k:
                    continue  # a complete path over the budget is never a goal
            nc = float(new_cost[pos])
            nf = nc + h[stage + 1]
            if opts.cost_blade and nf >= best:
                continue  # cost blade
            if stage + 1 == k:
                best = min(best, nc)
            parent.append((nid, pos))
            heapq.heappush(heap, (nf, nl, len(parent) - 1, stage + 1, nc))
            generated += 1
    return ChainSearch(None, np.inf, expanded, generated, raw)


@register_method(
    "esg",
    "astar",
    exact=True,
    kinds=APP_KINDS,
    options=AStarOptions,
    summary="ESG_1Q A* with latency/cost blades (exact on chains; DAGs via the SLO split)",
)
def solve_astar(
    app: App, *, time_limit: float | None = None, seed: int | None = None, options: AStarOptions
) -> SolveResult:
    """A* on a chain (proven optimal); on a DAG, the dominator SLO split with A* per branch."""
    t0 = time.perf_counter()
    if not app.is_chain:
        from schedlab.solvers.esg.slo_split import split_solve

        choice, stats = split_solve(app, "min_latency", options)
        return result(app, choice, "astar", t0, exact=False, proven_infeasible=True, stats=stats)
    order = app.topo_order()
    lats, costs = app.stage_latency(), app.stage_cost()
    s = astar_chain([lats[i] for i in order], [costs[i] for i in order], app.budget, options)
    stats = {"nodes_expanded": s.nodes_expanded, "nodes_generated": s.nodes_generated}
    stats["raw_space"] = s.raw_space
    if s.choice is None:
        return result(app, None, "astar", t0, exact=True, proven_infeasible=True, stats=stats)
    choice = [0] * len(order)
    for pos, i in enumerate(order):
        choice[i] = s.choice[pos]
    return result(app, choice, "astar", t0, exact=True, stats=stats)
