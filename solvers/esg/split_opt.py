"""Optimal SLO split (ours, not the paper's): per-segment (latency, cost) Pareto frontiers, then
one point per segment at least total cost with the latencies summing to at most the budget.

The dominator segments (`slo_split.merged_segments`) are in series: every source-to-sink path
crosses all of them, so a plan's end-to-end latency is the sum of the segments' longest paths,
and the cheapest plan that fits is the cheapest combination of one frontier point per segment
whose latencies sum to at most the budget (a multiple-choice knapsack, solved exactly by
composing the frontiers in series and taking the cheapest point that fits). Per segment:

- a chain, or a region that is series-parallel (two-terminal, functions as edges; reduced by
  series and parallel reductions): exact frontier. Series: every pair, latencies added, costs
  added; parallel: latency the max, costs added; Pareto filter after each step;
- a region that is not series-parallel: exact by a sweep in topological order whose states
  hold the finish times of the functions with successors still to come, the latest finish of
  the sinks done and the cost (dominated states dropped), while a function forms at most
  `MAX_STATES` states (narrow regions); else a lower frontier from the path relaxation (each
  source-to-sink path its own chain of copies, a function's cost shared equally by the copies
  on its paths: any real plan is a relaxed plan of the same latency and cost) and an upper
  frontier of real plans (each function at the fastest of its copies' configurations: no path
  gets slower).

**Exactness condition**: every segment a chain, series-parallel, or swept within MAX_STATES
states: then the frontier of the whole application is exact and the cheapest point that fits is
the optimum (status `optimal`, proven by `certify`). Otherwise the cheapest point of the
composed lower frontiers that fits is a lower bound (status `feasible` with that bound unless
the plan meets it; `stats["kinds"]` says how each segment was solved).

Floats: a frontier's latency is summed in composition order, a plan's in path order
(`plan.longest_path`); the two differ by rounding only. Points are kept up to
`prune_limit(budget + LAT_TOL)`, so the lower bound is sound; the plan is the cheapest point
whose real plan fits (`fits_budget`). In the rare case that the cheapest point misses on the real
data (its latency within rounding of the budget), a plan it dominated may be the optimum: the
method then enumerates the whole application when it is small (`BRUTE_CAP`), else returns the
best point that fits (or the fastest plan) as `feasible` with the bound.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.plan import longest_path, result
from schedlab.solvers.esg.problem import APP_KINDS, App, budget_limit, fits_budget, prune_limit
from schedlab.solvers.esg.slo_split import merged_segments, seg_latency
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

#: Most plans the whole application is enumerated over at the tolerance's edge.
BRUTE_CAP = 200_000
#: Most states the sweep of a non-series-parallel region forms at one function.
MAX_STATES = 20_000
#: Pairwise comparisons (times keys) per block of the sweep's dominance filter.
SWEEP_BLOCK = 1 << 16
#: Most source-to-sink paths of the path relaxation of a large non-series-parallel region.
MAX_RELAX_PATHS = 64
#: Pairs formed at once in a series composition (bounds its memory: about 40 bytes a pair).
PAIR_BLOCK = 1 << 20


@dataclass(frozen=True)
class Front:
    """A Pareto frontier: latency increasing, cost decreasing; `choice[p, i]` the configuration
    of function i at point p (-1: function not in this part)."""

    lat: np.ndarray
    cost: np.ndarray
    choice: np.ndarray

    def __len__(self) -> int:
        return len(self.lat)


def _front(lat: np.ndarray, cost: np.ndarray, choice: np.ndarray, limit: float) -> Front:
    """The Pareto frontier of the given points with latency <= limit."""
    ok = np.flatnonzero(lat <= limit)
    keep = ok[pareto_indices(lat[ok], cost[ok])]
    return Front(lat[keep], cost[keep], choice[keep])


def identity(n: int) -> Front:
    """The empty part: latency 0, cost 0, no function chosen."""
    return Front(np.zeros(1), np.zeros(1), np.full((1, n), -1, dtype=np.int64))


def leaf(i: int, lat: np.ndarray, cost: np.ndarray, n: int, limit: float) -> Front:
    """Function i alone: its finite configurations' frontier."""
    ks = np.flatnonzero(np.isfinite(lat) & np.isfinite(cost))
    choice = np.full((len(ks), n), -1, dtype=np.int64)
    choice[:, i] = ks
    return _front(lat[ks].astype(float), cost[ks].astype(float), choice, limit)


def _pick(a: Front, b: Front, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Choices of the combined points (a's functions and b's are disjoint)."""
    ca, cb = a.choice[ia], b.choice[ib]
    return np.where(ca >= 0, ca, cb)


def series(a: Front, b: Front, limit: float, deadline: Deadline = NO_DEADLINE) -> Front:
    """a then b: every pair (latencies and costs added), in blocks of PAIR_BLOCK pairs."""
    if len(a) == 0 or len(b) == 0:
        return Front(np.zeros(0), np.zeros(0), np.zeros((0, a.choice.shape[1]), dtype=np.int64))
    step = max(1, PAIR_BLOCK // len(b))
    lats, costs, ias, ibs = [], [], [], []
    for s in range(0, len(a), step):
        deadline.check()
        ia = np.repeat(np.arange(s, min(s + step, len(a))), len(b))
        ib = np.tile(np.arange(len(b)), min(step, len(a) - s))
        lat, cost = a.lat[ia] + b.lat[ib], a.cost[ia] + b.cost[ib]
        ok = np.flatnonzero(lat <= limit)
        keep = ok[pareto_indices(lat[ok], cost[ok])]
        lats.append(lat[keep])
        costs.append(cost[keep])
        ias.append(ia[keep])
        ibs.append(ib[keep])
    lat, cost = np.concatenate(lats), np.concatenate(costs)
    ia, ib = np.concatenate(ias), np.concatenate(ibs)
    keep = pareto_indices(lat, cost)
    return Front(lat[keep], cost[keep], _pick(a, b, ia[keep], ib[keep]))


def parallel(a: Front, b: Front, limit: float) -> Front:
    """a beside b between the same two points: latency the larger, costs added. At each
    latency of either frontier, the cheapest point of each within it."""
    cand = np.union1d(a.lat, b.lat)
    cand = cand[cand <= limit]
    ia = np.searchsorted(a.lat, cand, side="right") - 1
    ib = np.searchsorted(b.lat, cand, side="right") - 1
    ok = (ia >= 0) & (ib >= 0)
    ia, ib = ia[ok], ib[ok]
    lat = np.maximum(a.lat[ia], b.lat[ib])
    cost = a.cost[ia] + b.cost[ib]
    keep = pareto_indices(lat, cost)
    return Front(lat[keep], cost[keep], _pick(a, b, ia[keep], ib[keep]))


def sp_reduce(seg: Sequence[Any], preds: Any, leaves: Any, n: int, limit: float) -> Front | None:
    """Frontier of a region by series and parallel reductions (each function an edge from its
    in-node to its out-node; a terminal before the sources and after the sinks); None when the
    region is not series-parallel. `preds[i]` and `leaves[i]` for every node i of `seg`."""
    edges = _reduce(seg, preds, leaves, n, limit)
    if len(edges) == 1:
        ((u, w, f),) = edges.values()
        if (u, w) == ("s", "t"):
            return f
    return None


def _reduce(
    seg: Sequence[Any], preds: Any, leaves: Any, n: int, limit: float
) -> dict[int, tuple[Any, Any, Front]]:
    """The two-terminal network of the region after every series and parallel reduction."""
    inside = set(seg)
    has_succ = {p for i in seg for p in preds[i] if p in inside}
    edges: dict[int, tuple[Any, Any, Front]] = {}
    for i in seg:
        edges[len(edges)] = (("in", i), ("out", i), leaves[i])
        ins = [p for p in preds[i] if p in inside]
        for p in ins:
            edges[len(edges)] = (("out", p), ("in", i), identity(n))
        if not ins:
            edges[len(edges)] = ("s", ("in", i), identity(n))
        if i not in has_succ:
            edges[len(edges)] = (("out", i), "t", identity(n))
    changed = True
    while changed and len(edges) > 1:
        changed = False
        by_ends: dict[tuple[Any, Any], int] = {}
        for e, (u, w, f) in list(edges.items()):
            if (u, w) in by_ends:
                k = by_ends[(u, w)]
                edges[k] = (u, w, parallel(edges[k][2], f, limit))
                del edges[e]
                changed = True
            else:
                by_ends[(u, w)] = e
        into: dict[Any, list[int]] = {}
        out: dict[Any, list[int]] = {}
        for e, (u, w, _) in edges.items():
            out.setdefault(u, []).append(e)
            into.setdefault(w, []).append(e)
        for x in list(into):
            if x in ("s", "t") or len(into.get(x, [])) != 1 or len(out.get(x, [])) != 1:
                continue
            e1, e2 = into[x][0], out[x][0]
            if e1 not in edges or e2 not in edges or e1 == e2:
                continue
            u, _, f1 = edges.pop(e1)
            _, w, f2 = edges.pop(e2)
            edges[e1] = (u, w, series(f1, f2, limit))
            for d in (into, out):
                d.pop(x, None)
            changed = True
            break  # the adjacency changed: rebuild it
    return edges


def dominated(keys: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Which states another state dominates (no larger key anywhere and no dearer; among equal
    states the first in (cost, keys) order is kept). Blocked pairwise comparison against the
    states before each in that order."""
    order = np.lexsort((*keys.T[::-1], cost))
    k = np.ascontiguousarray(keys[order].T)  # (keys, states)
    out = np.zeros(len(order), dtype=bool)
    step = max(1, int(math.sqrt(SWEEP_BLOCK)))
    for s in range(1, len(order), step):
        e = min(s + step, len(order))
        le = k[0, None, :e] <= k[0, s:e, None]  # [row, j]: j's key <= row's key
        for d in range(1, len(k)):
            le &= k[d, None, :e] <= k[d, s:e, None]
        le &= np.arange(e)[None, :] < np.arange(s, e)[:, None]  # j before the row: no dearer
        out[s:e] = le.any(axis=1)
    res = np.zeros(len(order), dtype=bool)
    res[order] = out
    return res


def sweep_region(
    seg: list[int],
    preds: list[list[int]],
    leaves: dict[int, Front],
    n: int,
    limit: float,
    max_states: int,
    deadline: Deadline = NO_DEADLINE,
) -> Front | None:
    """Exact frontier of any region by a sweep in topological order: a state holds the finish
    times of the functions whose successors are still to come, the latest finish of the sinks
    done, the cost and the choices; states dominated in all of these are dropped. None when
    more than `max_states` states would be formed (the region is too wide for the sweep)."""
    inside = set(seg)
    last_use = {i: max((seg.index(j) for j in seg if i in preds[j]), default=-1) for i in seg}
    active: list[int] = []
    fin = np.zeros((1, 0))
    done = np.zeros(1)
    cost = np.zeros(1)
    choice = np.full((1, n), -1, dtype=np.int64)
    for pos, v in enumerate(seg):
        deadline.check()
        f = leaves[v]
        if len(fin) * len(f) > max_states:
            return None
        cols = [active.index(p) for p in preds[v] if p in inside]
        start = fin[:, cols].max(axis=1) if cols else np.zeros(len(fin))
        si, ki = np.repeat(np.arange(len(fin)), len(f)), np.tile(np.arange(len(f)), len(fin))
        new = start[si] + f.lat[ki]
        fin, done, cost = np.column_stack([fin[si], new]), done[si], cost[si] + f.cost[ki]
        choice = choice[si]
        choice[:, v] = f.choice[ki, v]
        active.append(v)
        keep_cols = []
        for c, u in enumerate(active):
            if last_use[u] == -1:  # a sink of the region: its finish counts toward the latency
                done = np.maximum(done, fin[:, c])
            elif last_use[u] > pos:
                keep_cols.append(c)
        active = [active[c] for c in keep_cols]
        fin = fin[:, keep_cols]
        ok = (done <= limit) & (fin <= limit).all(axis=1)
        fin, done, cost, choice = fin[ok], done[ok], cost[ok], choice[ok]
        drop = dominated(np.column_stack([fin, done]), cost)
        fin, done, cost, choice = fin[~drop], done[~drop], cost[~drop], choice[~drop]
    return _front(done, cost, choice, limit)


def _region_latency(seg: list[int], preds: list[list[int]], lat: dict[int, np.ndarray]) -> Any:
    """Longest path inside the region per column (each function's latency per column)."""
    inside, finish = set(seg), dict[int, Any]()
    for i in seg:  # topological order
        ps = [finish[p] for p in preds[i] if p in inside]
        start = np.max(ps, axis=0) if ps else 0.0
        finish[i] = start + lat[i]
    return np.max([finish[i] for i in seg], axis=0)


def _region_paths(seg: list[int], preds: list[list[int]]) -> list[list[int]] | None:
    """Source-to-sink paths of a region (None: more than MAX_RELAX_PATHS)."""
    inside = set(seg)
    succ: dict[int, list[int]] = {i: [] for i in seg}
    for i in seg:
        for p in preds[i]:
            if p in inside:
                succ[p].append(i)
    paths: list[list[int]] = []
    stack = [[i] for i in seg if not any(p in inside for p in preds[i])]
    while stack:
        path = stack.pop()
        if not succ[path[-1]]:
            paths.append(path)
            if len(paths) > MAX_RELAX_PATHS:
                return None
        stack.extend(path + [j] for j in succ[path[-1]])
    return paths


def relaxed_region(
    seg: list[int],
    preds: list[list[int]],
    lat: list[np.ndarray],
    leaves: dict[int, Front],
    n: int,
    limit: float,
    deadline: Deadline = NO_DEADLINE,
) -> tuple[Front, Front]:
    """(lower frontier, frontier of real plans) of a region too large to enumerate: the path
    relaxation and its repair (each function at the fastest of its copies' configurations)."""
    paths = _region_paths(seg, preds)
    fastest = np.full((1, n), -1, dtype=np.int64)
    for i in seg:
        fastest[0, i] = leaves[i].choice[0, i]
    fast_lat = float(_region_latency(seg, preds, {i: leaves[i].lat[0] for i in seg}))
    fast_cost = float(sum(leaves[i].cost[0] for i in seg))
    upper_fast = _front(np.array([fast_lat]), np.array([fast_cost]), fastest, limit)
    if paths is None:  # the trivial relaxation: the fastest latency at the least costs
        least = float(sum(leaves[i].cost.min() for i in seg))
        return _front(np.array([fast_lat]), np.array([least]), fastest, limit), upper_fast
    uses = {i: sum(i in p for p in paths) for i in seg}
    copies = sum(len(p) for p in paths)  # choice columns: one per copy
    low: Front | None = None
    col = 0
    for p in paths:
        chain = identity(copies)
        for i in p:
            f = leaves[i]
            ch = np.full((len(f), copies), -1, dtype=np.int64)
            ch[:, col] = f.choice[:, i]
            chain = series(chain, Front(f.lat, f.cost / uses[i], ch), limit, deadline)
            col += 1
        low = chain if low is None else parallel(low, chain, limit)
    assert low is not None
    owner = [i for p in paths for i in p]
    real = np.full((len(low), n), -1, dtype=np.int64)
    for c, i in enumerate(owner):  # each function at the fastest configuration of its copies
        k = low.choice[:, c]
        cur = real[:, i]
        faster = (cur < 0) | (lat[i][k] < np.where(cur >= 0, lat[i][np.maximum(cur, 0)], np.inf))
        real[:, i] = np.where(faster, k, cur)
    rl = _region_latency(seg, preds, {i: lat[i][real[:, i]] for i in seg})
    cost_of = {i: dict(zip(leaves[i].choice[:, i].tolist(), leaves[i].cost.tolist(), strict=True))
               for i in seg}  # fmt: skip
    rc = np.array([sum(cost_of[i][int(k)] for i, k in zip(seg, row[seg], strict=True))
                   for row in real])  # fmt: skip
    upper = _front(
        np.concatenate([np.asarray(rl, dtype=float), upper_fast.lat]),
        np.concatenate([rc, upper_fast.cost]),
        np.concatenate([real, upper_fast.choice]),
        limit,
    )
    return Front(low.lat, low.cost, np.zeros((len(low), 0), dtype=np.int64)), upper


@dataclass(frozen=True)
class SplitPlan:
    """What the optimal split found: the plan (None: none fits), its per-segment budgets (each
    segment's longest path in the plan), a sound lower bound on the cheapest plan that fits
    (inf: no plan fits), whether every segment's frontier is exact, and counters."""

    choice: list[int] | None
    budgets: list[float] | None
    bound: float
    exact: bool
    stats: dict[str, Any] = field(default_factory=dict)


def optimize(
    app: App,
    lats: list[np.ndarray] | None = None,
    costs: list[np.ndarray] | None = None,
    budget: float | None = None,
    deadline: Deadline = NO_DEADLINE,
    max_states: int = MAX_STATES,
) -> SplitPlan:
    """The optimal split of `budget` (default: the app's) over the dominator segments, on the
    given stage latency and cost tables (default: the app's; inf marks a configuration that may
    not be used)."""
    lats = app.stage_latency() if lats is None else lats
    costs = app.stage_cost() if costs is None else costs
    budget = app.budget if budget is None else budget
    n, preds = len(app.functions), app.preds()
    top = budget_limit(budget)
    loose = prune_limit(top)
    segs = merged_segments(app)
    leaves = {i: leaf(i, lats[i], costs[i], n, loose) for i in range(n)}
    stats: dict[str, Any] = {"segments": len(segs), "kinds": []}
    if any(len(f) == 0 for f in leaves.values()):
        return SplitPlan(None, None, math.inf, True, stats)
    fast = [float(f.lat[0]) for f in leaves.values()]
    seg_fast = [seg_latency(preds, s, fast) for s, _ in segs]
    lows, highs, exact = [], [], True
    for k, (seg, is_chain) in enumerate(segs):
        deadline.check()
        other = sum(seg_fast) - seg_fast[k]
        room = loose - other * (1 - 1e-9) + 1e-9 * max(1.0, loose)  # pruning only: generous
        lo, hi, kind = _segment_front(
            seg, is_chain, (preds, lats, leaves), room, max_states, deadline
        )
        stats["kinds"].append(kind)
        exact &= kind != "relaxed"
        lows.append(lo)
        highs.append(hi)
    low, high = _fold(lows, loose, deadline), _fold(highs, loose, deadline)
    stats["front_points"] = [len(f) for f in highs]
    bound = float(low.cost.min()) if len(low) else math.inf
    choice, stats["skipped"] = None, 0
    for p in np.argsort(high.cost, kind="stable"):
        c = [int(x) for x in high.choice[p]]
        if fits_budget(longest_path(app, [float(lats[i][c[i]]) for i in range(n)]), budget):
            choice = c
            break
        stats["skipped"] += 1  # within rounding of the budget: a real plan misses it
    if choice is None:
        return SplitPlan(None, None, bound, exact, stats)
    per_fn = [float(lats[i][choice[i]]) for i in range(n)]
    budgets = [seg_latency(preds, s, per_fn) for s, _ in segs]
    return SplitPlan(choice, budgets, bound, exact, stats)


def _segment_front(
    seg: list[int],
    is_chain: bool,
    tables: tuple[list[list[int]], list[np.ndarray], dict[int, Front]],
    limit: float,
    max_states: int,
    deadline: Deadline,
) -> tuple[Front, Front, str]:
    """(lower, upper) frontier of one segment and how it was found: chain, series-parallel,
    swept (exact: lower = upper) or relaxed. `tables`: (preds, latencies, leaves)."""
    preds, lats, leaves = tables
    n = len(preds)
    if is_chain:
        f = identity(n)
        for i in seg:
            f = series(f, leaves[i], limit, deadline)
        return f, f, "chain"
    sp = sp_reduce(seg, preds, leaves, n, limit)
    if sp is not None:
        return sp, sp, "series-parallel"
    swept = sweep_region(seg, preds, leaves, n, limit, max_states, deadline)
    if swept is not None:
        return swept, swept, "swept"
    lo, hi = relaxed_region(seg, preds, lats, leaves, n, limit, deadline)
    return lo, hi, "relaxed"


def _fold(fronts: list[Front], limit: float, deadline: Deadline) -> Front:
    """The segments in series, first to last."""
    out = fronts[0]
    for f in fronts[1:]:
        if out.choice.shape[1] != f.choice.shape[1]:  # lower frontiers without choices
            out = Front(out.lat, out.cost, np.zeros((len(out), 0), dtype=np.int64))
            f = Front(f.lat, f.cost, np.zeros((len(f), 0), dtype=np.int64))
        out = series(out, f, limit, deadline)
    return out


@dataclass(frozen=True)
class SplitOptOptions:
    max_states: int = field(
        default=MAX_STATES,
        metadata={
            "help": "most states of the sweep of a region that is not series-parallel "
            "(more: the path relaxation, a bound)",
            "range": (1, 10**8),
        },
    )
    brute_cap: int = field(
        default=BRUTE_CAP,
        metadata={
            "help": "at the tolerance's edge, enumerate the application up to this many plans",
            "range": (1, 10**7),
        },
    )


@register_method(
    "esg",
    "split_opt",
    exact=True,
    kinds=APP_KINDS,
    options=SplitOptOptions,
    summary="optimal SLO split: segment Pareto frontiers composed (exact when segments are "
    "series-parallel or enumerable)",
)
def solve_split_opt(
    app: App,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: SplitOptOptions,
) -> SolveResult:
    """Cheapest plan by the segment frontiers; `optimal` when proven (see the module doc)."""
    t0 = time.perf_counter()
    sp = optimize(app, deadline=deadline, max_states=options.max_states)
    stats = dict(sp.stats, exact_frontiers=sp.exact, budgets_ms=sp.budgets)
    if math.isinf(sp.bound):  # the lower frontier has no point that fits: none fits
        return result(app, None, "split_opt", t0, exact=True, proven_infeasible=True, stats=stats)
    choice = sp.choice
    if (choice is None or stats["skipped"]) and _small(app, options.brute_cap):
        choice = _enumerate(app)  # the tolerance's edge: settle it exactly
        stats["enumerated"] = True
        return result(app, choice, "split_opt", t0, exact=True, proven=True,
                      proven_infeasible=True, stats=stats)  # fmt: skip
    if choice is None:  # no point fits on the real data: the fastest plan, when it fits
        stats["fallback"] = "fastest"
        fastest = [int(np.argmin(a)) for a in app.stage_latency()]
        if not fits_budget(longest_path(app, [float(a.min()) for a in app.stage_latency()]),
                           app.budget):  # fmt: skip
            return result(app, None, "split_opt", t0, exact=True, proven_infeasible=True,
                          stats=stats)  # fmt: skip
        choice = fastest
    return result(app, choice, "split_opt", t0, exact=True, bound=sp.bound, stats=stats)


def _small(app: App, cap: int) -> bool:
    """Whether the whole application's Pareto configurations make at most `cap` plans."""
    sizes = [len(pareto_indices(a, c)) for a, c in zip(app.stage_latency(), app.stage_cost(),
                                                       strict=True)]  # fmt: skip
    return math.prod(sizes) <= cap


def _enumerate(app: App) -> list[int] | None:
    """The cheapest plan that fits, by enumerating the Pareto configurations (`exact_enum`)."""
    from schedlab.solvers.esg.exact_enum import _dag_brute

    return _dag_brute(
        app, [pareto_indices(a, c) for a, c in zip(app.stage_latency(), app.stage_cost(),
                                                   strict=True)]
    )  # fmt: skip
