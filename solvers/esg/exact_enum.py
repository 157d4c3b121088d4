"""Brute force: every configuration path. Chains run on the path kernels; DAGs in numpy blocks.

Both sum a path's stage latencies in the plan's order (`plan.longest_path`) and test it against
`problem.budget_limit` (budget + LAT_TOL), the one definition of a plan that fits. The work,
paths x stages at the kernels' relative cost (compiled, or numpy for the numpy backend and for
DAGs), is held to the enumeration oracles' one work cap (`kit.enum`) before anything runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from schedlab.solvers.esg.pareto import pareto_indices, path_count
from schedlab.solvers.esg.plan import result
from schedlab.solvers.esg.problem import APP_KINDS, App, budget_limit
from schedlab.solvers.kit.enum import COMPILED, VECTORIZED, refuse_above
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


@dataclass(frozen=True)
class BruteOptions:
    backend: Literal["auto", "numpy", "cpu", "cuda"] = field(
        default="cpu", metadata={"help": "kernel backend for chains"}
    )
    pareto: bool = field(default=False, metadata={"help": "enumerate Pareto configs only"})
    max_work: int = shared("max_work")


def brute_work(app: App, options: BruteOptions, space: float | None = None) -> float:
    """The steps of `brute` on `app` (`kit.enum`): its paths (`space`, default every
    configuration path) times the stages, at the kernels' relative cost (compiled on chains
    unless the numpy backend is asked, numpy blocks on DAGs)."""
    if space is None:
        space = path_count(len(f.configs) for f in app.functions)
    compiled = app.is_chain and options.backend != "numpy"
    return space * len(app.functions) * (COMPILED if compiled else VECTORIZED)


def chain_fits(stages: int, configs: int, options: BruteOptions | None = None) -> bool:
    """Whether `brute` takes a chain of `stages` functions of `configs` configurations each
    within its work cap (default options: the default cap)."""
    o = options or BruteOptions()
    cost = COMPILED if o.backend != "numpy" else VECTORIZED
    return float(configs) ** stages * stages * cost <= o.max_work


def chain_tables(
    lats: list[np.ndarray], costs: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Padded (stages, width) latency and cost tables and the column counts, for the kernels."""
    width = max(len(x) for x in lats)
    lat = np.zeros((len(lats), width))
    cost = np.zeros((len(lats), width))
    for s, (a, c) in enumerate(zip(lats, costs, strict=True)):
        lat[s, : len(a)], cost[s, : len(c)] = a, c
    return lat, cost, np.array([len(a) for a in lats], dtype=np.int64)


def _dag_brute(app: App, cand: list[np.ndarray], block: int = 1 << 15) -> list[int] | None:
    """Cheapest choice over the product of candidates whose longest path fits (numpy)."""
    lats, costs, preds = app.stage_latency(), app.stage_cost(), app.preds()
    counts = np.array([len(c) for c in cand], dtype=np.int64)
    total, order = int(np.prod(counts)), app.topo_order()
    best, best_choice = np.inf, None
    for a in range(0, total, block):
        idx = np.arange(a, min(a + block, total), dtype=np.int64)
        digits, r = np.zeros((len(counts), len(idx)), dtype=np.int64), idx.copy()
        for s in range(len(counts) - 1, -1, -1):
            digits[s], r = r % counts[s], r // counts[s]
        cols = [cand[s][digits[s]] for s in range(len(counts))]
        finish = np.zeros((len(counts), len(idx)))
        for i in order:
            start = np.max([finish[p] for p in preds[i]], axis=0) if preds[i] else 0.0
            finish[i] = start + lats[i][cols[i]]
        tot = sum(costs[s][cols[s]] for s in range(len(counts)))
        tot = np.where(finish.max(axis=0) <= budget_limit(app.budget), tot, np.inf)
        k = int(np.argmin(tot))
        if tot[k] < best:
            best, best_choice = float(tot[k]), [int(c[k]) for c in cols]
    return best_choice


@register_method(
    "esg",
    "brute",
    exact=True,
    kinds=APP_KINDS,
    options=BruteOptions,
    summary="Enumerate every configuration path (path kernels on chains)",
)
def solve_brute(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: BruteOptions
) -> SolveResult:
    """Proven optimum by enumeration (or infeasible when no path fits)."""
    from schedlab.solvers.kernels.paths import best_path

    t0 = time.perf_counter()
    lats, costs = app.stage_latency(), app.stage_cost()
    cand = [
        pareto_indices(a, c) if options.pareto else np.arange(len(a))
        for a, c in zip(lats, costs, strict=True)
    ]
    space = path_count(len(c) for c in cand)
    refuse_above(brute_work(app, options, space), options.max_work,
                 f"method esg/brute: {space:.3g} paths", "astar, milp or cpsat")  # fmt: skip
    stats = {"paths": space, "backend": options.backend}
    if not app.is_chain:
        choice = _dag_brute(app, cand)
        return result(app, choice, "brute", t0, exact=True, proven=True,
                      proven_infeasible=True, stats=stats)  # fmt: skip
    order = app.topo_order()
    lat, cost, counts = chain_tables(
        [lats[i][cand[i]] for i in order], [costs[i][cand[i]] for i in order]
    )
    bp = best_path(lat, cost, counts, budget_limit(app.budget), backend=options.backend)
    stats["feasible_paths"] = bp.feasible_paths
    if bp.choice is None:
        return result(app, None, "brute", t0, exact=True, proven_infeasible=True, stats=stats)
    choice = [0] * len(order)
    for pos, i in enumerate(order):
        choice[i] = int(cand[i][bp.choice[pos]])
    return result(app, choice, "brute", t0, exact=True, proven=True, stats=stats)
