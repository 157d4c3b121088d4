"""Dominator-based SLO distribution (ESG section on DAGs), reconstructed from the paper's text.

1. Add a virtual source before every source and a virtual sink after every sink; the functions
   that dominate the sink (networkx.immediate_dominators) cut the DAG into consecutive
   segments: each dominator alone, and the region between two consecutive dominators. Every
   path crosses every segment in order, so the end-to-end latency is the sum of the segments'
   longest paths. Consecutive segments that are single paths merge into one chain.
2. The budget B is split over the segments. Rule "min_latency": in proportion to each
   segment's minimum latency (longest path with each function at its fastest configuration).
   Rule "slack": each segment gets its minimum latency plus a share of the slack
   B - sum(minimum latencies) in proportion to its latency range (latency with the cheapest
   configurations minus the minimum), i.e. where slack can buy the most cost.
3. Each chain segment is solved by A* with its budget. A region with parallel branches is solved
   branch by branch (its source-to-sink paths, longest first), each as a chain with the
   functions fixed by earlier branches kept fixed. A branch that does not fit takes its fastest
   configurations; if the plan still misses the budget, the fastest plan of the whole DAG is
   returned (it fits whenever any plan does), so the split never returns an SLO violation.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from schedlab.solvers.esg.astar import AStarOptions, astar_chain
from schedlab.solvers.esg.plan import choice_fits
from schedlab.solvers.esg.problem import LAT_TOL, App
from schedlab.solvers.validate import NO_DEADLINE, Deadline, DeadlineExceeded

Rule = Literal["min_latency", "slack"]


def segments(app: App) -> list[list[int]]:
    """Consecutive segments (function indices) cut by the dominators of the sink."""
    import networkx as nx

    n, g = len(app.functions), nx.DiGraph()
    g.add_nodes_from(range(-1, n + 1))  # -1: virtual source, n: virtual sink
    idx = app.index()
    g.add_edges_from((idx[u], idx[v]) for u, v in app.edges)
    for i in range(n):
        if g.in_degree(i) == 0:
            g.add_edge(-1, i)
        if g.out_degree(i) == 0:
            g.add_edge(i, n)
    idom = nx.immediate_dominators(g, -1)
    chain, v = [n], n
    while v != -1:
        v = idom[v]
        chain.append(v)
    chain.reverse()  # -1, d1, ..., dm, n
    out: list[list[int]] = []
    for a, b in zip(chain, chain[1:], strict=False):
        region = (nx.descendants(g, a) & nx.ancestors(g, b)) - {a, b}
        if region:
            out.append(sorted(region, key=app.topo_order().index))
        if b != n:
            out.append([b])
    return out


def _path_of(app: App, seg: list[int]) -> list[int] | None:
    """The segment's functions in path order when they form a single path, else None."""
    if len(seg) == 1:
        return seg
    inside, preds = set(seg), app.preds()
    for a, b in zip(seg, seg[1:], strict=False):
        if a not in preds[b] or len([p for p in preds[b] if p in inside]) != 1:
            return None
    return seg


def merged_segments(app: App) -> list[tuple[list[int], bool]]:
    """Segments with consecutive single paths merged: (functions, is_chain)."""
    out: list[tuple[list[int], bool]] = []
    for seg in segments(app):
        path = _path_of(app, seg)
        if path is not None and out and out[-1][1]:
            out[-1] = (out[-1][0] + path, True)
        else:
            out.append((path or seg, path is not None))
    return out


def seg_latency(preds: list[list[int]], seg: list[int], per_fn: list[float]) -> float:
    """Longest path inside the segment with the given per-function latency (`preds`: the
    app's predecessor lists; `seg` in topological order)."""
    inside = set(seg)
    finish: dict[int, float] = {}
    for i in seg:
        finish[i] = max((finish[p] for p in preds[i] if p in inside), default=0.0) + per_fn[i]
    return max(finish.values())


def split_budget(app: App, segs: list[list[int]], rule: Rule) -> list[float] | None:
    """Per-segment budgets (None when even the fastest plan misses the budget)."""
    return rule_budgets(app, segs, rule, app.stage_latency(), app.stage_cost(), app.budget)


def rule_budgets(
    app: App,
    segs: list[list[int]],
    rule: Rule,
    lats: list[np.ndarray],
    costs: list[np.ndarray],
    budget: float,
) -> list[float] | None:
    """The paper's rule on given stage latency and cost tables (inf: a configuration that may
    not be used), e.g. an online policy's planning tables; None when even the fastest plan
    misses `budget`."""
    preds = app.preds()
    fast = [float(a.min()) for a in lats]
    cheap = [float(a[np.lexsort((a, c))[0]]) for a, c in zip(lats, costs, strict=True)]
    lo = np.array([seg_latency(preds, s, fast) for s in segs])
    slack = budget - lo.sum()
    if slack < -LAT_TOL:
        return None
    hi = np.array([seg_latency(preds, s, cheap) for s in segs])
    w = np.maximum(hi - lo, 0.0)
    if rule == "slack" and w.sum() > 0:
        return list(lo + max(slack, 0.0) * w / w.sum())
    return list(budget * lo / lo.sum()) if lo.sum() > 0 else [budget / len(segs)] * len(segs)


def _solve_path(
    app: App,
    path: list[int],
    fixed: dict[int, int],
    budget: float,
    opts: AStarOptions | None,
    deadline: Deadline = NO_DEADLINE,
) -> int:
    """A* over `path` with fixed functions pinned; writes into `fixed`; returns nodes expanded.
    DeadlineExceeded when `deadline` stops the search (a split plan needs every path)."""
    lats, costs = app.stage_latency(), app.stage_cost()
    ls = [lats[i][[fixed[i]]] if i in fixed else lats[i] for i in path]
    cs = [costs[i][[fixed[i]]] if i in fixed else costs[i] for i in path]
    s = astar_chain(ls, cs, budget, opts, deadline)
    if s.stopped:
        raise DeadlineExceeded
    if s.choice is None:
        for i in path:
            fixed.setdefault(i, int(np.argmin(lats[i])))
        return s.nodes_expanded
    for i, k in zip(path, s.choice, strict=True):
        if i not in fixed:
            fixed[i] = int(k)
    return s.nodes_expanded


def _branches(app: App, seg: list[int]) -> list[list[int]]:
    """Source-to-sink paths of a region, longest (at fastest configurations) first."""
    import networkx as nx

    inside, g = set(seg), nx.DiGraph()
    g.add_nodes_from(seg)
    g.add_edges_from((p, i) for i in seg for p in app.preds()[i] if p in inside)
    srcs = [v for v in seg if g.in_degree(v) == 0]
    sinks = [v for v in seg if g.out_degree(v) == 0]
    paths = [[v] for v in srcs if v in sinks]
    paths += [p for s in srcs for t in sinks if s != t for p in nx.all_simple_paths(g, s, t)]
    fast = [float(a.min()) for a in app.stage_latency()]
    return sorted(paths, key=lambda p: -sum(fast[i] for i in p))


def split_solve(
    app: App, rule: Rule, opts: AStarOptions | None = None, deadline: Deadline = NO_DEADLINE
) -> tuple[list[int] | None, dict[str, Any]]:
    """Plan by the dominator split (choice per function, or None when no plan fits)."""
    segs = merged_segments(app)
    budgets = split_budget(app, [s for s, _ in segs], rule)
    stats: dict[str, Any] = {"segments": len(segs), "rule": rule, "nodes_expanded": 0}
    if budgets is None:  # decided by the one definition of "fits", not the segments' sums
        return _fastest_if_it_fits(app, stats), stats
    fixed: dict[int, int] = {}
    for (seg, is_chain), b in zip(segs, budgets, strict=True):
        for path in [seg] if is_chain else _branches(app, seg):
            stats["nodes_expanded"] += _solve_path(app, path, fixed, b, opts, deadline)
    choice = [fixed[i] for i in range(len(app.functions))]
    if choice_fits(app, choice):
        return choice, stats
    return _fastest_if_it_fits(app, stats), stats


def _fastest_if_it_fits(app: App, stats: dict[str, Any]) -> list[int] | None:
    """The fastest plan (the least longest path) when it fits the budget, else None: then no
    plan fits, so the split's `infeasible` is proven."""
    stats["fallback"] = "fastest"
    fastest = [int(np.argmin(a)) for a in app.stage_latency()]
    return fastest if choice_fits(app, fastest) else None
