"""Closed-form values of many orders at once, on any kernel backend (chunked over orders).

`evaluate_orders(inst, orders, objective)` with `orders` an int array (K, n) of job positions
returns K values: the one batch evaluator of sojourn. It builds the tables of
`sojourn.tables` and runs `kernels.evaluate` on them; the default backend 'numpy' is the
vectorized reference used by brute force and local search.
`linear_ordering_weights` gives the explicit pairwise weights W used by the exact LOP models.
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.kernels.evaluate import evaluate_tables
from schedlab.solvers.kernels.orders import DEFAULT_CHUNK, OrderSource
from schedlab.solvers.kernels.tables import LopTables, TruncTables
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING, Objective, b_weights
from schedlab.solvers.sojourn.problem import Instance
from schedlab.solvers.sojourn.tables import lop_tables, trunc_tables
from schedlab.solvers.validate import NO_DEADLINE, Deadline

CHUNK = DEFAULT_CHUNK  # 65,536 orders per kernel call


def linear_ordering_weights(
    inst: Instance, objective: Objective, *, deadline: Deadline = NO_DEADLINE
) -> tuple[np.ndarray, np.ndarray]:
    """(c, W) with value(order) = sum_i c_i + sum_{j before i} W[j, i], for A and B.

    A: c_i = pi_i m_i and W[j, i] = E[X_j] pi_i. B: the Gauss-Legendre weights of `b_weights`
    (DeadlineExceeded once `deadline` passes).
    """
    if objective.kind == "A":
        c = inst.pi * inst.m
        W = np.outer(inst.mean, inst.pi)
        np.fill_diagonal(W, 0.0)
        return c, W
    if objective.kind == "B":
        return b_weights(inst, deadline=deadline)
    raise ValueError(f"objective {objective.kind} is not a linear ordering problem")


def _tables(inst: Instance, objective: Objective, tables: str) -> LopTables | TruncTables:
    objective.check_for(inst)
    if objective.kind in LINEAR_ORDERING:
        return lop_tables(inst, objective, tables)
    return trunc_tables(inst, objective)


def evaluate_orders(
    inst: Instance,
    orders: OrderSource,
    objective: Objective,
    *,
    backend: str = "numpy",
    chunk_size: int = CHUNK,
    tables: str = "nodes",
    check: bool = True,
) -> np.ndarray:
    """Closed-form values of K orders (job positions) under objective A, B, TK or DK.

    `orders`: an integer array (K, n) (K = 0 gives an empty array), an iterable of such
    chunks, or a callable returning chunk i (None at the end); chunks of `chunk_size` orders go
    to the kernel one at a time. `backend`: 'numpy' (the reference), 'cpu', 'cuda' or 'auto'
    (CUDA if a GPU is present, else CPU). `tables` (B only): 'nodes' (Gauss-Legendre nodes,
    certified to ~1e-14 relative) or 'lowrank' (SVD-compressed, ~1e-12). `check=False` skips
    the permutation check. Raises InvalidInput (a ValueError) for a wrong shape or a row that
    is not a permutation.
    """
    if isinstance(orders, np.ndarray | list | tuple):
        arr = np.asarray(orders)
        if arr.ndim == 2 and arr.shape[0] == 0 and arr.shape[1] == inst.n:
            return np.empty(0)
    t = _tables(inst, objective, tables)
    return evaluate_tables(t, orders, backend=backend, chunk_size=chunk_size, check=check)
