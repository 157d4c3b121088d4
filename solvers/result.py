"""One result type for every solver in the project, and the one rule that certifies optimality.

`SolveResult[S]` is generic in its solution (a list of job ids for sojourn, an `Allocation`
for Synergy, ...). `certify(value, bound, sense, tol)` is the only place where a value and a
bound become a status: every backend of every subject calls it, through `solution_result`, the
one rule that turns a method's solution (or its lack), value, bound and re-check into a result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, Literal, TypeVar

S = TypeVar("S")
#: A result's solution type: covariant (results are frozen), so a result whose solution is a
#: `Plan` is a result whose solution is a `Plan | None`.
S_co = TypeVar("S_co", covariant=True)
Sense = Literal["min", "max"]

#: Relative proof tolerance: optimal when |value - bound| <= PROOF_TOL * max(1, |value|).
PROOF_TOL = 1e-9
#: A bound may cross the value by this much (relative) from solver rounding; it is clamped.
CROSSING_TOL = 1e-6


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
class Certificate:
    """What `certify` concluded: the status, the value, the (possibly clamped) bound, notes."""

    status: Status
    value: float | None
    bound: float | None
    stats: dict[str, Any]


def certify(
    value: float | None,
    bound: float | None,
    sense: Sense,
    tol: float = PROOF_TOL,
    *,
    crossing_tol: float = CROSSING_TOL,
) -> Certificate:
    """Status of a solve that found `value` (None: no solution) with proven `bound`.

    Optimal only when the bound meets the value within `tol` (relative to max(1, |value|)).
    A bound on the wrong side of the value by at most `crossing_tol` (relative) is solver
    rounding: it is clamped to the value and the excess recorded in stats. A larger crossing
    means the bound is not sound: the bound is dropped and the status is ERROR.
    """
    if value is None or not math.isfinite(value):
        return Certificate(Status.TIMEOUT, None, _num(bound), {})
    if bound is None or not math.isfinite(bound):
        return Certificate(Status.FEASIBLE, value, None, {})
    scale = max(1.0, abs(value))
    crossing = (bound - value) if sense == "min" else (value - bound)
    stats: dict[str, Any] = {}
    if crossing > 0:
        if crossing > crossing_tol * scale:
            stats["error"] = (
                f"bound {bound!r} crosses value {value!r} by {crossing:.3g} "
                f"(more than the solver tolerance {crossing_tol:g} relative)"
            )
            return Certificate(Status.ERROR, value, None, stats)
        stats["bound_clamped"] = crossing
        bound = value
    proven = abs(value - bound) <= tol * scale
    return Certificate(Status.OPTIMAL if proven else Status.FEASIBLE, value, bound, stats)


def _jsonable(solution: Any) -> Any:
    to_dict = getattr(solution, "to_dict", None)
    return to_dict() if callable(to_dict) else solution


@dataclass(frozen=True)
class SolveResult(Generic[S_co]):
    """Outcome of a solve.

    `value` is the objective of `solution`; `bound` a proven bound on the optimum (a lower
    bound when minimizing, an upper bound when maximizing) or None when unknown; `solution`
    is subject-specific (JSON-serializable itself or through its `to_dict()`); `stats` holds
    solver counters.
    """

    status: Status
    value: float | None
    bound: float | None
    solution: S_co
    method: str
    runtime_s: float
    stats: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def certified(
        cls,
        cert: Certificate,
        solution: S_co,  # type: ignore[misc]  # a constructor: read-only afterwards
        method: str,
        runtime_s: float,
        stats: dict[str, Any] | None = None,
    ) -> SolveResult[S_co]:
        """A result whose status, value and bound come from `certify`."""
        return cls(
            cert.status,
            cert.value,
            cert.bound,
            solution,
            method,
            runtime_s,
            {**(stats or {}), **cert.stats},
        )

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
            "solution": _jsonable(self.solution),
            "method": self.method,
            "runtime_s": self.runtime_s,
            "stats": self.stats,
        }


def solution_result(
    solution: S,
    value: float | None,
    method: str,
    runtime_s: float,
    *,
    exact: bool,
    sense: Sense,
    bound: float | None = None,
    proven: bool = False,
    infeasible: bool = False,
    violations: Sequence[str] = (),
    stats: dict[str, Any] | None = None,
) -> SolveResult[S]:
    """The one rule that turns what a method found into a result, in every subject.

    `solution` is what the method found (None: nothing), `value` its objective recomputed from
    the raw data, `violations` what a re-check of it on the raw data found wrong:
    - no solution: `infeasible` (proven: no solution exists) gives INFEASIBLE with no value and
      no bound; otherwise TIMEOUT, with the bound kept;
    - a solution with violations: ERROR (a bug in the method, never reported as a solution's
      value being proven), the bound dropped and `stats["error"]` listing them;
    - a heuristic's solution: FEASIBLE, no bound;
    - an exact method's: `certify(value, bound, sense)`, with `proven` (an exhaustive search:
      the value is its own bound) in place of a bound.
    """
    stats = dict(stats or {})
    if solution is None:
        status = Status.INFEASIBLE if infeasible else Status.TIMEOUT
        kept = None if infeasible else _num(bound)
        return SolveResult(status, None, kept, solution, method, runtime_s, stats)
    if violations:
        stats["error"] = "; ".join(violations)
        return SolveResult(Status.ERROR, value, None, solution, method, runtime_s, stats)
    if not exact:
        return SolveResult(Status.FEASIBLE, value, None, solution, method, runtime_s, stats)
    cert = certify(value, value if proven else bound, sense)
    return SolveResult.certified(cert, solution, method, runtime_s, stats)
