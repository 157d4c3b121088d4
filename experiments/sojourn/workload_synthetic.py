"""Seeded synthetic workloads: random checkpoint distributions and Poisson arrivals at a load.

Per job (the same law as `schedlab.solvers.sojourn.generate.generate`, vectorized): c ~ U{0..C}
checkpoints; success size m log-uniform on [min_size, max_size]; checkpoint sizes m times c
sorted U(0.05, 0.95) draws; probabilities over the c + 1 outcomes ~ Dirichlet(1, ..., 1).
GPU counts: 1 for every job, or the Philly mix (1: 93.2%, 2: 2.2%, 4: 2.3%, 8: 2.0%,
16: 0.24%) restricted to counts <= servers and renormalized.
Arrivals: Poisson with rate lambda = load * servers / mean_i(g_i E[X_i]), so the offered load
lambda E[gX] / m equals `load` for the drawn jobs (= lambda E[X] E[g] / m, g independent of X).
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.sojourn.workload_model import Workload
from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.sojourn.indices import Padded

PHILLY_GPU_MIX: dict[int, float] = {1: 0.932, 2: 0.022, 4: 0.023, 8: 0.020, 16: 0.0024}
GPU_MIXES = ("one", "philly")


def random_distributions(
    n: int,
    rng: np.random.Generator,
    *,
    max_checkpoints: int = 3,
    min_size: float = 1.0,
    max_size: float = 100.0,
) -> Padded:
    """n random checkpoint distributions (see the module docstring), as padded arrays."""
    C = max_checkpoints
    c = rng.integers(0, C + 1, size=n)
    m = np.exp(rng.uniform(np.log(min_size), np.log(max_size), size=n))
    col = np.arange(C)[None, :]
    fr = np.where(col < c[:, None], rng.uniform(0.05, 0.95, size=(n, C)), np.inf)
    fr = np.sort(fr, axis=1)
    sizes = np.empty((n, C + 1))
    sizes[:, :C] = np.where(np.isfinite(fr), fr * m[:, None], m[:, None])
    sizes[:, C] = m
    # the success size sits at column c: move it there (columns > c repeat it)
    full = np.arange(C + 1)[None, :]
    sizes = np.where(full >= c[:, None], m[:, None], sizes)
    w = np.where(full <= c[:, None], rng.exponential(1.0, size=(n, C + 1)), 0.0)
    probs = w / w.sum(axis=1, keepdims=True)
    # distinct sizes: fr*m < m always (fr < 0.95); ties between draws have probability 0
    return Padded(sizes, probs, (c + 1).astype(np.int64))


def gpu_counts(n: int, mix: str, servers: int, rng: np.random.Generator) -> np.ndarray:
    """GPU count per job: all 1 ('one') or the Philly mix restricted to <= servers."""
    if mix == "one":
        return np.ones(n, dtype=np.int64)
    if mix != "philly":
        raise InvalidInput(f"gpu_mix: unknown {mix!r}; choose one of {', '.join(GPU_MIXES)}")
    g = np.array([k for k in PHILLY_GPU_MIX if k <= servers], dtype=np.int64)
    p = np.array([PHILLY_GPU_MIX[int(k)] for k in g])
    return rng.choice(g, size=n, p=p / p.sum())


def poisson_arrivals(n: int, rate: float, rng: np.random.Generator) -> np.ndarray:
    """n Poisson arrival times at `rate` per second, the first at time 0."""
    if not rate > 0:
        raise InvalidInput(f"rate: must be positive (got {rate})")
    gaps = rng.exponential(1.0 / rate, size=n)
    gaps[0] = 0.0
    return np.cumsum(gaps)


#: Loads the door accepts: below MIN_LOAD arrival times overflow, above MAX_LOAD nothing is
#: measured but queues.
MIN_LOAD = 1e-6
MAX_LOAD = 100.0


def synthetic_workload(
    n: int,
    load: float,
    servers: int,
    rng: np.random.Generator,
    *,
    max_checkpoints: int = 3,
    gpu_mix: str = "one",
) -> Workload:
    """n jobs with random distributions arriving as a Poisson process at the target load."""
    p = Problems()
    if n < 1:
        p.add(f"jobs: must be at least 1 (got {n})")
    if servers < 1:
        p.add(f"servers: must be at least 1 (got {servers})")
    if not MIN_LOAD <= load <= MAX_LOAD:
        p.add(f"load: must lie in [{MIN_LOAD:g}, {MAX_LOAD:g}] (got {load})")
    if max_checkpoints < 0:
        p.add(f"max_checkpoints: must be >= 0 (got {max_checkpoints})")
    p.raise_if_any()
    dists = random_distributions(n, rng, max_checkpoints=max_checkpoints)
    g = gpu_counts(n, gpu_mix, servers, rng)
    work = float(np.mean(g * dists.mean))
    rate = load * servers / work
    arr = poisson_arrivals(n, rate, rng)
    meta = {"generator": "synthetic", "rate_per_s": rate, "gpu_mix": gpu_mix, "load": load}
    return Workload(arr, g, dists, name=f"synthetic-n{n}", meta=meta)
