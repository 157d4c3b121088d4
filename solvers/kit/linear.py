"""One neutral form of a mixed-integer linear model, built once by a subject and handed to a
MILP back end (HiGHS in process, or the CBC binary: `kit.mip`) or to CP-SAT (`kit.cpsat`).

Columns carry a cost, bounds and integrality; rows are lower <= sum a x <= upper; the matrix is
kept column by column (what HiGHS takes), and rows are added either empty and filled by the
columns that name them (`row`, `add_col`) or whole (`add_row`). `offset` is the objective's
constant. CP-SAT takes the same model when every bound and coefficient is an integer (a
subject writes its data in integer units for it: ticks, scaled costs).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

INF = math.inf


@dataclass
class LinearModel:
    """Columns (cost, bounds, integrality, their rows and values) and row bounds; `maximize`
    is the objective's sense, `offset` its constant."""

    cost: list[float] = field(default_factory=list)
    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    integer: list[bool] = field(default_factory=list)
    col_rows: list[list[int]] = field(default_factory=list)
    col_vals: list[list[float]] = field(default_factory=list)
    row_lower: list[float] = field(default_factory=list)
    row_upper: list[float] = field(default_factory=list)
    maximize: bool = False
    offset: float = 0.0

    @property
    def n_cols(self) -> int:
        return len(self.cost)

    @property
    def n_rows(self) -> int:
        return len(self.row_lower)

    def row(self, lo: float = -INF, hi: float = INF) -> int:
        """A new empty row lo <= . <= hi (columns add their entries); its index."""
        self.row_lower.append(lo)
        self.row_upper.append(hi)
        return len(self.row_lower) - 1

    def add_col(
        self,
        cost: float,
        lo: float,
        hi: float,
        rows: Sequence[int] = (),
        vals: Sequence[float] = (),
        *,
        integer: bool = True,
    ) -> int:
        """A new column with its entries in existing rows; its index."""
        self.cost.append(cost)
        self.lower.append(lo)
        self.upper.append(hi)
        self.integer.append(integer)
        self.col_rows.append(list(rows))
        self.col_vals.append(list(vals))
        return len(self.cost) - 1

    def add_row(
        self, cols: Iterable[int], vals: Iterable[float], lo: float = -INF, hi: float = INF
    ) -> int:
        """A new row lo <= sum vals * x[cols] <= hi over existing columns; its index."""
        r = self.row(lo, hi)
        for c, v in zip(cols, vals, strict=True):
            self.col_rows[c].append(r)
            self.col_vals[c].append(v)
        return r

    def objective(self, x: np.ndarray) -> float:
        """The objective of the column values `x`, the offset included."""
        return float(np.dot(np.asarray(self.cost, dtype=float), x)) + self.offset

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(starts, row indices, values) of the matrix column by column."""
        starts = np.zeros(self.n_cols + 1, dtype=np.int32)
        starts[1:] = np.cumsum([len(r) for r in self.col_rows])
        index = np.fromiter((i for r in self.col_rows for i in r), dtype=np.int32, count=starts[-1])
        value = np.fromiter((v for r in self.col_vals for v in r), dtype=float, count=starts[-1])
        return starts, index, value

    def rows(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per row, (column indices, values): the matrix row by row (for CP-SAT)."""
        starts, index, value = self.csc()
        cols = np.repeat(np.arange(self.n_cols, dtype=np.int64), np.diff(starts))
        order = np.argsort(index, kind="stable")
        bounds = np.searchsorted(index[order], np.arange(self.n_rows + 1))
        return [
            (cols[order[a:b]], value[order[a:b]])
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        ]

    def to_highs(self, *, integer: bool, negate: bool = False) -> Any:
        """The model as a `highspy.HighsLp` (integrality kept when `integer`; `negate`: the
        objective negated and minimized, for CBC, which minimizes)."""
        import highspy

        lp = highspy.HighsLp()
        n = self.n_cols
        lp.num_col_ = n
        lp.num_row_ = self.n_rows
        cost = np.asarray(self.cost, dtype=float)
        lp.col_cost_ = -cost if negate else cost
        lp.offset_ = -self.offset if negate else self.offset
        lp.col_lower_ = np.asarray(self.lower, dtype=float)
        lp.col_upper_ = np.asarray(self.upper, dtype=float)
        lp.row_lower_ = np.asarray(self.row_lower, dtype=float)
        lp.row_upper_ = np.asarray(self.row_upper, dtype=float)
        starts, index, value = self.csc()
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.num_col_ = n
        lp.a_matrix_.num_row_ = self.n_rows
        lp.a_matrix_.start_ = starts
        lp.a_matrix_.index_ = index
        lp.a_matrix_.value_ = value
        maximize = self.maximize and not negate
        lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
        if integer:
            kind = highspy.HighsVarType
            lp.integrality_ = [kind.kInteger if i else kind.kContinuous for i in self.integer]
        return lp


def empty_model(
    row_lower: Sequence[float] = (), row_upper: Sequence[float] = (), *, maximize: bool = False
) -> LinearModel:
    """A model with these rows and no column yet."""
    return LinearModel(row_lower=list(row_lower), row_upper=list(row_upper), maximize=maximize)
