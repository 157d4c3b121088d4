"""schedlab solvers: problem data, objectives, exact methods, heuristics and kernels.

This package knows nothing of `experiments` (simulators, figures, the CLI)."""

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, Status

__all__ = ["InvalidInput", "SolveResult", "Status"]
