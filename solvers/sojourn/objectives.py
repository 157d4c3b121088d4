"""Objectives of a non-preemptive order on one server, in closed form (fast, exact).

I_i is job i's success indicator, C_i its completion time, N = sum I_i.
- A:  E[sum_i I_i C_i]                         -- expected total sojourn of successful jobs.
- B:  E[(1/N) sum_i I_i C_i], 0 when N = 0      -- per-run mean sojourn over successful jobs.
- TK: E[time of the K-th success]              -- makespan when fewer than K jobs succeed.
- DK: E[sum of C_i over the first K successes] -- all successes when fewer than K succeed.
All jobs are run in the given order; under TK and DK the server stops at the K-th success.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schedlab.solvers.kernels.quadrature import gauss_legendre_unit
from schedlab.solvers.sojourn.problem import (  # noqa: F401  OBJECTIVES, LINEAR_ORDERING: kept importable from here
    LINEAR_ORDERING,
    OBJECTIVES,
    Instance,
    Objective,
    check_order,
)
from schedlab.solvers.validate import NO_DEADLINE, Deadline

_NODE_CHUNK = 64


# ---- A, TK, DK: a forward pass over the order -----------------------------------------------
def _truncated_pass(inst: Instance, order: Sequence[int], k: int) -> tuple[float, float]:
    """Exact E[T_K] and E[D_K] by a forward pass over counts of successes (capped at K).

    State c = successes so far (< K: still running; K: stopped). P[c] = probability,
    M[c] = E[elapsed time * 1{count = c}]. A job run in state c < K succeeds with prob pi
    (elapsed += m) or is cancelled (elapsed += its checkpoint size; E[X 1{cancel}] = e).
    """
    pi, m, e = inst.pi, inst.m, inst.e
    P = np.zeros(k + 1)
    M = np.zeros(k + 1)
    P[0] = 1.0
    dk = 0.0
    for i in order:
        p, mi, ei = pi[i], m[i], e[i]
        Pr, Mr = P[:k].copy(), M[:k].copy()  # running states
        succ_P, succ_M = p * Pr, p * (Mr + mi * Pr)
        dk += float(succ_M.sum())
        P[:k] = (1 - p) * Pr
        M[:k] = (1 - p) * Mr + ei * Pr
        P[1:] += succ_P
        M[1:] += succ_M
    return float(M.sum()), dk


def value_A(inst: Instance, order: Sequence[int]) -> float:
    """A = sum_i pi_i (m_i + sum_{j before i} E[X_j])."""
    ex = inst.mean[list(order)]
    before = np.concatenate(([0.0], np.cumsum(ex)[:-1]))
    o = list(order)
    return float(np.sum(inst.pi[o] * (inst.m[o] + before)))


def value_TK(inst: Instance, order: Sequence[int], k: int) -> float:
    return _truncated_pass(inst, order, k)[0]


def value_DK(inst: Instance, order: Sequence[int], k: int) -> float:
    return _truncated_pass(inst, order, k)[1]


# ---- B: linear ordering form with Gauss-Legendre nodes -----------------------------------
def quadrature_nodes(n: int) -> int:
    """Number of Gauss-Legendre nodes that integrates the B polynomials exactly: ceil(n/2)+1."""
    return (n + 1) // 2 + 1


def b_node_terms(inst: Instance, q: int | None = None) -> dict[str, np.ndarray]:
    """Per-node factors of B: B = sum_u w_u G(u) sum_i a_i(u) (m_i + sum_{j<i} b_j(u)).

    Here g_l(u) = 1 - pi_l + pi_l u, G = prod g_l, a_i = pi_i / g_i, b_j = h_j / g_j with
    h_j(u) = e_j + m_j pi_j u. Returns arrays u (Q,), wG = w*G (Q,), a (Q, n), b (Q, n).
    G/g_i is taken as a leave-one-out product, so pi_i = 1 needs no division by zero.
    """
    n = inst.n
    q = quadrature_nodes(n) if q is None else q
    u, w = gauss_legendre_unit(q)  # O(q^2) Newton above 256 nodes (leggauss is O(q^3))
    pi, m, e = inst.pi, inst.m, inst.e
    g = 1.0 - pi[None, :] + pi[None, :] * u[:, None]  # (Q, n), > 0 at interior nodes
    G = np.prod(g, axis=1)
    a = pi[None, :] / g
    b = (e[None, :] + m[None, :] * pi[None, :] * u[:, None]) / g
    return {"u": u, "w": w, "G": G, "wG": w * G, "a": a, "b": b}


def b_weights(
    inst: Instance, q: int | None = None, *, deadline: Deadline = NO_DEADLINE
) -> tuple[np.ndarray, np.ndarray]:
    """Linear-ordering form of B: B(order) = sum_i c_i + sum_{j before i} W[j, i].

    c_i = pi_i m_i int G/g_i du and W[j, i] = pi_i int G h_j / (g_i g_j) du; exact with
    ceil(n/2)+1 Gauss-Legendre nodes because the integrands are polynomials of degree <= n-1.
    DeadlineExceeded once `deadline` passes (an exact method's limit covers this step).
    """
    deadline.check()  # the node terms below take ~0.5 s at n = 5,700: not started late
    t = b_node_terms(inst, q)
    wG, a, b = t["wG"], t["a"], t["b"]
    c = inst.m * np.einsum("q,qi->i", wG, a)
    # W[j, i] = sum_q wG_q b_qj a_qi, node chunk by node chunk: one BLAS product each, and a
    # deadline check between them (the time limit of an exact method covers this O(n^2 q) step).
    W = np.zeros((inst.n, inst.n))
    for s in range(0, len(wG), _NODE_CHUNK):
        deadline.check()
        sl = slice(s, s + _NODE_CHUNK)
        W += (b[sl] * wG[sl, None]).T @ a[sl]
    np.fill_diagonal(W, 0.0)
    return c, W


def value_B(inst: Instance, order: Sequence[int], q: int | None = None) -> float:
    """B by the per-node Smith form, O(n * Q) for one order."""
    t = b_node_terms(inst, q)
    o = list(order)
    a, b = t["a"][:, o], t["b"][:, o]
    before = np.cumsum(b, axis=1) - b
    per_node = np.sum(a * (inst.m[o][None, :] + before), axis=1)
    return float(np.dot(t["wG"], per_node))


def evaluate(inst: Instance, order: Sequence[int], objective: Objective) -> float:
    """Closed-form value of `objective` for the non-preemptive `order` (job positions)."""
    check_order(order, inst.n)
    objective.check_for(inst)
    if objective.kind == "A":
        return value_A(inst, order)
    if objective.kind == "B":
        return value_B(inst, order)
    assert objective.k is not None
    if objective.kind == "TK":
        return value_TK(inst, order, objective.k)
    return value_DK(inst, order, objective.k)
