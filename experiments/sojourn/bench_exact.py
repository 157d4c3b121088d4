"""Benchmark: the largest n each exact method proves optimal for objective B within a limit.

For each method, n grows along a fixed ladder; at every n it must prove optimality on every
seeded instance generate(n, 10_000 + 100 n + i) within the limit (60 s; 5 s with quick), else the
method stops there. "plain" is the textbook model (every triangle inequality, no blocks);
"lazy" adds violated triangles round by round; "blocks" also splits the jobs into preference
blocks (proof in theory/sojourn/lop.py) before the lazy model; "lpcut" separates triangle cuts on
the scaled LP first (solvers/sojourn/exact_lpcut.py), by default after trying to prove each block
by a packing of preference cycles (solvers/sojourn/cyclepack.py; "LP cuts only" skips it). Both
instance families run: "default" (B's preferences almost always transitive: proofs by the
pairwise-minimum argument, no solver call)
and "cyclic" (one preference component of >= 80% of the jobs: every proof is a solver's). Each
row reports the largest preference block and the solver calls of the hardest instance. Run:
`python -m schedlab.experiments.bench bench_exact [--quick]`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve

PLAIN = {"triangles": "all", "decompose": False}
LAZY = {"triangles": "lazy", "decompose": False}
BLOCKS = {"triangles": "lazy", "decompose": True}
METHODS: list[tuple[str, str, dict[str, Any]]] = [
    ("dp", "dp", {}),
    ("milp-cbc (plain)", "milp", {"solver": "cbc", **PLAIN}),
    ("milp-highs (plain)", "milp", {"solver": "highs", **PLAIN}),
    ("cpsat (plain)", "cpsat", PLAIN),
    ("milp-highs (lazy)", "milp", {"solver": "highs", **LAZY}),
    ("cpsat (lazy)", "cpsat", LAZY),
    ("milp-cbc (blocks+lazy)", "milp", {"solver": "cbc", **BLOCKS}),
    ("milp-highs (blocks+lazy)", "milp", {"solver": "highs", **BLOCKS}),
    ("cpsat (blocks+lazy)", "cpsat", BLOCKS),
    ("lpcut (LP cuts only)", "lpcut", {"packing": False}),
    ("lpcut (packing, LP cuts)", "lpcut", {}),
]
# on the cyclic family the plain and lazy variants are the blocks+lazy ones (one block)
CYCLIC_METHODS = [m for m in METHODS if "plain" not in m[0] and "(lazy)" not in m[0]]
CYCLIC_NS = [10, 16, 20, 30, 45, 60, 80, 100, 150, 200, 250, 300, 350, 400]
QUICK_CYCLIC_NS = [10, 20, 30, 45, 60]
FULL_NS = [10, 16, 20, 22, 24, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000]
QUICK_NS = [5, 10, 20]


@dataclass
class Sweep:
    label: str
    best_n: int | None = None
    best_s: float | None = None
    failed_at: int | None = None
    reason: str = ""
    largest_block: int = 0
    solver_calls: int = 0
    log: list[tuple[int, str, float]] = field(default_factory=list)


def seeds_for(n: int, count: int) -> list[int]:
    return [10_000 + 100 * n + i for i in range(count)]


def sweep(
    label: str,
    method: str,
    opts: dict[str, Any],
    ns: list[int],
    limit_s: float,
    count: int,
    family: str = "default",
) -> Sweep:
    """Grow n until the method fails to prove an instance optimal within `limit_s`."""
    out = Sweep(label)
    for n in ns:
        worst, block, calls = 0.0, 0, 0
        for seed in seeds_for(n, count):
            inst = generate(n, seed, family=family)
            t0 = time.perf_counter()
            try:
                r = solve(
                    SojournProblem(inst, Objective("B")),
                    method,
                    time_limit=limit_s,
                    seed=0,
                    options=opts,
                )
                status = r.status
                block = max(block, int(r.stats.get("largest_block", 0)))
                calls = max(calls, int(r.stats.get("solver_calls", 0)))
            except InvalidInput as exc:
                out.failed_at, out.reason = n, f"refused: {str(exc)[:60]}"
                return out
            took = time.perf_counter() - t0
            worst = max(worst, took)
            print(
                f"  {family:7s} {label:26s} n={n:5d} seed={seed} {status.value:9s} {took:7.2f} s "
                f"block {r.stats.get('largest_block')} calls {r.stats.get('solver_calls')}",
                flush=True,
            )
            out.log.append((n, status.value, took))
            if status is not Status.OPTIMAL or took > limit_s:
                out.failed_at = n
                out.reason = f"{status.value} after {took:.1f} s (seed {seed})"
                return out
        out.best_n, out.best_s = n, worst
        out.largest_block, out.solver_calls = block, calls  # at the largest n proven
    out.reason = "ladder exhausted"
    return out


COMPONENT_NS = [10, 20, 50, 100, 200, 300]


def component_sizes(ns: list[int], seeds: int = 10) -> list[list[Any]]:
    """Rows (family, n, min / median / max largest preference block over `seeds` instances
    generate(n, s), s < seeds, as a share of n, and the share of single-job blocks)."""
    import numpy as np

    from schedlab.solvers.sojourn.batch import linear_ordering_weights
    from schedlab.solvers.sojourn.lop import preference_blocks

    rows = []
    for family in ("default", "cyclic"):
        for n in ns:
            largest, singles = [], []
            for s in range(seeds):
                _, W = linear_ordering_weights(generate(n, s, family=family), Objective("B"))
                blocks = preference_blocks(W)
                largest.append(max(len(b) for b in blocks) / n)
                singles.append(sum(len(b) == 1 for b in blocks) / n)
            rows.append([family, n, min(largest), float(np.median(largest)), max(largest),
                         float(np.mean(singles))])  # fmt: skip
    return rows


def print_component_sizes(ns: list[int], seeds: int = 10) -> None:
    headers = ["family", "n", "largest block / n: min", "median", "max", "jobs in 1-job blocks"]
    print(format_table(headers, component_sizes(ns, seeds)), flush=True)


@register_benchmark("bench_exact")
def run(quick: bool = False) -> None:
    """Print, per family and exact method, the largest n proven optimal for B within the limit."""
    limit_s, count = (5.0, 1) if quick else (60.0, 2)
    ladders = {
        "default": (QUICK_NS if quick else FULL_NS, METHODS),
        "cyclic": (QUICK_CYCLIC_NS if quick else CYCLIC_NS, CYCLIC_METHODS),
    }
    print(
        f"objective B, instances generate(n, 10000 + 100 n + i, family=F), i < {count}; limit "
        f"{limit_s:g} s per solve; {os.cpu_count()} cpus, load average {os.getloadavg()} "
        "(the machine may be shared)",
        flush=True,
    )
    print("largest preference block (strong component) of B, 10 seeds per n:", flush=True)
    print_component_sizes(COMPONENT_NS[:3] if quick else COMPONENT_NS)
    rows = []
    for family, (ns, methods) in ladders.items():
        print(f"family {family}: n ladder {ns}", flush=True)
        for label, m, o in methods:
            r = sweep(label, m, o, ns, limit_s, count, family)
            status = "optimal" if r.best_n else "-"
            rows.append([family, r.label, r.best_n, r.largest_block, r.solver_calls, r.best_s,
                         status, r.failed_at or "-", r.reason])  # fmt: skip
    headers = ["family", "method", "largest n proven", "largest component", "solver calls",
               "worst s at that n", "status", "failed at n", "why"]  # fmt: skip
    print(format_table(headers, rows), flush=True)
