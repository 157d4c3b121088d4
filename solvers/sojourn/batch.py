"""Vectorized closed-form values of many orders at once (numpy; chunked over orders).

`evaluate_orders(inst, orders, objective)` with `orders` an int array (K, n) of job positions
returns K values. It is the numpy reference used by brute force and local search.
"""

from __future__ import annotations

import numpy as np

from solvers.sojourn.instance import Instance
from solvers.sojourn.objectives import Objective, b_weights

CHUNK = 65_536


def linear_ordering_weights(inst: Instance, objective: Objective) -> tuple[np.ndarray, np.ndarray]:
    """(c, W) with value(order) = sum_i c_i + sum_{j before i} W[j, i], for A and B.

    A: c_i = pi_i m_i and W[j, i] = E[X_j] pi_i. B: the Gauss-Legendre weights of `b_weights`.
    """
    if objective.kind == "A":
        c = inst.pi * inst.m
        W = np.outer(inst.mean, inst.pi)
        np.fill_diagonal(W, 0.0)
        return c, W
    if objective.kind == "B":
        return b_weights(inst)
    raise ValueError(f"objective {objective.kind} is not a linear ordering problem")


def _lop_values(c: np.ndarray, W: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """sum c + sum_{x<y} W[o_x, o_y] for each row o of `orders`."""
    n = orders.shape[1]
    out = np.full(orders.shape[0], c.sum())
    # W_before[k, y] = sum_{x<y} W[o_x, o_y], built by accumulating rows of W
    acc = np.zeros((orders.shape[0], len(c)))  # acc[k, i] = sum_{j placed so far} W[j, i]
    rows = np.arange(orders.shape[0])
    for y in range(n):
        oy = orders[:, y]
        out += acc[rows, oy]
        acc += W[oy]
    return out


def _truncated_values(inst: Instance, orders: np.ndarray, k: int, want: str) -> np.ndarray:
    """Vectorized forward pass over counts of successes (see objectives._truncated_pass)."""
    K = orders.shape[0]
    P = np.zeros((K, k + 1))
    M = np.zeros((K, k + 1))
    P[:, 0] = 1.0
    dk = np.zeros(K)
    for y in range(orders.shape[1]):
        o = orders[:, y]
        p, mi, ei = inst.pi[o][:, None], inst.m[o][:, None], inst.e[o][:, None]
        Pr, Mr = P[:, :k].copy(), M[:, :k].copy()
        sP, sM = p * Pr, p * (Mr + mi * Pr)
        dk += sM.sum(axis=1)
        P[:, :k] = (1 - p) * Pr
        M[:, :k] = (1 - p) * Mr + ei * Pr
        P[:, 1:] += sP
        M[:, 1:] += sM
    return M.sum(axis=1) if want == "TK" else dk


def evaluate_orders(inst: Instance, orders: np.ndarray, objective: Objective) -> np.ndarray:
    """Values of each row of `orders` (K, n) under `objective`; rows must be permutations."""
    orders = np.asarray(orders)
    if orders.ndim != 2 or orders.shape[1] != inst.n:
        raise ValueError(f"orders must have shape (K, {inst.n}); got {orders.shape}")
    objective.check_for(inst)
    out = np.empty(orders.shape[0])
    if objective.kind in ("A", "B"):
        c, W = linear_ordering_weights(inst, objective)
        for s in range(0, len(orders), CHUNK):
            out[s : s + CHUNK] = _lop_values(c, W, orders[s : s + CHUNK])
    else:
        assert objective.k is not None
        for s in range(0, len(orders), CHUNK):
            out[s : s + CHUNK] = _truncated_values(
                inst, orders[s : s + CHUNK], objective.k, objective.kind
            )
    return out
