"""Monte Carlo kernel: K orders on the same M sampled outcome scenarios (common random numbers).

Scenarios come from `outcomes.sample_outcomes` with `numpy.random.default_rng(seed)`, drawn in
chunks of `scenario_chunk`; every order sees the same scenarios, so differences between orders
have far smaller variance than the values themselves. Per order the kernel keeps a running
(count, mean, M2) (Welford within a kernel, Chan's merge across chunks in numpy).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.arith import KIND_CODES
from schedlab.solvers.kernels.backends import get_backend
from schedlab.solvers.kernels.orders import (
    DEFAULT_CHUNK,
    OrderSource,
    iter_chunks,
    raise_for_bad_rows,
)
from schedlab.solvers.sojourn.instance import Instance
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.outcomes import sample_outcomes

SCENARIO_CHUNK = 1 << 15
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


def _scenarios(
    inst: Instance, samples: int, seed: int, chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Deterministic scenario chunks (same seed and chunk size, same scenarios)."""
    rng = np.random.default_rng(seed)
    for s in range(0, samples, chunk):
        X, S = sample_outcomes(inst, min(chunk, samples - s), rng)
        yield X, S


def monte_carlo_orders(
    inst: Instance,
    orders: OrderSource,
    objective: Objective,
    *,
    samples: int = 10_000,
    seed: int = 0,
    backend: str = "auto",
    chunk_size: int = DEFAULT_CHUNK,
    scenario_chunk: int = SCENARIO_CHUNK,
    check: bool = True,
) -> BatchEstimate:
    """Estimate the objective of K orders on `samples` shared scenarios (seeded)."""
    objective.check_for(inst)
    if samples < 2:
        raise InvalidInput(f"samples: need at least 2 scenarios (got {samples})")
    if scenario_chunk < 1:
        raise InvalidInput(f"scenario_chunk: must be positive (got {scenario_chunk})")
    be = get_backend(backend)
    kind = KIND_CODES[objective.kind]
    k = objective.k or 0
    keep = samples * inst.n <= _KEEP_CELLS  # small enough: draw and upload the scenarios once
    kept: list[Any] | None = None
    means, errs = [], []
    for start, chunk in iter_chunks(orders, inst.n, chunk_size):
        if check:
            raise_for_bad_rows(chunk, be.bad_rows(chunk, inst.n), inst.n, start)
        stats = np.zeros((len(chunk), 3))
        source: Iterator[Any]
        if kept is None:
            source = (
                be.prepare_scenarios(X, S)
                for X, S in _scenarios(inst, samples, seed, scenario_chunk)
            )
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
