"""Insertion neighbourhoods of linear-ordering objectives (A, B) evaluated by kernels.

An insertion move takes the job at position a and puts it at position b (the others keep their
relative order); an order has n(n-1) such moves (adjacent swaps among them). With the factor
tables, the change of every move follows from the pairwise weights W[j, i] = T2[j] . T1[i] in
O(n^2 r) for the whole neighbourhood, instead of re-evaluating n(n-1) orders at O(n r) each.
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.backends import get_backend
from schedlab.solvers.kernels.numpy_ref import insertion_deltas
from schedlab.solvers.kernels.tables import LopTables

__all__ = ["apply_moves", "best_insertion_moves", "insertion_deltas", "insertion_sweeps"]


def best_insertion_moves(t: LopTables, orders: np.ndarray, backend: str = "auto") -> np.ndarray:
    """(K, 3) per order: the most negative change over all n(n-1) insertion moves (0 if none
    improves), and the move's from and to positions. One kernel call for the K neighbourhoods."""
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    return get_backend(backend).best_insertion(t, orders)


def insertion_sweeps(
    t: LopTables, orders: np.ndarray, thr: np.ndarray, backend: str = "cpu"
) -> np.ndarray:
    """One first-improvement sweep per order (modifies `orders`, an int64 C-contiguous (K, n)
    array, in place): every job in turn moves to its best position when that lowers the value
    by more than thr[k]. Returns (K, 2): total change and number of moves. CPU or CUDA only."""
    be = get_backend(backend)
    if not hasattr(be, "sweep"):
        raise InvalidInput(
            f"backend: sweeps run on the compiled backends (cpu, cuda), not {be.name!r}"
        )
    if orders.dtype != np.int64 or not orders.flags.c_contiguous:
        raise InvalidInput("orders: sweeps need an int64 C-contiguous (K, n) array")
    return be.sweep(t, orders, np.ascontiguousarray(thr, dtype=np.float64))


def apply_moves(orders: np.ndarray, frm: np.ndarray, to: np.ndarray) -> np.ndarray:
    """New orders with the job at position frm[k] of row k moved to position to[k]
    (vectorized over rows; frm == to leaves a row unchanged)."""
    K, n = orders.shape
    keys = np.broadcast_to(np.arange(n, dtype=float), (K, n)).copy()
    rows = np.arange(K)
    frm = np.asarray(frm, dtype=np.int64)
    to = np.asarray(to, dtype=np.int64)
    keys[rows, frm] = np.where(to > frm, to + 0.5, np.where(to < frm, to - 0.5, frm))
    return np.take_along_axis(orders, np.argsort(keys, axis=1, kind="stable"), axis=1)
