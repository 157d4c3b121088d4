"""Seeded sojourn instances: the default random family and the cyclic (hard) family."""

from __future__ import annotations

from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.sojourn.problem import MAX_JOBS, MAX_OUTCOMES, Instance, SojournProblem
from schedlab.solvers.validate import MAX_MAGNITUDE, check_alloc

FAMILIES = ("default", "cyclic")
CYCLIC_EXPECTED_SUCCESSES = 2.0  # E[N] of the cyclic family (few successes: G spreads on [0, 1])
CYCLIC_SIZES = (50.0, 100.0)  # success sizes of the cyclic family, log-uniform on this range
CYCLIC_PI_MAX = 0.45  # cap on pi: keeps the checkpoint below the success size (see below)


def generate(
    n: int,
    seed: int,
    *,
    max_checkpoints: int = 3,
    min_size: float = 1.0,
    max_size: float = 100.0,
    family: str = "default",
) -> Instance:
    """Random instance from a documented distribution (same seed, same instance).

    family "default": per job, the number of checkpoints c ~ Uniform{0..max_checkpoints}; the
    success size m ~ log-uniform on [min_size, max_size]; checkpoint sizes are m times c
    distinct sorted draws from Uniform(0.05, 0.95); probabilities over the c+1 outcomes ~
    Dirichlet(1,...,1). family "cyclic": see `generate_cyclic` (the size options are ignored).
    """
    if family == "cyclic":
        return generate_cyclic(n, seed)
    if family != "default":
        raise InvalidInput(f"family: choose one of {', '.join(FAMILIES)} (got {family!r})")
    problems = Problems()
    if not 1 <= n <= MAX_JOBS:
        problems.add(f"n: must lie in 1..{MAX_JOBS} (got {n})")
    if not 0 <= max_checkpoints < MAX_OUTCOMES:
        problems.add(f"max_checkpoints: must lie in 0..{MAX_OUTCOMES - 1} (got {max_checkpoints})")
    if not 0 < min_size <= max_size <= MAX_MAGNITUDE:
        problems.add(f"min_size/max_size: need 0 < min_size <= max_size ({min_size}, {max_size})")
    problems.raise_if_any()
    # per outcome: a float in a list, its JSON text, a probability: about 100 bytes
    check_alloc(
        100.0 * n * (max_checkpoints + 1),
        f"generate: {n} jobs of up to {max_checkpoints + 1} outcomes",
    )
    rng = np.random.default_rng(seed)
    jobs = []
    for i in range(n):
        c = int(rng.integers(0, max_checkpoints + 1))
        m = float(np.exp(rng.uniform(np.log(min_size), np.log(max_size))))
        fr = np.sort(rng.uniform(0.05, 0.95, size=c))
        sizes = [float(f * m) for f in fr] + [m]
        probs = rng.dirichlet(np.ones(c + 1)).tolist()
        jobs.append({"id": f"j{i}", "sizes": sizes, "probs": probs})
    meta = {
        "generator": "schedlab.solvers.sojourn.generate.generate",
        "seed": seed,
        "max_checkpoints": max_checkpoints,
    }
    return Instance.from_dict({"jobs": jobs, "name": f"random-n{n}-s{seed}", "meta": meta})


def generate_problem(
    n: int, seed: int, *, objective: str = "B", k: int | None = None, **options: Any
) -> SojournProblem:
    """`generate(n, seed, **options)` under `objective` (K = `k` for TK and DK): a problem
    `solve` takes (the gap study's generator)."""
    from schedlab.solvers.sojourn.objectives import Objective

    return SojournProblem(generate(n, seed, **options), Objective(objective, k))


def pair_mean_u(pi: np.ndarray) -> np.ndarray:
    """M[a, b] = mean of u under the density prop. to prod_{l != a, b} g_l(u) on [0, 1].

    B prefers a before b iff a's index line e/pi + m u lies below b's at u = M[a, b]
    (theory/sojourn/cycles.py). Exact with ceil(n/2)+1 Gauss-Legendre nodes (degree n-1).
    """
    from schedlab.solvers.kernels.quadrature import gauss_legendre_unit

    n = len(pi)
    u, w = gauss_legendre_unit((n + 1) // 2 + 1)
    g = 1.0 - pi[None, :] + pi[None, :] * u[:, None]
    G = np.prod(g, axis=1)
    inv = 1.0 / g
    Z = inv.T @ ((w * G)[:, None] * inv)
    U = inv.T @ ((w * G * u)[:, None] * inv)
    return U / Z


def generate_cyclic(n: int, seed: int) -> Instance:
    """An instance whose B preferences form one large strong component (hard for exact B).

    Per job: one checkpoint; pi ~ E_N/n * Uniform(0.5, 1.5) capped at 0.45 (E_N = 2 expected
    successes, so the weight G(u) spreads over [0, 1]); m ~ log-uniform on [50, 100]. All index
    lines e/pi + m u pass through one point (u0, 105 u0), u0 = the median over pairs of the
    pair means M[a, b] of `pair_mean_u`: B compares a and b at M[a, b], which differs from pair
    to pair, so each pair's order is decided by which side of u0 its own mean falls
    (theory/sojourn/cycles.py, claim 11). The checkpoint size is s = alpha pi / (1 - pi) with
    alpha = (105 - m) u0, which lies in (0, m) because m >= 50 and pi <= 0.45.
    """
    if n < 1:
        raise InvalidInput(f"n: must be at least 1 (got {n})")
    rng = np.random.default_rng(seed)
    lo, hi = CYCLIC_SIZES
    pi = np.minimum(rng.uniform(0.5, 1.5, n) * CYCLIC_EXPECTED_SUCCESSES / n, CYCLIC_PI_MAX)
    m = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    if n >= 2:
        M = pair_mean_u(pi)
        u0 = float(np.median(M[np.triu_indices(n, 1)]))
    else:
        u0 = 0.5
    alpha = (1.05 * hi - m) * u0
    s = alpha * pi / (1.0 - pi)
    jobs = [
        {"id": f"j{i}", "sizes": [float(s[i]), float(m[i])], "probs": [1.0 - pi[i], float(pi[i])]}
        for i in range(n)
    ]
    meta = {
        "generator": "schedlab.solvers.sojourn.generate.generate_cyclic",
        "family": "cyclic",
        "seed": seed,
        "u0": u0,
    }
    return Instance.from_dict({"jobs": jobs, "name": f"cyclic-n{n}-s{seed}", "meta": meta})
