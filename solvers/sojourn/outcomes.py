"""Objectives from realized outcomes: the enumeration oracle and a Monte Carlo estimate.

Both share `realized_values`, which evaluates orders on explicit outcome scenarios, and so are
independent of the closed forms in `objectives.py`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance, check_order
from schedlab.solvers.validate import check_alloc, check_seed

#: How `sojourn evaluate` values an order: the closed form (objectives.evaluate), every outcome
#: combination (`enumerate_value`), or a Monte Carlo estimate (`monte_carlo_value`).
Evaluation = Literal["closed", "enumerate", "montecarlo"]
EVALUATIONS: tuple[str, ...] = get_args(Evaluation)

MAX_OUTCOMES = 2_000_000


def realized_values(
    order: Sequence[int], X: np.ndarray, S: np.ndarray, objective: Objective
) -> np.ndarray:
    """Objective per scenario. X: (M, n) realized sizes; S: (M, n) success indicators (bool)."""
    o = list(order)
    Xo, So = X[:, o], S[:, o].astype(bool)
    C = np.cumsum(Xo, axis=1)
    if objective.kind == "A":
        return np.sum(np.where(So, C, 0.0), axis=1)
    if objective.kind == "B":
        N = So.sum(axis=1)
        tot = np.sum(np.where(So, C, 0.0), axis=1)
        return np.divide(tot, N, out=np.zeros_like(tot), where=N > 0)
    k = objective.k
    assert k is not None
    count = np.cumsum(So, axis=1)
    if objective.kind == "DK":
        return np.sum(np.where(So & (count <= k), C, 0.0), axis=1)
    # TK: completion time of the K-th success, else the makespan
    reached = count >= k
    first = np.argmax(reached, axis=1)
    has = reached.any(axis=1)
    return np.where(has, C[np.arange(len(C)), first], C[:, -1])


def enumerate_value(inst: Instance, order: Sequence[int], objective: Objective) -> float:
    """Exact value by enumerating every joint outcome (product of the jobs' supports)."""
    check_order(order, inst.n)
    objective.check_for(inst)
    total = 1
    for j in inst.jobs:  # stop multiplying past the limit: the product can have 10^5 digits
        total *= len(j.sizes)
        if total > MAX_OUTCOMES:
            raise InvalidInput(
                f"instance: more than {MAX_OUTCOMES} joint outcomes, the enumeration limit; "
                "use --how closed or --how montecarlo"
            )
    choices = list(itertools.product(*[range(len(j.sizes)) for j in inst.jobs]))
    idx = np.array(choices, dtype=np.int64).reshape(len(choices), inst.n)
    X = np.empty(idx.shape)
    P = np.ones(len(idx))
    S = np.empty(idx.shape, dtype=bool)
    for i, j in enumerate(inst.jobs):
        sizes, probs = np.array(j.sizes), np.array(j.probs)
        X[:, i] = sizes[idx[:, i]]
        P *= probs[idx[:, i]]
        S[:, i] = idx[:, i] == len(j.sizes) - 1
    return float(np.dot(P, realized_values(order, X, S, objective)))


def sample_outcomes(
    inst: Instance, samples: int, rng: np.random.Generator
) -> tuple[np.ndarray, ...]:
    """Draw `samples` joint outcomes: sizes X (M, n) and success indicators S (M, n)."""
    X = np.empty((samples, inst.n))
    S = np.empty((samples, inst.n), dtype=bool)
    for i, j in enumerate(inst.jobs):
        k = rng.choice(len(j.sizes), size=samples, p=np.array(j.probs) / sum(j.probs))
        X[:, i] = np.array(j.sizes)[k]
        S[:, i] = k == len(j.sizes) - 1
    return X, S


@dataclass(frozen=True)
class MonteCarloEstimate:
    """Sample mean with its standard error and a normal-approximation confidence interval."""

    mean: float
    stderr: float
    ci_low: float
    ci_high: float
    samples: int
    confidence: float

    def covers(self, x: float) -> bool:
        return self.ci_low <= x <= self.ci_high


def monte_carlo_value(
    inst: Instance,
    order: Sequence[int],
    objective: Objective,
    *,
    samples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> MonteCarloEstimate:
    """Seeded Monte Carlo estimate of the objective with a confidence interval."""
    check_order(order, inst.n)
    objective.check_for(inst)
    if samples < 2:
        raise InvalidInput(f"samples: need at least 2 (got {samples})")
    if not 0 < confidence < 1:
        raise InvalidInput(f"confidence: must lie in (0, 1) (got {confidence})")
    check_seed(seed)
    # X (float64), S (bool) and the realized values: about 10 bytes per sample and job, x3.
    check_alloc(30.0 * samples * inst.n, f"samples: {samples} samples of {inst.n} jobs")
    rng = np.random.default_rng(seed)
    X, S = sample_outcomes(inst, samples, rng)
    v = realized_values(order, X, S, objective)
    mean = float(v.mean())
    se = float(v.std(ddof=1) / math.sqrt(samples))
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    return MonteCarloEstimate(mean, se, mean - z * se, mean + z * se, samples, confidence)
