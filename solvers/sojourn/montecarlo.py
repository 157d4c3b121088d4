"""Monte Carlo values of many orders of one instance on shared scenarios (kernel-backed).

Scenarios come from `outcomes.sample_outcomes` with `numpy.random.default_rng(seed)`, drawn in
chunks of `scenario_chunk` (same seed and chunk size, same scenarios); the kernel
`kernels.montecarlo.monte_carlo_scenarios` folds them per order.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.arith import KIND_CODES
from schedlab.solvers.kernels.montecarlo import BatchEstimate, monte_carlo_scenarios
from schedlab.solvers.kernels.orders import DEFAULT_CHUNK, OrderSource
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.outcomes import sample_outcomes
from schedlab.solvers.sojourn.problem import Instance

SCENARIO_CHUNK = 1 << 15


def scenarios(
    inst: Instance, samples: int, seed: int, chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Deterministic scenario chunks (X realized sizes, S success indicators)."""
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
    return monte_carlo_scenarios(
        KIND_CODES[objective.kind],
        objective.k or 0,
        inst.n,
        orders,
        lambda: scenarios(inst, samples, seed, scenario_chunk),
        samples,
        seed,
        backend=backend,
        chunk_size=chunk_size,
        check=check,
    )
