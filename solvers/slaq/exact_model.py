"""What the MILP and CP-SAT back ends of SLAQ optimize: the qualities inside the optimum's window.

Fitted qualities of one snapshot can span hundreds of orders of magnitude (a predictor that
extrapolates a rising loss gives Q = -1e87 next to Q = 1.2), far beyond what a solver's
absolute tolerances (HiGHS) or a 64-bit integer scale (CP-SAT) can tell apart. Only a narrow
window matters: with c_j = max_e Q_j(e) and V0 the value of a heuristic allocation,

- sum: an optimum gives every job Q_j - c_j >= V0 - sum_k c_k = -D. The window values are
  w_j = max((Q_j - c_j) / D, -2) in [-2, 0] and the real objective of an allocation is
  sum_k c_k + D sum_j w_j, for every allocation whose values are all >= -1;
- max-min: an optimum gives every job Q_j >= V0, and no allocation's minimum exceeds
  U = min_j c_j. The window values are w_j = clip((Q_j - V0) / D, -1, 1) with D = U - V0 and
  the real objective is V0 + D min_j w_j, for every allocation whose values are all >= 0.

Clipping only *raises* a value (the top clip of max-min never changes a minimum), so every
allocation's window objective is at least its real one, and a bound on the window model is a
bound on the real optimum (sound whatever V0 is). An allocation that uses a raised value has a
window objective below V0's (at most -2 against -1, resp. -1 against 0), so the window model's
optima are the real optima. The numbers the solvers see are of order 1, whatever the data.

A poor heuristic V0 (water-filling when Q_j falls with more cores) makes the window wide and its
resolution coarse, so `solve_by_windows` re-centres the window on the best allocation a back end
found and solves again, until `certify` proves it or no better allocation appears.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.result import Status, certify
from schedlab.solvers.slaq.heuristics import heap_extra, maxmin_extra

#: Windows solved at most (each re-centred on the best allocation found so far).
MAX_ROUNDS = 4
#: Relative float error of offset + span * w (a product and a sum: a few units in the last place).
FLOAT_MARGIN = 4 * 2.0**-52


@dataclass(frozen=True)
class Window:
    """Window values per old job (at base + 0..free cores) and their map to real units."""

    tables: list[np.ndarray]
    offset: float
    span: float
    incumbent: tuple[int, ...]  # extra cores of the heuristic allocation that set the window
    incumbent_value: float

    def real(self, window_value: float) -> float:
        """A window objective (or an upper bound on it) in the snapshot's units, rounded up past
        the float error of the map (offset and span can be 1e28 where the value is 1e14)."""
        scaled = self.span * window_value
        return self.offset + scaled + FLOAT_MARGIN * (abs(self.offset) + abs(scaled))


def table_value(tables: Sequence[np.ndarray], extra: Sequence[int], objective: str) -> float:
    """The objective of extra cores `extra` read from the tables (0 without old jobs)."""
    vals = [float(t[e]) for t, e in zip(tables, extra, strict=True)]
    if not vals:
        return 0.0
    return math.fsum(vals) if objective == "sum" else min(vals)


def _incumbent(tables: Sequence[np.ndarray], free: int, objective: str) -> list[int]:
    """A heuristic allocation from the tables: the marginal-gain heap (sum) or water-filling."""
    qs = [lambda c, t=t: np.take(t, np.asarray(c, dtype=int), mode="clip") for t in tables]
    pick = heap_extra if objective == "sum" else maxmin_extra
    return pick(qs, [0] * len(tables), free)


def window(
    tables: Sequence[np.ndarray],
    free: int,
    objective: str,
    incumbent: Sequence[int] | None = None,
) -> Window:
    """The window of the snapshot's qualities around `incumbent` (extra cores per old job;
    default: the heuristic's), see the module docstring."""
    if incumbent is None:
        incumbent = _incumbent(tables, free, objective) if tables else []
    extra = [int(e) for e in incumbent]
    v0 = table_value(tables, extra, objective)
    if not tables:
        return Window([], 0.0, 1.0, (), v0)
    tops = [float(np.max(t)) for t in tables]
    if objective == "sum":
        offset = math.fsum(tops)
        # D = sum c - V0 as a sum of non-negative terms: no cancellation against large c_j
        gap = math.fsum(c - float(t[e]) for t, c, e in zip(tables, tops, extra, strict=True))
        span = gap if gap > 0 and math.isfinite(gap) else 1.0
        with np.errstate(over="ignore", invalid="ignore"):
            w = [
                np.nan_to_num(np.maximum((t - c) / span, -2.0), nan=-2.0)
                for t, c in zip(tables, tops, strict=True)
            ]
    else:
        offset = v0
        gap = min(tops) - v0
        span = gap if gap > 0 and math.isfinite(gap) else 1.0
        with np.errstate(over="ignore", invalid="ignore"):
            w = [np.nan_to_num(np.clip((t - v0) / span, -1.0, 1.0), nan=-1.0) for t in tables]
    return Window(w, offset, span, tuple(extra), v0)


@dataclass
class WindowSolve:
    """One back-end solve of a window model: extra cores found (None: none) and a proven upper
    bound on the window objective (None: none)."""

    extra: list[int] | None
    bound: float | None
    stats: dict[str, Any] = field(default_factory=dict)


def solve_by_windows(
    tables: Sequence[np.ndarray],
    free: int,
    objective: str,
    solve_one: Callable[[Window], WindowSolve],
    time_up: Callable[[], bool],
) -> tuple[list[int], float | None, dict[str, Any]]:
    """(extra cores, a proven upper bound on the real optimum or None, stats): the window model
    solved by `solve_one`, re-centred on a better allocation until proven, none is better, the
    time is up or MAX_ROUNDS windows were solved. The bound is the least over the rounds (each
    is sound, whatever its window)."""
    win = window(tables, free, objective)
    best, best_v = list(win.incumbent), win.incumbent_value
    bound: float | None = None
    stats: dict[str, Any] = {"windows": 0, "window_span": win.span}
    for _ in range(MAX_ROUNDS):
        out = solve_one(win)
        stats["windows"] += 1
        stats.update(out.stats)
        if out.bound is not None:
            b = win.real(out.bound)
            bound = b if bound is None else min(bound, b)
        better = out.extra is not None and table_value(tables, out.extra, objective) > best_v
        if better:
            assert out.extra is not None
            best, best_v = out.extra, table_value(tables, out.extra, objective)
        if not better or time_up() or certify(best_v, bound, "max").status is Status.OPTIMAL:
            break
        win = window(tables, free, objective, best)
        stats["window_span"] = win.span
    return best, bound, stats
