"""Synergy's instance family for the gap study (`schedlab gap synergy`, figure `synergy-gap`).

Seeded round snapshots (`generate_snapshot`: default servers of 8 GPUs, 24 CPUs, 500 GB; more
runnable jobs than GPUs) for two model mixes; every registered allocator (heuristics: tag
"heuristic"); the optimum is the exact MILP (HiGHS in process, run set "proportional": exactly
the jobs GPU-proportional runs, none below its proportional throughput) under a time limit.
Gap = (optimum - value) / optimum of the total throughput. Proportional, TUNE and rounded OPT
lie in the exact problem's feasible set, so their gap is >= 0; GREEDY does not (it may skip some
of those jobs and run others), so its gap may be negative; the column
`in_exact_feasible_set` says which.
"""

from __future__ import annotations

from typing import Any

from schedlab.experiments.gap.spec import Rung, register_gap
from schedlab.experiments.ladder import pick
from schedlab.solvers.synergy.generate import generate_snapshot

MIXES: dict[str, tuple[float, float, float]] = {
    "default": (0.2, 0.7, 0.1),  # the Synergy simulator's image/language/speech mix
    "image-heavy": (0.6, 0.2, 0.2),
}
#: per size: (servers, runnable jobs, GPU mix) per rung, snapshots per rung, MILP limit (s)
SIZES: dict[str, dict[str, Any]] = {
    "tiny": {"sizes": [(2, 24, "single"), (2, 12, "multi")], "count": 2, "time_limit_s": 10.0},
    "small": {
        "sizes": [(2, 24, "single"), (4, 48, "single"), (4, 30, "multi")],
        "count": 4,
        "time_limit_s": 20.0,
    },
    "full": {
        "sizes": [
            (4, 48, "single"),
            (8, 96, "single"),
            (16, 128, "single"),
            (16, 200, "single"),
            (8, 60, "multi"),
            (16, 128, "multi"),
        ],
        "count": 5,
        "time_limit_s": 120.0,
    },
}


def snapshot_seed(seed: int, rung: Rung, i: int) -> int:
    """seed x 10^6 + servers x 10^4 + jobs x 10 + i (as the figure has always drawn them)."""
    p = rung.params
    return seed * 1_000_000 + int(p["servers"]) * 10_000 + int(p["jobs"]) * 10 + i


def size_label(servers: int, jobs: int, gpu_mix: str) -> str:
    return f"{servers}x{jobs}{'' if gpu_mix == 'single' else ' multi-GPU'}"


def extras(row: dict[str, Any]) -> dict[str, Any]:
    """Whether a heuristic's allocation lies in the exact problem's feasible set; the MILP's
    relaxation bound."""
    s = row["stats"]
    return {
        "in_exact_feasible_set": s.get("in_exact_feasible_set"),
        "relaxation_bound": s.get("relaxation_bound"),
    }


@register_gap(
    "synergy",
    "default",
    generator=generate_snapshot,
    sense="max",
    seed_rule=snapshot_seed,
    exact_options={"milp": {"solver": "highs"}},
    extras=extras,
    summary="allocators vs the exact per-round optimum (seeded snapshots, two model mixes)",
)
def ladder(size: str) -> list[Rung]:
    """Per model mix, the sizes of `SIZES[size]` (x: runnable jobs)."""
    cfg = pick(size, SIZES)
    return [
        Rung(
            f"mix {mix}, {'1-GPU' if gpu_mix == 'single' else 'multi-GPU'} jobs",
            jobs,
            size_label(servers, jobs, gpu_mix),
            "throughput",
            {"servers": servers, "jobs": jobs, "gpu_mix": gpu_mix, "task_mix": list(MIXES[mix])},
            cfg["count"],
            ("milp",),
            cfg["time_limit_s"],
        )
        for mix in MIXES
        for servers, jobs, gpu_mix in cfg["sizes"]
    ]
