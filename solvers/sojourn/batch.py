"""Vectorized closed-form values of many orders at once (numpy; chunked over orders).

`evaluate_orders(inst, orders, objective)` with `orders` an int array (K, n) of job positions
returns K values. It is the numpy reference used by brute force and local search, and it is
the 'numpy' backend of `solvers.kernels` (one implementation, see solvers/kernels/numpy_ref.py).
`linear_ordering_weights` gives the explicit pairwise weights W used by the exact LOP models.
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.sojourn.instance import Instance
from schedlab.solvers.sojourn.objectives import Objective, b_weights

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


def evaluate_orders(inst: Instance, orders: np.ndarray, objective: Objective) -> np.ndarray:
    """Values of each row of `orders` (K, n) under `objective`; rows must be permutations.

    The one numpy reference: `solvers.kernels` with backend 'numpy' (vectorized over orders,
    chunked). Raises InvalidInput (a ValueError) for a wrong shape or a row that is not a
    permutation; K = 0 gives an empty array.
    """
    from schedlab.solvers.kernels.evaluate import evaluate_orders as kernel_evaluate

    orders = np.asarray(orders)
    if orders.ndim == 2 and orders.shape[0] == 0 and orders.shape[1] == inst.n:
        return np.empty(0)
    return kernel_evaluate(inst, orders, objective, backend="numpy", chunk_size=CHUNK)
