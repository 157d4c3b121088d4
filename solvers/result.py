"""One result type for every solver in the project (exact methods and heuristics alike)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """How a solve ended. Only a method that *proved* optimality says OPTIMAL."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"  # a solution, not proven optimal (heuristics; stopped exact solvers)
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"  # stopped by the time limit with no solution
    ERROR = "error"


def _num(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class SolveResult:
    """Outcome of a solve.

    `value` is the objective of `solution`; `bound` a proven bound on the optimum (a lower
    bound when minimizing, an upper bound when maximizing) or None when unknown; `solution`
    is subject-specific and JSON-serializable; `stats` holds solver counters.
    """

    status: Status
    value: float | None
    bound: float | None
    solution: Any
    method: str
    runtime_s: float
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def is_optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    @property
    def has_solution(self) -> bool:
        return self.status in (Status.OPTIMAL, Status.FEASIBLE) and self.solution is not None

    @property
    def gap(self) -> float | None:
        """Relative gap |value - bound| / max(|value|, 1e-12), when both are known."""
        if self.value is None or self.bound is None:
            return None
        return abs(self.value - self.bound) / max(abs(self.value), 1e-12)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with snake_case keys."""
        return {
            "status": self.status.value,
            "value": _num(self.value),
            "bound": _num(self.bound),
            "gap": _num(self.gap),
            "solution": self.solution,
            "method": self.method,
            "runtime_s": self.runtime_s,
            "stats": self.stats,
        }
