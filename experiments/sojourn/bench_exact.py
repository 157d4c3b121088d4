"""Benchmark: the largest n each exact method proves optimal for objective B within a limit.

For each method, n grows along a fixed ladder; at every n it must prove optimality on every
seeded instance generate(n, 10_000 + 100 n + i) within the limit (60 s; 5 s with quick), else the
method stops there. "plain" is the textbook model (every triangle inequality, no blocks);
"lazy" adds violated triangles round by round; "blocks" also splits the jobs into preference
blocks (proof in theory/sojourn_lop.py) before the lazy model. Run:
`python -m schedlab.experiments.bench bench_exact [--quick]`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import BENCHMARKS
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.instance import generate
from schedlab.solvers.sojourn.methods import solve
from schedlab.solvers.sojourn.objectives import Objective

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
]
FULL_NS = [10, 16, 20, 22, 24, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000]
QUICK_NS = [5, 10, 20]


@dataclass
class Sweep:
    label: str
    best_n: int | None = None
    best_s: float | None = None
    failed_at: int | None = None
    reason: str = ""
    log: list[tuple[int, str, float]] = field(default_factory=list)


def seeds_for(n: int, count: int) -> list[int]:
    return [10_000 + 100 * n + i for i in range(count)]


def sweep(
    label: str, method: str, opts: dict[str, Any], ns: list[int], limit_s: float, count: int
) -> Sweep:
    """Grow n until the method fails to prove an instance optimal within `limit_s`."""
    out = Sweep(label)
    for n in ns:
        worst = 0.0
        for seed in seeds_for(n, count):
            inst = generate(n, seed)
            t0 = time.perf_counter()
            try:
                r = solve(inst, Objective("B"), method, time_limit=limit_s, seed=0, **opts)
                status = r.status
            except InvalidInput as exc:
                out.failed_at, out.reason = n, f"refused: {str(exc)[:60]}"
                return out
            took = time.perf_counter() - t0
            worst = max(worst, took)
            print(f"  {label:26s} n={n:5d} seed={seed} {status.value:9s} {took:7.2f} s", flush=True)
            out.log.append((n, status.value, took))
            if status is not Status.OPTIMAL or took > limit_s:
                out.failed_at = n
                out.reason = f"{status.value} after {took:.1f} s (seed {seed})"
                return out
        out.best_n, out.best_s = n, worst
    out.reason = "ladder exhausted"
    return out


@BENCHMARKS.register("bench_exact")
def run(quick: bool = False) -> None:
    """Print, per exact method, the largest n proven optimal for B within the limit."""
    ns, limit_s, count = (QUICK_NS, 5.0, 1) if quick else (FULL_NS, 60.0, 2)
    print(
        f"objective B, instances generate(n, 10000 + 100 n + i), i < {count}; limit {limit_s:g} s"
        f" per solve; n ladder {ns}",
        flush=True,
    )
    results = [sweep(label, m, o, ns, limit_s, count) for label, m, o in METHODS]
    rows = [
        [r.label, r.best_n, r.best_s, r.failed_at if r.failed_at else "-", r.reason]
        for r in results
    ]
    print(
        format_table(
            ["method", "largest n proven", "worst s at that n", "failed at n", "why"], rows
        ),
        flush=True,
    )
