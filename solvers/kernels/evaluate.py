"""Batch evaluation: K candidate orders -> K values, from a subject's tables (arrays only).

`tables` is a `LopTables` (factor form of a linear ordering objective) or a `TruncTables`
(forward pass of the K-th-success objectives); the subject builds them (e.g.
`schedlab.solvers.sojourn.tables`) and its own `evaluate_orders` calls these.
"""

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
from schedlab.solvers.kernels.tables import LopTables, TruncTables

Tables = LopTables | TruncTables


def iter_table_values(
    tables: Tables,
    orders: OrderSource,
    *,
    backend: str = "auto",
    chunk_size: int = DEFAULT_CHUNK,
    check: bool = True,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first row, values) chunk by chunk; see `evaluate_tables`."""
    be = get_backend(backend)
    lop = isinstance(tables, LopTables)
    prep: Any = be.prepare_lop(tables) if lop else be.prepare_trunc(tables)
    n = tables.n
    for start, chunk in iter_chunks(orders, n, chunk_size):
        if check:
            raise_for_bad_rows(chunk, be.bad_rows(chunk, n), n, start)
        yield start, be.lop(prep, chunk) if lop else be.trunc(prep, chunk)


def evaluate_tables(
    tables: Tables,
    orders: OrderSource,
    *,
    backend: str = "auto",
    chunk_size: int = DEFAULT_CHUNK,
    check: bool = True,
) -> np.ndarray:
    """Values of K orders (job positions) from `tables`.

    `orders`: an integer array (K, n), an iterable of such chunks, or a callable returning
    chunk i (None at the end); chunks of `chunk_size` orders go to the kernel one at a time.
    `backend`: 'auto' (CUDA if a GPU is present, else CPU), 'numpy', 'cpu' or 'cuda'.
    `check=False` skips the permutation check (for callers that build the orders themselves).
    Raises InvalidInput for bad orders.
    """
    it = iter_table_values(tables, orders, backend=backend, chunk_size=chunk_size, check=check)
    return np.concatenate([v for _, v in it])
