"""Batch evaluation kernels: many candidate orders of one instance at once.

- `evaluate_orders(inst, orders, objective, backend=...)`: closed-form values of K orders.
- `monte_carlo_orders(...)`: means and standard errors on shared sampled scenarios.
- `best_insertion_moves`, `insertion_sweeps`: whole insertion neighbourhoods per kernel call.

Backends: 'numpy' (vectorized reference), 'cpu' (numba, parallel), 'cuda' (numba CUDA);
'auto' picks CUDA when a GPU is present, else the CPU. The per-order arithmetic is written once
(`arith`) and compiled for both numba targets.
"""

from schedlab.solvers.kernels.backends import BACKENDS, cuda_available, resolve_backend
from schedlab.solvers.kernels.evaluate import evaluate_orders, iter_values
from schedlab.solvers.kernels.insertion import (
    apply_moves,
    best_insertion_moves,
    insertion_deltas,
    insertion_sweeps,
)
from schedlab.solvers.kernels.montecarlo import BatchEstimate, monte_carlo_orders
from schedlab.solvers.kernels.tables import LopTables, lop_tables

__all__ = [
    "BACKENDS",
    "BatchEstimate",
    "LopTables",
    "apply_moves",
    "best_insertion_moves",
    "cuda_available",
    "evaluate_orders",
    "insertion_deltas",
    "insertion_sweeps",
    "iter_values",
    "lop_tables",
    "monte_carlo_orders",
    "resolve_backend",
]
