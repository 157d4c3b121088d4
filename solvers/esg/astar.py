"""ESG_1Q: A* over the configuration paths of a chain, with the dual-blade pruning of ESG.

Nodes are (stage, accumulated latency L, accumulated cost C). The heuristic is the cheapest
completion of the remaining stages within the remaining budget, computed by a DP over latency
buckets with latencies floored to the bucket (a lower bound: admissible and consistent; ours, a
tightening of the paper's); with `dp_buckets=0` it is the sum of the remaining stages' minimum
costs. Either way the first complete path popped is the cheapest one that fits the budget.
Pruning (each can be switched off; off means that nothing else prunes for it):
- latency blade: drop a node when no completion can fit the budget: L + (sum of remaining
  minimum latencies) exceeds it, or the DP heuristic is infinite (no completion fits even with
  floored latencies), or the fastest path misses at the root. Off: no node is dropped for
  latency before its path is complete (where a path over the budget is no goal); where the DP
  is infinite the heuristic falls back to the sum of the remaining minimum costs (admissible);
- cost blade: drop a node when C + h reaches the best complete path generated so far (at
  generation and at pop). A* pops in order of C + h, so this saves pushes (nodes generated,
  heap size, time), not expansions beyond ties with the optimum;
- Pareto pre-filter: drop configurations dominated in (latency, cost) before the search;
- dominance (ours, not in the paper): a popped node whose L and C are both no smaller than
  those of a node already expanded at the same stage is dropped (per-stage staircase).
A complete path is a goal when its latency, summed in stage order as the plan sums it, is at
most budget + LAT_TOL (`problem.fits_budget`); the latency blade and the DP heuristic add
latencies in other orders, so they prune only past `problem.prune_limit` of that (float
rounding never prunes a path that fits).
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.pareto import pareto_indices, path_count
from schedlab.solvers.esg.problem import budget_limit, prune_limit
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc

#: Most latency buckets of the DP heuristic (the `dp_buckets` range is 0..MAX_DP_BUCKETS).
MAX_DP_BUCKETS = 2**20
#: Bytes per cell of the DP table: 8 in the array, 32 in its list copy (pointer + float).
DP_BYTES_PER_CELL = 40
#: Most element steps of the DP (candidates x buckets, summed over stages): about 10 s.
MAX_DP_STEPS = 10**10


@dataclass(frozen=True)
class AStarOptions:
    latency_blade: bool = True
    cost_blade: bool = True
    pareto: bool = True
    dominance: bool = True
    dp_buckets: int = field(
        default=1024,
        metadata={
            "help": "latency buckets of the DP cost heuristic (0: sum of minimum costs)",
            "range": (0, MAX_DP_BUCKETS),
        },
    )


@dataclass(frozen=True)
class ChainSearch:
    """What one A* search found: the choice (None: no path fits) and its counters."""

    choice: list[int] | None
    cost: float
    nodes_expanded: int
    nodes_generated: int
    raw_space: float
    stopped: bool = False  # the deadline passed: `choice` is the best path generated, unproven
    bound: float = -np.inf  # with `stopped`: a lower bound on the cheapest cost


def dp_heuristic(
    cl: list[np.ndarray], cc: list[np.ndarray], budget: float, buckets: int
) -> tuple[np.ndarray, float]:
    """H[i, R]: a lower bound on the cheapest completion of stages i.. within R buckets.

    Latencies are floored to buckets of `budget / buckets` ms (a relaxation, so H is
    admissible); H is nonincreasing in R and H[i, R] <= c_k + H[i+1, R - floor(l_k)] (so
    C + H is consistent). Returns H and the bucket width.
    """
    k, u = len(cl), max(budget, 1e-300) / buckets
    check_dp_size(k, sum(len(x) for x in cl), buckets)
    h = np.full((k + 1, buckets + 1), np.inf)
    h[k] = 0.0
    for i in range(k - 1, -1, -1):
        lb = np.maximum(np.floor(cl[i] / u - 1e-9), 0).astype(np.int64)
        row = h[i]
        for b, c in zip(lb.tolist(), cc[i].tolist(), strict=True):
            if b <= buckets:
                np.minimum(row[b:], c + h[i + 1][: buckets + 1 - b], out=row[b:])
    return h, u


def check_dp_size(stages: int, candidates: int, buckets: int) -> None:
    """Refuse a DP table above the memory budget, or DP work above MAX_DP_STEPS, before it is
    built (the table grows with `dp_buckets` and the stages; the work with the candidates)."""
    flag = "dp_buckets (--dp-buckets)"
    fix = f"lower {flag}; 0 uses the sum of minimum costs and builds no table"
    if not 0 <= buckets <= MAX_DP_BUCKETS:
        raise InvalidInput(f"{flag}: must lie in 0..{MAX_DP_BUCKETS} (got {buckets})")
    cells = (stages + 1) * (buckets + 1)
    check_alloc(DP_BYTES_PER_CELL * cells, f"astar: a DP table of {cells:.3g} cells", fix=fix)
    steps = candidates * (buckets + 1)
    if steps > MAX_DP_STEPS:
        raise InvalidInput(
            f"astar: the DP heuristic over {candidates} candidate configurations x "
            f"{buckets + 1} buckets is {steps:.3g} steps, above {MAX_DP_STEPS:.0e}; {fix}"
        )


def _dominated(front_l: list[float], front_c: list[float], lat: float, cost: float) -> bool:
    """Whether (lat, cost) is dominated by the stage's staircase of expanded nodes; if not,
    add it (the staircase keeps latency increasing, cost decreasing)."""
    i = bisect.bisect_right(front_l, lat)
    if i > 0 and front_c[i - 1] <= cost:
        return True
    j = i
    while j < len(front_l) and front_c[j] >= cost:
        j += 1
    front_l[i:j], front_c[i:j] = [lat], [cost]
    return False


#: Heap pops between two looks at the clock.
CLOCK_EVERY = 1024


def astar_chain(
    lats: list[np.ndarray],
    costs: list[np.ndarray],
    budget: float,
    opts: AStarOptions | None = None,
    deadline: Deadline = NO_DEADLINE,
) -> ChainSearch:
    """Cheapest configuration path through the stages whose summed latency fits `budget`.

    Past `deadline`, the best complete path generated so far is returned with `stopped` and
    a lower bound (the least f in the open list: the heuristic is admissible, and pruned
    nodes cannot beat the incumbent)."""
    opts = opts or AStarOptions()
    k = len(lats)
    raw = path_count(len(x) for x in lats)
    cand = [
        pareto_indices(lats[i], costs[i]) if opts.pareto else np.arange(len(lats[i]))
        for i in range(k)
    ]
    cl = [lats[i][cand[i]] for i in range(k)]
    cc = [costs[i][cand[i]] for i in range(k)]
    min_lat = np.concatenate([np.cumsum([x.min() for x in cl][::-1])[::-1], [0.0]])
    h = np.concatenate([np.cumsum([x.min() for x in cc][::-1])[::-1], [0.0]])
    top = budget_limit(budget)  # a complete path fits when its latency <= top (the definition)
    loose = prune_limit(top)  # the blades and the DP sum in other orders: they prune past this
    if opts.latency_blade and min_lat[0] > loose:
        return ChainSearch(None, np.inf, 0, 0, raw)
    hdp, unit = dp_heuristic(cl, cc, loose, opts.dp_buckets) if opts.dp_buckets else (None, 1.0)
    cl_l = [x.tolist() for x in cl]
    cc_l = [x.tolist() for x in cc]
    h_l = [row.tolist() for row in hdp] if hdp is not None else None
    nb = opts.dp_buckets
    parent: list[tuple[int, int]] = [(-1, -1)]  # node id -> (parent id, candidate position)
    heap: list[tuple[float, float, int, int, float]] = [(h[0], 0.0, 0, 0, 0.0)]
    best, expanded, generated, best_nid, pops = np.inf, 0, 1, -1, 0
    fronts: list[tuple[list[float], list[float]]] = [([], []) for _ in range(k)]

    def path(nid: int) -> list[int]:
        choice, node = [0] * k, nid
        for s in range(k - 1, -1, -1):
            node, pos = parent[node]
            choice[s] = int(cand[s][pos])
        return choice

    while heap:
        pops += 1
        if pops % CLOCK_EVERY == 0 and deadline.passed():
            lb = min(heap[0][0], best)
            got = path(best_nid) if best_nid >= 0 else None
            return ChainSearch(got, best, expanded, generated, raw, True, lb)
        f, lat, nid, stage, cost = heapq.heappop(heap)
        if stage == k:
            return ChainSearch(path(nid), cost, expanded, generated, raw)
        if opts.cost_blade and f >= best and best < np.inf:
            continue
        if opts.dominance and _dominated(*fronts[stage], lat, cost):
            continue
        expanded += 1
        rest = min_lat[stage + 1] if opts.latency_blade else 0.0
        hs = h[stage + 1]
        hrow = h_l[stage + 1] if h_l is not None else None
        last = stage + 1 == k
        for pos, (dl, dc) in enumerate(zip(cl_l[stage], cc_l[stage], strict=True)):
            nl = lat + dl
            if last:
                if nl > top:
                    continue  # a complete path over the budget is never a goal
            elif opts.latency_blade and nl + rest > loose:
                continue  # latency blade
            nc = cost + dc
            if hrow is not None:
                r = int((loose - nl) / unit + 1e-9)
                hv = hrow[min(r, nb)] if loose >= nl else np.inf
                if hv == np.inf:
                    if opts.latency_blade:
                        continue  # latency blade: no completion fits even floored
                    hv = hs  # blade off: keep the node, with the budget-free heuristic
                nf = nc + hv
            else:
                nf = nc + hs
            if opts.cost_blade and nf >= best:
                continue  # cost blade
            if last and nc < best:
                best, best_nid = nc, len(parent)
            parent.append((nid, pos))
            heapq.heappush(heap, (nf, nl, len(parent) - 1, stage + 1, nc))
            generated += 1
    return ChainSearch(None, np.inf, expanded, generated, raw)
