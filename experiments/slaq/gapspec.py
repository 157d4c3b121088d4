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

import numpy as np

from schedlab.experiments.gap.spec import Rung, register_gap
from schedlab.experiments.ladder import pick
from schedlab.solvers.slaq.generate import generate_snapshot
from schedlab.solvers.slaq.problem import Job, Snapshot

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
    jobs, count, limit = pick(size, SIZES)
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


def flat_start_snapshot(jobs: int, cores: int, seed: int) -> Snapshot:
    """`jobs` jobs on `cores` cores (min_cores 1), even ones flat-start inverse-poly with W set
    so that one epoch's free cores run them past their inflection point, odd ones steady
    exponential (as claim 10's search draws them, with the job and core counts fixed)."""
    from schedlab.theory.slaq.claim_greedy import W_RANGE, flat_start_curve

    rng = np.random.default_rng(seed)
    free = cores - jobs
    out = []
    for j in range(jobs):
        if j % 2 == 0:
            losses, p = flat_start_curve(rng)
            k_star = float(np.sqrt(p["c"] / (3 * p["a"])))
            span = max(k_star - len(losses), 2.0) * float(rng.uniform(0.5, 3.0))
            w = float(np.clip(3.0 * free / span, *W_RANGE))
        else:
            k = np.arange(1, int(rng.integers(5, 30)), dtype=float)
            losses = tuple((rng.uniform(0.8, 0.99) ** k + rng.uniform(0, 1)).tolist())
            w = float(np.exp(rng.uniform(np.log(0.5), np.log(20.0))))
        out.append(Job(f"j{j}", tuple(losses), w))
    return Snapshot(tuple(out), cores, model="inverse-poly", min_cores=1)


@register_gap(
    "slaq", "flat-start", generator=flat_start_snapshot, sense="max", seed_rule=snapshot_seed,
    summary="heuristics vs the exact allocation where the greedy can lose (flat-start fits)",
)  # fmt: skip
def flat_start_ladder(size: str) -> list[Rung]:
    jobs, count, limit = pick(size, SIZES)
    return [
        Rung("flat-start, objective sum", n, f"{n} jobs", "sum",
             {"jobs": n, "cores": CORES_PER_JOB * n}, count,
             ("dp", "milp") if n <= CROSSCHECK_MAX_JOBS else ("dp",), limit)
        for n in jobs
    ]  # fmt: skip
