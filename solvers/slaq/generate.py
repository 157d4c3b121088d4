"""Seeded random SLAQ snapshots and quality tables (tests, claim checks, benchmarks).

Synthetic loss curves come from the two families with random parameters, or are prefixes of
the shipped curves; W_j (core-seconds per iteration) is log-uniform in [0.5, 8].
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.slaq.curves import shipped_curve, shipped_names
from schedlab.solvers.slaq.problem import Job, Snapshot


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
