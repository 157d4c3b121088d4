"""One neutral form of a mixed-integer linear model, built once by a subject and handed to a
MILP back end (HiGHS in process, or the CBC binary: `kit.mip`) or to CP-SAT (`kit.cpsat`).

Columns carry a cost, bounds and integrality; rows are lower <= sum a x <= upper; the matrix is
kept column by column (what HiGHS takes), and rows are added either empty and filled by the
columns that name them (`row`, `add_col`) or whole (`add_row`). `offset` is the objective's
constant. CP-SAT takes the same model when every bound and coefficient is an integer (a
subject writes its data in integer units for it: ticks, scaled costs).

`CscModel` is the same model given whole as arrays, for a subject that builds one structure
many times (a model per simulated round): it skips the Python loop over columns, and HiGHS
receives from it exactly what `LinearModel.to_highs` hands over for the same columns and rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

INF = math.inf


class _ModelShape:
    """What `LinearModel` and `CscModel` share: their sizes and objective, read from the
    columns' costs and the rows' lower bounds (lists in one, arrays in the other)."""

    cost: Sequence[float] | np.ndarray
    row_lower: Sequence[float] | np.ndarray
    offset: float

    @property
    def n_cols(self) -> int:
        return len(self.cost)

    @property
    def n_rows(self) -> int:
        return len(self.row_lower)

    def objective(self, x: np.ndarray) -> float:
        """The objective of the column values `x`, the offset included."""
        return float(np.dot(np.asarray(self.cost, dtype=float), x)) + self.offset


@dataclass
class LinearModel(_ModelShape):
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

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(starts, row indices, values) of the matrix column by column."""
        starts = np.zeros(self.n_cols + 1, dtype=np.int32)
        starts[1:] = np.cumsum([len(r) for r in self.col_rows])
        n = int(starts[-1])
        index = np.fromiter(chain.from_iterable(self.col_rows), dtype=np.int32, count=n)
        value = np.fromiter(chain.from_iterable(self.col_vals), dtype=float, count=n)
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
        return _highs_lp(self, self.csc(), self.integer, integer=integer, negate=negate)


@dataclass(frozen=True, eq=False)
class CscModel(_ModelShape):
    """A whole model as arrays: columns (cost, bounds, integrality) and the matrix column by
    column (`starts`, n_cols + 1 offsets into the row `index` and `value` arrays, as
    `LinearModel.csc` returns), rows lower <= sum a x <= upper; `integer`: per column
    (None: every column integer, `add_col`'s default). Same interface as `LinearModel` for
    the solvers (`to_highs`, `objective`, `n_cols`, `maximize`)."""

    cost: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    starts: np.ndarray
    index: np.ndarray
    value: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    integer: np.ndarray | None = None
    maximize: bool = False
    offset: float = 0.0

    def __post_init__(self) -> None:
        n, m = len(self.cost), len(self.row_lower)
        sizes = {"lower": (self.lower, n), "upper": (self.upper, n),
                 "starts": (self.starts, n + 1), "row_upper": (self.row_upper, m)}  # fmt: skip
        if self.integer is not None:
            sizes["integer"] = (self.integer, n)
        for name, (arr, want) in sizes.items():
            if len(arr) != want:
                raise ValueError(f"CscModel.{name}: {len(arr)} entries, expected {want}")
        nnz = int(self.starts[-1]) if n + 1 == len(self.starts) else 0
        for name, arr in (("index", self.index), ("value", self.value)):
            if len(arr) != nnz:
                raise ValueError(
                    f"CscModel.{name}: {len(arr)} entries, expected starts[-1] = {nnz}"
                )

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(starts, row indices, values) of the matrix column by column."""
        return self.starts, self.index, self.value

    def to_highs(self, *, integer: bool, negate: bool = False) -> Any:
        """The model as a `highspy.HighsLp` (as `LinearModel.to_highs`)."""
        kinds = [True] * self.n_cols if self.integer is None else self.integer.tolist()
        return _highs_lp(self, self.csc(), kinds, integer=integer, negate=negate)


def _highs_lp(
    model: LinearModel | CscModel,
    csc: tuple[np.ndarray, np.ndarray, np.ndarray],
    kinds: Sequence[bool],
    *,
    integer: bool,
    negate: bool,
) -> Any:
    """The `highspy.HighsLp` of a model: its columns, rows, matrix `csc` and, when `integer`,
    the integrality `kinds` per column; `negate`: objective negated and minimized."""
    import highspy

    lp = highspy.HighsLp()
    n = model.n_cols
    lp.num_col_ = n
    lp.num_row_ = model.n_rows
    cost = np.asarray(model.cost, dtype=float)
    lp.col_cost_ = -cost if negate else cost
    lp.offset_ = -model.offset if negate else model.offset
    lp.col_lower_ = np.asarray(model.lower, dtype=float)
    lp.col_upper_ = np.asarray(model.upper, dtype=float)
    lp.row_lower_ = np.asarray(model.row_lower, dtype=float)
    lp.row_upper_ = np.asarray(model.row_upper, dtype=float)
    starts, index, value = csc
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = n
    lp.a_matrix_.num_row_ = model.n_rows
    # integer vectors as lists: highspy copies a numpy array of them item by item (slowly),
    # float vectors as arrays (copied whole); the same numbers reach HiGHS either way
    lp.a_matrix_.start_ = np.asarray(starts).tolist()
    lp.a_matrix_.index_ = np.asarray(index).tolist()
    lp.a_matrix_.value_ = np.asarray(value, dtype=float)
    maximize = model.maximize and not negate
    lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    if integer:
        kind = highspy.HighsVarType
        lp.integrality_ = [kind.kInteger if i else kind.kContinuous for i in kinds]
    return lp


def empty_model(
    row_lower: Sequence[float] = (), row_upper: Sequence[float] = (), *, maximize: bool = False
) -> LinearModel:
    """A model with these rows and no column yet."""
    return LinearModel(row_lower=list(row_lower), row_upper=list(row_upper), maximize=maximize)
