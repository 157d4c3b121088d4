"""SLAQ's instance family for the gap study (`schedlab gap slaq`, figure `slaq-gap`).

Seeded snapshots of `generate_snapshot` (job i follows shipped loss curve i mod 9, a random
prefix of it observed; W_j log-uniform in [1, 20] core-seconds per iteration) with
`CORES_PER_JOB` cores per job, for both objectives: "sum" (the summed predicted quality gain,
SLAQ's) and "maxmin" (the smallest gain). Every registered heuristic (greedy, maxmin, fair,
...) against the optimum of the exact DP over (job, free cores) (`dp`, the oracle), checked
against the MILP on the smaller sizes. Gaps of "sum" are relative to the optimum; those of
"maxmin" are absolute (in normalized quality units: its optimum is often within 1e-5 of zero
or negative, where a relative gap says nothing).
"""

from __future__ import annotations

from schedlab.experiments.gap.spec import Rung, register_gap
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.generate import generate_snapshot

CORES_PER_JOB = 4
CROSSCHECK_MAX_JOBS = 16  # the MILP is checked against the DP up to this many jobs
#: per size: (jobs per rung, snapshots per rung, exact time limit s)
SIZES = {
    "tiny": ([4, 8], 3, 30.0),
    "small": ([4, 8, 16, 32], 10, 60.0),
    "full": ([4, 8, 16, 32, 64, 128], 30, 60.0),
}


def snapshot_seed(seed: int, rung: Rung, i: int) -> int:
    """seed x 10^6 + jobs x 10^3 + i (the same snapshot for both objectives)."""
    return seed * 1_000_000 + int(rung.params["jobs"]) * 1_000 + i


@register_gap(
    "slaq",
    "default",
    generator=generate_snapshot,
    sense="max",
    seed_rule=snapshot_seed,
    summary=f"heuristics vs the exact allocation (shipped curves, {CORES_PER_JOB} cores per job)",
)
def ladder(size: str) -> list[Rung]:
    if size not in SIZES:
        raise InvalidInput(f"size: choose one of {', '.join(SIZES)} (got {size!r})")
    jobs, count, limit = SIZES[size]
    return [
        Rung(
            f"objective {objective}",
            n,
            f"{n} jobs",
            objective,
            {"jobs": n, "cores": CORES_PER_JOB * n, "objective": objective},
            count,
            ("dp", "milp") if n <= CROSSCHECK_MAX_JOBS else ("dp",),
            limit,
            "relative" if objective == "sum" else "absolute",
        )
        for objective in ("sum", "maxmin")
        for n in jobs
    ]
