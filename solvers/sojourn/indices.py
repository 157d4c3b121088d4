"""Index functions of a discrete size distribution at age a (for online, checkpoint policies).

A job has sizes s_1 < ... < s_k with probabilities p_1..p_k; s_k is success (pi = p_k), the
others are checkpoints where it is cancelled. At age a (service received so far, without
having left) the job's size is distributed as X given X > a: the sizes above a with their
probabilities renormalized by P(X > a). A job that reaches checkpoint s_l and is not cancelled
there has age a = s_l and X > s_l, so checkpoint ages condition strictly.

Indices (natural direction given for each):
- gamma(a) = pi / E[(X - a)^+] = P(success | X > a) / E[X - a | X > a]; higher first. It never
  decreases with age, and it is the Gittins index of the success-weighted problem (reward 1
  only at success: the only quantum that can earn it runs to the success size).
- Smith priority = gamma(0) = pi / E[X]; higher first (non-preemptive Smith's rule with weight pi).
- Gittins(a) = sup_D P(X - a <= D | X > a) / E[min(X - a, D) | X > a]; higher first. Every
  departure (success or cancellation) counts as done. With discrete sizes the sup is attained
  at D = s_j - a for a size s_j > a (between sizes the numerator is flat, the denominator
  grows), so only quanta ending at checkpoint levels are evaluated.
- SERPT(a) = E[X - a | X > a], the expected remaining size; lower first.
- Sevcik's rank(a) = inf_D E[min(X - a, D) | X > a] / P(X - a <= D | X > a) over the same
  quanta; lower first. It is the reciprocal of Gittins(a) (Sevcik 1974's smallest-rank rule).

Two APIs: scalar functions of one job at any age, and `level_table`, which evaluates every
index at every checkpoint level of many jobs at once (padded arrays, numpy, no Python loop
over jobs) for the simulator. Levels: level 0 is age 0, level l >= 1 is age s_l (the job
survived checkpoint l); job i has levels 0..k_i-1. Levels that cannot be reached (P(X > a)
= 0, only possible with zero probabilities) and padding are NaN in the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.solvers.errors import InvalidInput

INDEX_KINDS = ("gamma", "gittins", "serpt", "sevcik", "survival", "age")


@dataclass(frozen=True)
class Padded:
    """Many distributions as padded (n, K) arrays: sizes repeat the success size, probs 0."""

    sizes: np.ndarray  # (n, K)
    probs: np.ndarray  # (n, K)
    counts: np.ndarray  # (n,) number of real sizes k_i

    @property
    def n(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def width(self) -> int:
        return int(self.sizes.shape[1])

    @property
    def success_prob(self) -> np.ndarray:
        return self.probs[np.arange(self.n), self.counts - 1]

    @property
    def success_size(self) -> np.ndarray:
        return self.sizes[np.arange(self.n), self.counts - 1]

    @property
    def mean(self) -> np.ndarray:
        """E[X] per job (padding has probability 0)."""
        return np.einsum("ij,ij->i", self.sizes, self.probs)


def pad(dists: Sequence[tuple[Sequence[float], Sequence[float]]]) -> Padded:
    """Pack (sizes, probs) pairs into padded arrays (no validation beyond shapes)."""
    if len(dists) == 0:
        raise InvalidInput("distributions: need at least one (sizes, probs) pair")
    counts = np.array([len(s) for s, _ in dists], dtype=np.int64)
    width = int(counts.max())
    S = np.empty((len(dists), width))
    P = np.zeros((len(dists), width))
    for i, (s, p) in enumerate(dists):
        k = len(s)
        if k == 0 or len(p) != k:
            raise InvalidInput(f"distribution #{i}: sizes and probs need equal, nonzero lengths")
        S[i, :k] = s
        S[i, k:] = s[-1]
        P[i, :k] = p
    return Padded(S, P, counts)


def level_ages(d: Padded) -> np.ndarray:
    """Age at each level: 0 at level 0, s_l at level l (n, K)."""
    ages = np.zeros_like(d.sizes)
    ages[:, 1:] = d.sizes[:, :-1]
    return ages


def level_table(d: Padded) -> dict[str, np.ndarray]:
    """Every index at every checkpoint level, shape (n, K); NaN at padding/unreachable levels.

    Keys: gamma, gittins, serpt, sevcik, survival (P(X > age)), age.
    """
    S, P = d.sizes, d.probs
    n, K = S.shape
    a = level_ages(d)  # (n, K)
    col = np.arange(K)
    valid = col[None, :] < d.counts[:, None]
    # upper[l, j] = 1 if j >= l: sizes still possible at level l
    upper = (col[None, :] >= col[:, None]).astype(float)  # (K_l, K_j)
    T = P @ upper.T  # T[i, l] = sum_{j >= l} p_j = P(X > a_l)
    # D[i, l, j] = s_j - a_l for j >= l (sizes above the age), 0 otherwise
    D = (S[:, None, :] - a[:, :, None]) * upper[None, :, :]
    R = np.einsum("ilj,ij->il", D, P)  # E[(X - a_l)^+]
    pi = d.success_prob[:, None]
    reach = valid & (T > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        gamma = np.where(reach, pi / np.where(R > 0, R, 1.0), np.nan)
        serpt = np.where(reach, R / np.where(T > 0, T, 1.0), np.nan)
        # quantum ending at size s_j (j >= l): F = P(a_l < X <= s_j), E = E[min(X - a_l, D) 1{X>a}]
        Pu = P[:, None, :] * upper[None, :, :]  # (n, l, j) probabilities of sizes above age
        F = np.cumsum(Pu, axis=2)
        E = np.cumsum(Pu * D, axis=2) + (T[:, :, None] - F) * D
        ratio = np.where(upper[None, :, :] > 0, F / np.where(E > 0, E, 1.0), -np.inf)
        gittins = np.where(reach, ratio.max(axis=2), np.nan)
        sevcik = np.where(reach, 1.0 / gittins, np.nan)
    return {
        "gamma": gamma,
        "gittins": gittins,
        "serpt": serpt,
        "sevcik": sevcik,
        "survival": np.where(valid, T, np.nan),
        "age": np.where(valid, a, np.nan),
    }


# ---- scalar API: one job at any age ---------------------------------------------------------
def _arrays(sizes: Sequence[float], probs: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(sizes, dtype=float)
    p = np.asarray(probs, dtype=float)
    if s.ndim != 1 or s.shape != p.shape or s.size == 0:
        raise InvalidInput("sizes/probs: need two lists of the same nonzero length")
    if np.any(np.diff(s) <= 0) or s[0] <= 0:
        raise InvalidInput(f"sizes: must be positive and strictly increasing (got {s.tolist()})")
    if np.any(p < 0) or abs(p.sum() - 1.0) > 1e-9:
        raise InvalidInput(f"probs: must be non-negative and sum to 1 (got {p.tolist()})")
    return s, p


def conditional(
    sizes: Sequence[float], probs: Sequence[float], age: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Distribution of X given X > age: the sizes above `age` and renormalized probabilities.

    Raises InvalidInput when P(X > age) = 0 (the job would already have left).
    """
    s, p = _arrays(sizes, probs)
    if not age >= 0:
        raise InvalidInput(f"age: must be >= 0 (got {age})")
    keep = s > age
    mass = float(p[keep].sum())
    if mass <= 0:
        raise InvalidInput(
            f"age: P(X > {age}) = 0 for sizes {s.tolist()} and probs {p.tolist()}; "
            "no job of this distribution is still present at that age"
        )
    return s[keep], p[keep] / mass


def _single(sizes: Sequence[float], probs: Sequence[float], age: float) -> dict[str, float]:
    """Indices at an arbitrary age by shifting: the conditional job at age 0 minus `age`."""
    s, p = conditional(sizes, probs, age)
    d = pad([((s - age).tolist(), p.tolist())])
    t = level_table(d)
    return {k: float(v[0, 0]) for k, v in t.items() if k not in ("age", "survival")}


def gamma_index(sizes: Sequence[float], probs: Sequence[float], age: float = 0.0) -> float:
    """pi / E[(X - a)^+] (= P(success | X > a) / E[X - a | X > a]); higher first."""
    return _single(sizes, probs, age)["gamma"]


def smith_priority(sizes: Sequence[float], probs: Sequence[float]) -> float:
    """pi / E[X]; higher first. Equals gamma at age 0."""
    return gamma_index(sizes, probs, 0.0)


def gittins_index(sizes: Sequence[float], probs: Sequence[float], age: float = 0.0) -> float:
    """sup over quanta of P(done within D | X > a) / E[min(X - a, D) | X > a]; higher first."""
    return _single(sizes, probs, age)["gittins"]


def serpt(sizes: Sequence[float], probs: Sequence[float], age: float = 0.0) -> float:
    """E[X - a | X > a], the expected remaining size; lower first."""
    return _single(sizes, probs, age)["serpt"]


def sevcik_rank(sizes: Sequence[float], probs: Sequence[float], age: float = 0.0) -> float:
    """inf over quanta of E[min(X - a, D) | X > a] / P(done within D | X > a); lower first."""
    return _single(sizes, probs, age)["sevcik"]
