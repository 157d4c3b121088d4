"""Seeded SLAQ allocation snapshots drawn from the shipped loss curves.

Job i follows shipped curve i mod 9, scaled by a factor log-uniform in [1/2, 2] (the loss units
differ between algorithms), observed up to a prefix of 1 to 60 iterations (a prefix of one
point is a new job); its cost W_j is log-uniform in [w_min, w_max] core-seconds per iteration.
Same seed, same snapshot.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.curves import shipped_curve, shipped_names
from schedlab.solvers.slaq.problem import MAX_CORES, MAX_JOBS, MAX_LOSSES, Job, Snapshot
from schedlab.solvers.validate import MAX_MAGNITUDE, check_seed


def generate_snapshot(
    jobs: int,
    cores: int,
    seed: int,
    *,
    objective: str = "sum",
    max_prefix: int = 60,
    w_min: float = 1.0,
    w_max: float = 20.0,
) -> Snapshot:
    """A seeded snapshot of `jobs` jobs on `cores` cores (see the module docstring)."""
    problems = []
    if not 1 <= jobs <= MAX_JOBS:
        problems.append(f"jobs: must be 1..{MAX_JOBS} (got {jobs})")
    if not 1 <= cores <= MAX_CORES:
        problems.append(f"cores: must be 1..{MAX_CORES} (got {cores})")
    if not 0 < w_min <= w_max <= MAX_MAGNITUDE:
        problems.append(f"w_min, w_max: need 0 < w_min <= w_max <= 1e12 (got {w_min}, {w_max})")
    if not 1 <= max_prefix <= MAX_LOSSES:
        problems.append(f"max_prefix: must be 1..{MAX_LOSSES} (got {max_prefix})")
    check_seed(seed, allow_none=False)
    if problems:
        raise InvalidInput(problems)
    rng = np.random.default_rng(seed)
    names = shipped_names()
    out = []
    for i in range(jobs):
        curve = shipped_curve(names[i % len(names)])
        scale = math.exp(rng.uniform(-math.log(2), math.log(2)))
        prefix = int(rng.integers(1, min(max_prefix, len(curve)) + 1))
        w = math.exp(rng.uniform(math.log(w_min), math.log(w_max)))
        losses = tuple(float(x) for x in curve[:prefix] * scale)
        out.append(Job(f"j{i}", losses, round(w, 6)))
    return Snapshot(
        tuple(out),
        cores,
        objective=objective,
        meta={"generator": "schedlab.solvers.slaq.snapshots.generate_snapshot", "seed": seed},
    )
