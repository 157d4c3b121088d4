"""Whole-DAG A*: ESG_1Q's search over a DAG's configuration paths without the SLO split (ours).

ESG's paper makes its A* scale to DAGs by splitting the SLO over the dominator segments; this
is the search without that split, the yardstick of the scale study (`esg-scale`). Functions
are assigned in topological order; a node holds the finish time of every assigned function
that still has an unassigned successor (its "open" functions), the latest finish of the
closed ones and the cost so far. A complete node's latency is the plan's longest path (the
same float sums as `plan.longest_path`: max of the predecessors' finishes, then + stage
latency), and it is a goal when it fits `budget + LAT_TOL`.

Pruning, each admissible: the Pareto pre-filter per function (a dominated configuration never
helps a DAG plan either); the latency blade (a node whose every completion, at the fastest
remaining configurations, misses the budget: max over open functions of finish + the longest
fastest path after it, and the closed ones' latest finish, against `prune_limit`); the cost
blade (cost + the sum of the remaining minimum costs reaches the incumbent); dominance (a node
no better in every open finish time, the closed latest finish and the cost than one expanded
at the same depth). The heuristic is the sum of the remaining minimum costs (the paper's), so
the first goal popped is optimal. `max_nodes` and the time limit stop it: the incumbent
(`feasible`) with the least open f as the bound, or `timeout`.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np

from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.plan import result
from schedlab.solvers.esg.problem import APP_KINDS, App, budget_limit, prune_limit
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

#: Heap pops between two looks at the clock.
CLOCK_EVERY = 512


@dataclass(frozen=True)
class DagAStarOptions:
    dominance: bool = field(default=True, metadata={"help": "per-depth dominance pruning"})
    max_nodes: int = field(
        default=2_000_000,
        metadata={"help": "stop after generating this many nodes", "range": (1, 10**9)},
    )


@dataclass
class _Search:
    """The search's fixed tables (topological order, candidates, bounds)."""

    order: list[int]
    preds: list[list[int]]
    cand: list[np.ndarray]  # per function: candidate configuration indices
    lat: list[list[float]]  # per function: candidate stage latencies
    cost: list[list[float]]
    open_after: list[list[int]]  # per depth k: functions open after assigning order[:k+1]
    tail: list[float]  # per function: longest fastest path after it (excluding it)
    h: list[float]  # per depth k: sum of minimum costs of order[k:]


def _tables(app: App) -> _Search:
    lats, costs, preds = app.stage_latency(), app.stage_cost(), app.preds()
    order, n = app.topo_order(), len(app.functions)
    cand = [pareto_indices(lats[i], costs[i]) for i in range(n)]
    lat = [lats[i][cand[i]].tolist() for i in range(n)]
    cost = [costs[i][cand[i]].tolist() for i in range(n)]
    succ: list[list[int]] = [[] for _ in range(n)]
    for i, ps in enumerate(preds):
        for p in ps:
            succ[p].append(i)
    pos = {f: k for k, f in enumerate(order)}
    last_use = [max((pos[s] for s in succ[i]), default=-1) for i in range(n)]
    open_after = [[f for f in order[: k + 1] if last_use[f] > k] for k in range(n)]
    fast = [min(x) for x in lat]
    tail = [0.0] * n
    for f in reversed(order):
        tail[f] = max((fast[s] + tail[s] for s in succ[f]), default=0.0)
    mins = [min(x) for x in cost]
    h = [float(sum(mins[f] for f in order[k:])) for k in range(n)] + [0.0]
    return _Search(order, preds, cand, lat, cost, open_after, tail, h)


def _dominated(
    front: list[tuple[tuple[float, ...], float]], key: tuple[float, ...], c: float
) -> bool:
    """Whether (key, c) is no better in every coordinate than a node in `front`; if not, add."""
    for k2, c2 in front:
        if c2 <= c and all(a <= b for a, b in zip(k2, key, strict=True)):
            return True
    front.append((key, c))
    return False


def astar_dag(
    app: App, opts: DagAStarOptions | None = None, deadline: Deadline = NO_DEADLINE
) -> tuple[list[int] | None, float, dict[str, object]]:
    """The cheapest plan within the app's budget: (choice per function or None, lower bound,
    stats). Stopped by `max_nodes` or the deadline: the incumbent and the least open f."""
    opts = opts or DagAStarOptions()
    s, n = _tables(app), len(app.functions)
    top = budget_limit(app.budget)
    loose = prune_limit(top)
    # node: (f, tie, depth, cost, finishes of the open functions, closed latest, parent, pos)
    parent: list[tuple[int, int]] = [(-1, -1)]
    heap: list[tuple[float, int, int, float, tuple[float, ...], float]] = [
        (s.h[0], 0, 0, 0.0, (), 0.0)
    ]
    fronts: list[list[tuple[tuple[float, ...], float]]] = [[] for _ in range(n + 1)]
    best, best_nid, expanded, generated, pops = np.inf, -1, 0, 1, 0
    stopped = False
    while heap:
        pops += 1
        if generated >= opts.max_nodes or (pops % CLOCK_EVERY == 0 and deadline.passed()):
            stopped = True
            break
        f, nid, k, cost, fin, closed = heapq.heappop(heap)
        if k == n:
            return _choice(s, parent, nid), cost, _stats(expanded, generated, False)
        if f >= best:
            continue
        if opts.dominance and _dominated(fronts[k], (*fin, closed), cost):
            continue
        expanded += 1
        v = s.order[k]
        prev = s.open_after[k - 1] if k else []
        at = dict(zip(prev, fin, strict=True))
        start = max((at[p] for p in s.preds[v]), default=0.0)
        nxt = s.open_after[k]
        for j, (dl, dc) in enumerate(zip(s.lat[v], s.cost[v], strict=True)):
            end = start + dl
            at[v] = end
            new_fin = tuple(at[u] for u in nxt)
            new_closed = max([closed, *(at[u] for u in prev if u not in nxt), end if v not in nxt
                              else closed])  # fmt: skip
            if k + 1 == n:
                if new_closed > top:
                    continue  # a complete plan over the budget is no goal
            else:
                lb = max([new_closed, *(at[u] + s.tail[u] for u in nxt)])
                if lb > loose:
                    continue  # latency blade
            nc = cost + dc
            nf = nc + s.h[k + 1]
            if nf >= best:
                continue  # cost blade
            parent.append((nid, j))
            if k + 1 == n and nc < best:
                best, best_nid = nc, len(parent) - 1
            heapq.heappush(heap, (nf, len(parent) - 1, k + 1, nc, new_fin, new_closed))
            generated += 1
    stats = _stats(expanded, generated, stopped)
    if not stopped:
        return None, np.inf, stats  # exhausted: no plan fits
    lb = min(heap[0][0], best) if heap else best
    return (_choice(s, parent, best_nid) if best_nid >= 0 else None), lb, stats


def _choice(s: _Search, parent: list[tuple[int, int]], nid: int) -> list[int]:
    """The configuration index per function of node `nid`'s path."""
    choice = [0] * len(s.order)
    for k in range(len(s.order) - 1, -1, -1):
        nid, j = parent[nid]
        choice[s.order[k]] = int(s.cand[s.order[k]][j])
    return choice


def _stats(expanded: int, generated: int, stopped: bool) -> dict[str, object]:
    out: dict[str, object] = {"nodes_expanded": expanded, "nodes_generated": generated}
    if stopped:
        out["stopped"] = True
    return out


@register_method(
    "esg",
    "astar_dag",
    exact=True,
    kinds=APP_KINDS,
    options=DagAStarOptions,
    summary="whole-DAG A* without the SLO split (ours; the scale study's yardstick)",
)
def solve_astar_dag(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None,
    options: DagAStarOptions,
) -> SolveResult:  # fmt: skip
    """Exact on chains and DAGs; stopped: `feasible` with a sound bound, or `timeout`."""
    t0 = time.perf_counter()
    choice, bound, stats = astar_dag(app, options, deadline)
    if stats.get("stopped"):
        return result(app, choice, "astar_dag", t0, exact=True, bound=bound, stats=stats)
    if choice is None:
        return result(app, None, "astar_dag", t0, exact=True, proven_infeasible=True, stats=stats)
    return result(app, choice, "astar_dag", t0, exact=True, proven=True, stats=stats)
