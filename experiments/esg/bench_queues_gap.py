"""What ESG's per-queue A* + dispatch loses against the joint many-queue optimum.

`python -m schedlab.experiments.bench bench_queues_gap [--quick]` (also `make bench`) prints one
row per size: random queue snapshots (`random_queues`, 8 vCPUs and one GPU per invoker), the
joint optimum by `q_milp` (checked against `q_cpsat`), and `q_esg`: hits lost in total,
instances where ESG is optimal, and the mean cost gap (%) over the instances where ESG has the
optimal hit count. 10 snapshots per size, seed 0 (`--quick`: 2 per size, the three smallest).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from schedlab.experiments.registry import register_benchmark

SIZES = [(3, 2, 8, 1), (4, 2, 10, 2), (4, 3, 10, 2), (6, 3, 20, 2), (8, 3, 20, 3)]


def gap_rows(
    reps: int, seed: int, sizes: Sequence[tuple[int, int, int, int]] = SIZES
) -> list[list[Any]]:
    """One row per (queues, stages, configs, invokers) of `sizes`, over `reps` snapshots each."""
    from schedlab.solvers.esg.problem_queues import random_queues
    from schedlab.solvers.solve import solve

    rows = []
    for nq, st, cf, inv in sizes:
        agree = opt_esg = lost = hits = 0
        gaps = []
        for r in range(reps):
            p = random_queues(nq, st, cf, inv, seed + 1000 * nq + 100 * st + r)
            exact = solve(p, "q_milp", time_limit=60.0)
            cp = solve(p, "q_cpsat", time_limit=60.0)
            assert exact.value is not None and cp.value is not None
            agree += math.isclose(exact.value, cp.value, rel_tol=1e-9)
            h = solve(p, "q_esg")
            hits += exact.stats["hits"]
            lost += exact.stats["hits"] - h.stats["hits"]
            opt_esg += h.value is not None and math.isclose(h.value, exact.value, rel_tol=1e-9)
            if h.stats["hits"] == exact.stats["hits"] and exact.stats["cost"] > 0:
                gaps.append(100.0 * (h.stats["cost"] / exact.stats["cost"] - 1.0))
        mean_gap = f"{sum(gaps) / len(gaps):.2f}" if gaps else "-"
        rows.append([nq, st, cf, inv, reps, agree, hits, lost, opt_esg, mean_gap])
    return rows


@register_benchmark("bench_queues_gap")
def run(quick: bool) -> None:
    from schedlab.experiments.output import format_table

    sizes = SIZES[:3] if quick else SIZES
    head = ["queues", "stages", "configs", "invokers", "cases", "milp=cpsat", "opt_hits",
            "esg_hits_lost", "esg_optimal", "esg_cost_gap_%"]  # fmt: skip
    print(format_table(head, gap_rows(2 if quick else 10, 0, sizes)))
