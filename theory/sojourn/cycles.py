"""When B's pairwise preference depends on the rest of the instance, and when three jobs cycle.

Notation (design.md section 2): g_l(u) = 1 - pi_l + pi_l u, G = prod g_l, h_l = e_l + m_l pi_l u,
W[j, i] = pi_i int_0^1 G h_j / (g_i g_j) du, and the index line idx_l(u) = h_l / pi_l
= e_l / pi_l + m_l u. Write R_ab = G / (g_a g_b) = prod_{l != a, b} g_l (a polynomial that does
not involve a or b), Z_ab = int R_ab and M_ab = int u R_ab / Z_ab in (0, 1).

Identity (checked with sympy in `sympy_identity`). W[b, a] - W[a, b]
  = int R_ab (pi_a h_b - pi_b h_a) du = pi_a pi_b int R_ab (idx_b - idx_a) du
  = pi_a pi_b Z_ab (idx_b(M_ab) - idx_a(M_ab)),
the last step because idx is linear in u. Hence:

Claim 11 (rule). B prefers a before b (W[a, b] < W[b, a]) iff idx_a(M_ab) < idx_b(M_ab): the
pair is ordered by Smith's index evaluated at the pair's own mean M_ab. Consequences:
(i) the rest of the instance enters only through M_ab, a mean under prod_{l != a, b} g_l; so
    the preference is independent of the rest when the two lines do not cross on (0, 1), and
    depends on it exactly when they cross at a point u_ab that some instance's M_ab can straddle;
(ii) M_ab = mu(pi without a, b) falls as pi_a or pi_b grows (each g_l tilts the density toward
    u = 1, so removing a likely job moves the mean down; checked in `check_monotone_means`);
(iii) if every pair were compared at one common u the tournament would be Smith's order at u,
    hence transitive; a 3-cycle needs distinct pair means on both sides of crossings. For three
    lines through one point u0 with slopes m_a > m_b > m_c, a first beats b iff M_ab < u0, so the
    cycle a -> b -> c -> a holds iff M_ab < u0, M_bc < u0 < M_ac; by (ii) this happens when b is
    the likeliest of the three (pi_b > pi_a, pi_c) and u0 lies between the means.
`generate(n, seed, family="cyclic")` puts all index lines through one point (u0 = median pair
mean), so every pair sits in case (iii): its order is decided by its own mean, and the
preference digraph has one strong component of at least 80% of the jobs for n >= 10
(tests/sojourn/test_cyclic_family.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.lop.core import preference_tournament, three_cycles
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.generate import pair_mean_u
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance

B = Objective("B")
AT = ("pair-mean", "full-mean")  # "full-mean" (a wrong rule): compare every pair at one mean


def sympy_identity(n: int = 4) -> bool:
    """Symbolic check of W[b,a] - W[a,b] = pi_a pi_b int R_ab (idx_b - idx_a) for jobs 0, 1 of n."""
    import sympy as sp

    u = sp.symbols("u")
    pi = sp.symbols(f"pi0:{n}", positive=True)
    e = sp.symbols(f"e0:{n}", positive=True)
    m = sp.symbols(f"m0:{n}", positive=True)
    g = [1 - p + p * u for p in pi]
    h = [e[i] + m[i] * pi[i] * u for i in range(n)]
    G = sp.prod(g)

    def W(j: int, i: int) -> sp.Expr:
        return sp.integrate(sp.cancel(pi[i] * G * h[j] / (g[i] * g[j])), (u, 0, 1))

    R = sp.prod(g[2:])
    idx = [e[i] / pi[i] + m[i] * u for i in range(2)]
    rhs = pi[0] * pi[1] * sp.integrate(sp.expand(R * (idx[1] - idx[0])), (u, 0, 1))
    return bool(sp.simplify(W(1, 0) - W(0, 1) - rhs) == 0)


def rule_tournament(inst: Instance, at: str = "pair-mean") -> np.ndarray:
    """before[a, b] predicted by the rule: idx_a(M) < idx_b(M), M = M_ab (or the full mean)."""
    pi, e, m = inst.pi, inst.e, inst.m
    if at == "pair-mean":
        M = pair_mean_u(pi)
    elif at == "full-mean":
        M = np.full((inst.n, inst.n), _full_mean(pi))
    else:
        raise ValueError(f"at must be one of {AT}, got {at!r}")
    idx = e[:, None] / pi[:, None] + m[:, None] * M  # idx[a, b] = idx_a(M_ab)
    D = idx.T - idx  # D[a, b] = idx_b(M_ab) - idx_a(M_ab)
    ids = np.arange(inst.n)
    pref = (D > 0) | ((D == 0) & (ids[:, None] < ids[None, :]))
    np.fill_diagonal(pref, False)
    return pref


def _full_mean(pi: np.ndarray) -> float:
    from schedlab.solvers.kernels.quadrature import gauss_legendre_01

    u, w = gauss_legendre_01(len(pi) // 2 + 2)
    G = np.prod(1.0 - pi[None, :] + pi[None, :] * u[:, None], axis=1)
    return float(np.dot(w * G, u) / np.dot(w, G))


@dataclass
class RuleCheck:
    """Pairs whose B preference the rule got wrong (beyond rounding), over all instances."""

    at: str
    instances: int
    pairs: int
    wrong_pairs: int
    cyclic_instances: int
    worst_rel_identity_error: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        return self.wrong_pairs == 0 and self.worst_rel_identity_error <= 1e-9


def check_rule(instances: Sequence[Instance], at: str = "pair-mean") -> RuleCheck:
    """Compare the rule's tournament with the sign of W[b,a] - W[a,b] on every pair.

    Pairs with |W[b,a] - W[a,b]| below 1e-9 max|W| (rounding ties) are not counted. The
    identity's magnitude is checked too: pi_a pi_b Z_ab (idx_b(M_ab) - idx_a(M_ab)).
    """
    pairs = wrong = cyclic = 0
    worst = 0.0
    for inst in instances:
        _, W = linear_ordering_weights(inst, B)
        D = W.T - W  # D[a, b] = W[b, a] - W[a, b] > 0 iff a first is better
        tol = 1e-9 * float(np.abs(W).max())
        pref = rule_tournament(inst, at)
        sure = np.abs(D) > tol
        np.fill_diagonal(sure, False)
        pairs += int(sure.sum()) // 2
        wrong += int((sure & (pref != (D > 0))).sum()) // 2
        cyclic += bool(three_cycles(preference_tournament(W), limit=1))
        worst = max(worst, _identity_error(inst, D))
    return RuleCheck(at, len(instances), pairs, wrong, cyclic, worst)


def _identity_error(inst: Instance, D: np.ndarray) -> float:
    """Largest |D - pi_a pi_b Z_ab (idx_b(M_ab) - idx_a(M_ab))| relative to max|D|."""
    from schedlab.solvers.kernels.quadrature import gauss_legendre_01

    pi, e, m = inst.pi, inst.e, inst.m
    u, w = gauss_legendre_01((inst.n + 1) // 2 + 1)
    g = 1.0 - pi[None, :] + pi[None, :] * u[:, None]
    inv = 1.0 / g
    Z = inv.T @ ((w * np.prod(g, axis=1))[:, None] * inv)
    M = pair_mean_u(pi)
    idx = e[:, None] / pi[:, None] + m[:, None] * M
    pred = np.outer(pi, pi) * Z * (idx.T - idx)
    np.fill_diagonal(pred, 0.0)
    return float(np.abs(pred - D).max() / max(float(np.abs(D).max()), 1e-300))


def check_monotone_means(instances: Sequence[Instance]) -> int:
    """Consequence (ii): count triples (a, b, c) with pi_b > pi_c but M_ab > M_ac (must be 0)."""
    bad = 0
    for inst in instances:
        M, pi = pair_mean_u(inst.pi), inst.pi
        for a, b, c in itertools.permutations(range(min(inst.n, 12)), 3):
            if pi[b] > pi[c] and M[a, b] > M[a, c] + 1e-12:
                bad += 1
    return bad
