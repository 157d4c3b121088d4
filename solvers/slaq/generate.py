"""Seeded SLAQ snapshots: from the shipped loss curves (the CLI's), and synthetic ones.

`generate_snapshot`: job i follows shipped curve i mod 9, scaled by a factor log-uniform in
[1/2, 2] (the loss units differ between algorithms), observed up to a prefix of 1 to 60
iterations (a prefix of one point is a new job); its cost W_j is log-uniform in [w_min, w_max]
core-seconds per iteration. `random_snapshot` and `random_concave_tables` (tests, claim checks,
benchmarks): synthetic loss curves from the two families with random parameters, or prefixes of
the shipped curves; W_j log-uniform in [0.5, 8]. Same seed, same snapshot.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.curves import shipped_curve, shipped_names
from schedlab.solvers.slaq.limits import MAX_CORES, MAX_JOBS, MAX_LOSSES
from schedlab.solvers.slaq.problem import Job, Snapshot
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
        meta={"generator": "schedlab.solvers.slaq.generate.generate_snapshot", "seed": seed},
    )


def synthetic_curve(rng: np.random.Generator, length: int, family: str) -> np.ndarray:
    """A loss curve of `family` (inverse-poly or exponential) with random parameters."""
    k = np.arange(1, length + 1, dtype=float)
    if family == "inverse-poly":
        a, b, c = rng.uniform(0, 0.05), rng.uniform(0, 1.0), rng.uniform(0.2, 3.0)
        return 1.0 / (a * k * k + b * k + c) + rng.uniform(0, 1.0)
    a, b, c = rng.uniform(0.7, 0.98), rng.uniform(-5, 5), rng.uniform(0, 1.0)
    return a ** (k - b) + c


def random_snapshot(
    n_jobs: int,
    total_cores: int,
    seed: int,
    *,
    objective: str = "sum",
    model: str = "auto",
    source: str = "mixed",
    noise: float = 0.0,
    min_cores: int = 3,
) -> Snapshot:
    """n_jobs jobs with 5..60 loss points (source: mixed, shipped, inverse-poly, exponential)."""
    rng = np.random.default_rng(seed)
    names = shipped_names()
    jobs = []
    for j in range(n_jobs):
        length = int(rng.integers(5, 61))
        kind = source if source != "mixed" else str(rng.choice(["shipped", *FAMS]))
        if kind == "shipped":
            curve = shipped_curve(names[int(rng.integers(len(names)))])[:length]
        else:
            curve = synthetic_curve(rng, length, kind)
        if noise:
            curve = curve * (1 + noise * rng.standard_normal(len(curve)))
        w = float(np.exp(rng.uniform(np.log(0.5), np.log(8.0))))
        jobs.append(Job(f"j{j}", tuple(float(x) for x in curve), w))
    return Snapshot(tuple(jobs), total_cores, objective=objective, model=model, min_cores=min_cores)


def random_concave_tables(
    rng: np.random.Generator, n: int, free: int, *, ties: bool = False
) -> list[np.ndarray]:
    """n concave, non-decreasing tables Q(0..free) with Q(0) = 0 (non-increasing gains)."""
    out = []
    for _ in range(n):
        gains = np.sort(rng.exponential(1.0, free))[::-1]
        if ties:
            gains = np.round(gains, 1)
        out.append(np.concatenate([[0.0], np.cumsum(gains)]))
    return out


FAMS = ("inverse-poly", "exponential")
