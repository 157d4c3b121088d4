"""A thin in-process HiGHS (highspy) call for LPs and MILPs given column-wise sparse data.

Used by Synergy-OPT every simulated round, where PuLP's model building would dominate the
run time. The status follows the project's one rule (`certify` with the one proof tolerance
`PROOF_TOL`): HiGHS's own optimality proof (model status optimal, MILPs run to a zero gap) or
its dual bound meeting the value; a bound crossing the value within solver tolerance is
clamped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import highspy
import numpy as np

from schedlab.solvers.result import Status, certify
from schedlab.solvers.validate import NO_DEADLINE, Deadline

#: The absolute MIP gap asked of HiGHS (a solver setting, with a zero relative gap; the status
#: is decided by `certify`).
MIP_ABS_GAP = 1e-9


@dataclass(frozen=True)
class HighsOutcome:
    status: Status
    x: np.ndarray | None
    value: float | None
    bound: float | None
    stats: dict[str, Any]


@dataclass
class ColumnModel:
    """Columns with bounds and costs; rows with bounds; the matrix column by column."""

    cost: list[float]
    lower: list[float]
    upper: list[float]
    col_rows: list[list[int]]
    col_vals: list[list[float]]
    row_lower: list[float]
    row_upper: list[float]

    def add_col(self, cost: float, lo: float, hi: float, rows: list[int], vals: list[float]) -> int:
        self.cost.append(cost)
        self.lower.append(lo)
        self.upper.append(hi)
        self.col_rows.append(rows)
        self.col_vals.append(vals)
        return len(self.cost) - 1


def empty_model(row_lower: list[float], row_upper: list[float]) -> ColumnModel:
    return ColumnModel([], [], [], [], [], list(row_lower), list(row_upper))


def highs_lp(model: ColumnModel, *, maximize: bool, integer: bool) -> Any:
    """The model as a `highspy.HighsLp` (column-wise matrix; every column integer if asked)."""
    lp = highspy.HighsLp()
    n = len(model.cost)
    lp.num_col_ = n
    lp.num_row_ = len(model.row_lower)
    lp.col_cost_ = np.asarray(model.cost, dtype=float)
    lp.col_lower_ = np.asarray(model.lower, dtype=float)
    lp.col_upper_ = np.asarray(model.upper, dtype=float)
    lp.row_lower_ = np.asarray(model.row_lower, dtype=float)
    lp.row_upper_ = np.asarray(model.row_upper, dtype=float)
    starts = np.zeros(n + 1, dtype=np.int32)
    starts[1:] = np.cumsum([len(r) for r in model.col_rows])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = len(model.row_lower)
    lp.a_matrix_.start_ = starts
    lp.a_matrix_.index_ = np.asarray([i for r in model.col_rows for i in r], dtype=np.int32)
    lp.a_matrix_.value_ = np.asarray([v for r in model.col_vals for v in r], dtype=float)
    lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n
    return lp


def write_mps(model: ColumnModel, path: str, *, integer: bool, maximize: bool) -> None:
    """Write the model as an MPS file for CBC, which minimizes: a maximized objective is
    negated (so CBC's objective value is minus the model's)."""
    neg = ColumnModel(
        [-c for c in model.cost] if maximize else model.cost,
        model.lower,
        model.upper,
        model.col_rows,
        model.col_vals,
        model.row_lower,
        model.row_upper,
    )
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(highs_lp(neg, maximize=False, integer=integer))
    h.writeModel(path)


def run_highs(
    model: ColumnModel,
    *,
    maximize: bool,
    integer: bool,
    deadline: Deadline = NO_DEADLINE,
    simplex: bool = True,
    start: np.ndarray | None = None,
    threads: int = 1,
) -> HighsOutcome:
    """Solve with HiGHS (silent); MILPs to a zero relative gap; `start`: a MIP start (column
    values; HiGHS checks it and ignores it when infeasible); HiGHS gets the time left before
    `deadline`."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    left = deadline.remaining(floor=0.01)  # HiGHS's one conversion
    if left is not None:
        h.setOptionValue("time_limit", left)
    if integer:
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", MIP_ABS_GAP)
    elif simplex:
        h.setOptionValue("solver", "simplex")
    h.passModel(highs_lp(model, maximize=maximize, integer=integer))
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = np.asarray(start, dtype=float)
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    return _outcome(h, integer=integer, maximize=maximize)


def _outcome(h: Any, *, integer: bool, maximize: bool) -> HighsOutcome:
    """Solution, value, bound and the certified status of a finished HiGHS run."""
    ms = h.getModelStatus()
    info = h.getInfo()
    has_sol = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value, dtype=float) if has_sol else None
    stats: dict[str, Any] = {"highs_status": h.modelStatusToString(ms)}
    value = float(info.objective_function_value) if has_sol else None
    bound: float | None = None
    if integer:
        stats["mip_nodes"] = int(info.mip_node_count)
        b = float(info.mip_dual_bound)
        bound = b if np.isfinite(b) else None
    if ms == highspy.HighsModelStatus.kInfeasible:
        return HighsOutcome(Status.INFEASIBLE, x, value, bound, stats)
    if ms == highspy.HighsModelStatus.kOptimal and bound is None:
        bound = value  # an LP solved to optimality: the value is its own bound
    timed_out = ms in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt)
    if value is None and not timed_out and ms != highspy.HighsModelStatus.kOptimal:
        return HighsOutcome(Status.ERROR, x, value, bound, stats)
    cert = certify(value, bound, "max" if maximize else "min")
    stats.update(cert.stats)
    return HighsOutcome(cert.status, x, cert.value, cert.bound, stats)
