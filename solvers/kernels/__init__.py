"""Batch kernels on arrays: many candidate orders of one problem at once. No subject inside.

A subject builds the tables (e.g. `schedlab.solvers.sojourn.tables`) and calls:
- `evaluate_tables(tables, orders, backend=...)`: values of K orders from `LopTables` (factor
  form of a linear ordering objective) or `TruncTables` (K-th-success forward pass);
- `monte_carlo_scenarios(...)`: means and standard errors on shared sampled scenarios;
- `best_insertion_moves`, `insertion_sweeps`: whole insertion neighbourhoods per kernel call.

Backends: 'numpy' (vectorized reference), 'cpu' (numba, parallel), 'cuda' (numba CUDA);
'auto' picks CUDA when a GPU is present, else the CPU. The per-order arithmetic is written once
(`arith`) and compiled for both numba targets. Names load lazily (numba only when used).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "BACKENDS": "backends",
    "cuda_available": "backends",
    "resolve_backend": "backends",
    "evaluate_tables": "evaluate",
    "iter_table_values": "evaluate",
    "apply_moves": "insertion",
    "best_insertion_moves": "insertion",
    "insertion_deltas": "insertion",
    "insertion_sweeps": "insertion",
    "BatchEstimate": "montecarlo",
    "monte_carlo_scenarios": "montecarlo",
    "LopTables": "tables",
    "TruncTables": "tables",
    "compress": "tables",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
