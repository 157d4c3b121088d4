"""Monte Carlo kernel: K orders on the same M sampled outcome scenarios (common random numbers).

The caller (a subject, e.g. `sojourn.montecarlo`) supplies the scenarios: a function that
returns a fresh iterator of (X, S) chunks, X[m, j] the realized size and S[m, j] the success
indicator of job j in scenario m, the same scenarios on every call. Every order sees the same
scenarios, so differences between orders have far smaller variance than the values
themselves. Per order the kernel keeps a running (count, mean, M2) (Welford within a kernel,
Chan's merge across chunks in numpy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.backends import get_backend
from schedlab.solvers.kernels.orders import (
    DEFAULT_CHUNK,
    OrderSource,
    iter_chunks,
    raise_for_bad_rows,
)

Scenarios = Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]]
_KEEP_CELLS = 1 << 24  # scenarios x jobs kept in memory across order chunks


@dataclass(frozen=True)
class BatchEstimate:
    """Per-order Monte Carlo means and standard errors (same scenarios for every order)."""

    mean: np.ndarray
    stderr: np.ndarray
    samples: int
    seed: int

    def ci(self, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Normal-approximation confidence intervals (low, high) per order."""
        z = NormalDist().inv_cdf(0.5 + confidence / 2)
        return self.mean - z * self.stderr, self.mean + z * self.stderr


def monte_carlo_scenarios(
    kind: int,
    k: int,
    n: int,
    orders: OrderSource,
    scenarios: Scenarios,
    samples: int,
    seed: int,
    *,
    backend: str = "auto",
    chunk_size: int = DEFAULT_CHUNK,
    check: bool = True,
) -> BatchEstimate:
    """Means and standard errors of K orders of n jobs on `samples` shared scenarios.

    `kind` is the objective code of `arith.KIND_CODES`, `k` its K (0 when unused);
    `scenarios()` yields the (X, S) chunks (the same on every call); `seed` is recorded.
    """
    if samples < 2:
        raise InvalidInput(f"samples: need at least 2 scenarios (got {samples})")
    be = get_backend(backend)
    keep = samples * n <= _KEEP_CELLS  # small enough: draw and upload the scenarios once
    kept: list[Any] | None = None
    means, errs = [], []
    for start, chunk in iter_chunks(orders, n, chunk_size):
        if check:
            raise_for_bad_rows(chunk, be.bad_rows(chunk, n), n, start)
        stats = np.zeros((len(chunk), 3))
        source: Iterator[Any]
        if kept is None:
            source = (be.prepare_scenarios(X, S) for X, S in scenarios())
        else:
            source = iter(kept)
        fresh = []
        for scen in source:
            be.mc(kind, k, chunk, scen, stats)
            if keep and kept is None:
                fresh.append(scen)
        if keep and kept is None:
            kept = fresh
        means.append(stats[:, 1].copy())
        errs.append(np.sqrt(stats[:, 2] / (samples - 1) / samples))
    return BatchEstimate(np.concatenate(means), np.concatenate(errs), samples, seed)
