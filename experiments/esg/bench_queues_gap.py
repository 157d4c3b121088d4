"""What ESG's per-queue A* + dispatch loses against the joint many-queue optimum.

`python -m schedlab.experiments.bench bench_queues_gap [--quick]` (also `make bench`) prints one
row per size: random queue snapshots (`random_queues`, 8 vCPUs and one GPU per invoker), the
joint optimum by `q_milp` (checked against `q_cpsat`), and `q_esg`: hits lost in total,
instances where ESG is optimal, and the mean cost gap (%) over the instances where ESG has the
optimal hit count. 10 snapshots per size, seed 0 (`--quick`: 2 per size, the three smallest).
The cells are the shared gap study's (family "queues" of `experiments/esg/gapspec.py`), run
here in this process in a fresh folder (nothing cached).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedlab.experiments.esg.gapspec import QUEUE_SIZES as SIZES
from schedlab.experiments.registry import register_benchmark


def gap_rows(
    reps: int, seed: int, sizes: Sequence[tuple[int, int, int, int]] = SIZES
) -> list[list[Any]]:
    """One row per (queues, stages, configs, invokers) of `sizes`, over `reps` snapshots each."""
    from schedlab.experiments.esg.gapspec import queue_rungs
    from schedlab.experiments.gap.study import run_study

    rungs = queue_rungs(list(sizes), reps)
    with tempfile.TemporaryDirectory() as tmp:
        study = run_study("esg", "queues", "", seed, Path(tmp), rungs=rungs)
    rows = []
    for rung in rungs:
        by: dict[int, dict[str, Any]] = {}
        for r in study.rows:
            if r["rung"] == rung.label:
                by.setdefault(r["i"], {})[r["method"]] = r
        agree = opt_esg = lost = hits = 0
        gaps = []
        for cells in by.values():
            exact, cp, h = cells["q_milp"], cells["q_cpsat"], cells["q_esg"]
            assert exact["value"] is not None and cp["value"] is not None
            agree += math.isclose(exact["value"], cp["value"], rel_tol=1e-9)
            hits += exact["hits"]
            lost += exact["hits"] - h["hits"]
            opt_esg += h["value"] is not None and math.isclose(
                h["value"], exact["value"], rel_tol=1e-9
            )
            if h["hits"] == exact["hits"] and exact["cost"] > 0:
                gaps.append(100.0 * (h["cost"] / exact["cost"] - 1.0))
        mean_gap = f"{sum(gaps) / len(gaps):.2f}" if gaps else "-"
        p = rung.params
        rows.append(
            [
                p["n_queues"],
                p["stages"],
                p["configs"],
                p["invokers"],
                reps,
                agree,
                hits,
                lost,
                opt_esg,
                mean_gap,
            ]
        )
    return rows


@register_benchmark("bench_queues_gap")
def run(quick: bool) -> None:
    from schedlab.experiments.output import format_table

    sizes = SIZES[:3] if quick else SIZES
    head = [
        "queues",
        "stages",
        "configs",
        "invokers",
        "cases",
        "milp=cpsat",
        "opt_hits",
        "esg_hits_lost",
        "esg_optimal",
        "esg_cost_gap_%",
    ]
    print(format_table(head, gap_rows(2 if quick else 10, 0, sizes)))
