"""Batch evaluation: K candidate orders of one instance -> K closed-form objective values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from schedlab.solvers.kernels.backends import get_backend
from schedlab.solvers.kernels.orders import (
    DEFAULT_CHUNK,
    OrderSource,
    iter_chunks,
    raise_for_bad_rows,
)
from schedlab.solvers.kernels.tables import lop_tables, trunc_tables
from schedlab.solvers.sojourn.instance import Instance
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING, Objective


def prepare(inst: Instance, objective: Objective, backend: Any, tables: str = "nodes") -> Any:
    """Per-instance data for `backend` (tables on the device for CUDA)."""
    objective.check_for(inst)
    if objective.kind in LINEAR_ORDERING:
        return backend.prepare_lop(lop_tables(inst, objective, tables))
    return backend.prepare_trunc(trunc_tables(inst, objective))


def iter_values(
    inst: Instance,
    orders: OrderSource,
    objective: Objective,
    *,
    backend: str = "auto",
    chunk_size: int = DEFAULT_CHUNK,
    tables: str = "nodes",
    check: bool = True,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first row, values) chunk by chunk; see `evaluate_orders`."""
    be = get_backend(backend)
    prep = prepare(inst, objective, be, tables)
    lop = objective.kind in LINEAR_ORDERING
    for start, chunk in iter_chunks(orders, inst.n, chunk_size):
        if check:
            raise_for_bad_rows(chunk, be.bad_rows(chunk, inst.n), inst.n, start)
        yield start, be.lop(prep, chunk) if lop else be.trunc(prep, chunk)


def evaluate_orders(
    inst: Instance,
    orders: OrderSource,
    objective: Objective,
    *,
    backend: str = "auto",
    chunk_size: int = DEFAULT_CHUNK,
    tables: str = "nodes",
    check: bool = True,
) -> np.ndarray:
    """Closed-form values of K orders (job positions) under objective A, B, TK or DK.

    `orders`: an integer array (K, n), an iterable of such chunks, or a callable returning
    chunk i (None at the end); chunks of `chunk_size` orders go to the kernel one at a time.
    `backend`: 'auto' (CUDA if a GPU is present, else CPU), 'numpy', 'cpu' or 'cuda'.
    `tables` (B only): 'nodes' (Gauss-Legendre nodes, certified to ~1e-14 relative) or
    'lowrank' (SVD-compressed, ~1e-12). `check=False` skips the permutation check (for
    callers that build the orders themselves). Raises InvalidInput for bad orders.
    """
    parts = [
        v
        for _, v in iter_values(
            inst,
            orders,
            objective,
            backend=backend,
            chunk_size=chunk_size,
            tables=tables,
            check=check,
        )
    ]
    return np.concatenate(parts)
