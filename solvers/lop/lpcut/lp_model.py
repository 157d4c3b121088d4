"""lpcut's LP model of one block in HiGHS: columns, 3-cycle rows, and the sound dual bound.

Variables x_ab in [0, 1] (a < b), objective sum (W[a,b] - W[b,a]) x_ab / s + const with
s = max |W[a,b] - W[b,a]| (so HiGHS's absolute tolerances act on numbers of order 1, not 1e-5),
and triangle rows for chosen triples, kept in HiGHS and in stored copies (the copies give the
Lagrangian bound `lagrangian_value`, sound whatever HiGHS's tolerances).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedlab.solvers.kit.mip import interrupt_after
from schedlab.solvers.lop.core import Triple, pairwise_min_bound
from schedlab.solvers.lop.lpcut.options import LpcutTuning
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc, solver_seed

FULL_BYTES_PER_ROW = 300  # memory of one triangle row: stored copy, HiGHS's LP and MIP copies
IPM_DEFAULT_OPT_TOL = 1e-8  # HiGHS's own ipm_optimality_tolerance, for the runs not tuned


def lagrangian_value(
    d: np.ndarray,
    s: float,
    const: float,
    cols: np.ndarray,
    coef: np.ndarray,
    rhs: np.ndarray,
    y: np.ndarray,
    fixed: np.ndarray | None = None,
) -> float:
    """const + s (sum_j min(0, (d + A^T y)_j) - y r) for 3-term rows A (cols, coef = +-1, rhs)
    and y >= 0, minus a rigorous bound on its floating-point error: a lower bound on every
    order's pair cost C + sum_j D_j x_j whenever d = D / s up to rounding and const = C
    correctly rounded (weak duality holds for any y >= 0; only the arithmetic can err).
    `fixed` (per column: -1 free in [0, 1], 0 or 1 fixed there): column j's term is then
    red_j x_j, a lower bound over the orders that respect the fixed pairs only (the forced
    pairs of a crossing problem, which every optimal order respects: `lop.graph`).

    Error analysis (u = 2^-53, standard model): d_j carries at most 3u|d_j| relative to D_j / s;
    column j's reduced cost sums 1 + k_j terms in order (np.add.at), error at most
    gamma_{k_j} (|d_j| + sum of its |y_i|); both sums are math.fsum (correctly rounded) and
    y_i r_i is exact (r in {0, 1}); the rest are single roundings. The margin takes the largest
    k_j for every column and doubles each term's coefficient (docs/lop.md has the margin's
    size against the closing slack)."""
    red = d.copy()
    np.add.at(red, cols.ravel(), (coef * y[:, None]).ravel())
    term = np.minimum(red, 0.0)
    if fixed is not None:
        term = np.where(fixed == 1, red, np.where(fixed == 0, 0.0, term))
    s1 = math.fsum(term.tolist())
    s2 = math.fsum((y * rhs).tolist())
    lb = s1 - s2
    value = const + s * lb
    k = int(np.bincount(cols.ravel()).max()) if cols.size else 0
    u = 2.0**-53
    gamma = 2.0 * (k + 8) * u  # covers gamma_k = k u / (1 - k u) and the single roundings
    scale = s * (4.0 * float(np.abs(d).sum()) + 3.0 * float(y.sum()) + 2.0 * abs(s1)
                 + 2.0 * abs(s2) + 3.0 * abs(lb)) + 2.0 * abs(const) + abs(value)  # fmt: skip
    return value - gamma * scale


class CutLp:
    """One block's triangle LP in HiGHS (highspy): its columns, its cut rows (in HiGHS and
    stored), the forced pairs fixed, the time limits of its runs and its Lagrangian bound."""

    def __init__(self, Wb: np.ndarray, *, seed: int | None, tuning: LpcutTuning) -> None:
        import highspy

        self.tuning = tuning
        self.seed = seed
        self.hs = highspy
        self.W = Wb
        self.n = n = Wb.shape[0]
        iu = np.triu_indices(n, 1)
        self.col = np.full((n, n), -1, dtype=np.int64)
        self.col[iu] = np.arange(len(iu[0]))
        self.iu = iu
        d = (Wb - Wb.T)[iu]
        self.s = float(np.max(np.abs(d))) if d.size and np.max(np.abs(d)) > 0 else 1.0
        self.d = d / self.s
        self.D = (Wb - Wb.T) / self.s
        self.const = math.fsum(np.tril(Wb, -1).ravel())  # correctly rounded: the bound's margin
        self.rows_cols: list[np.ndarray] = []
        self.rows_coef: list[np.ndarray] = []
        self.rows_rhs: list[np.ndarray] = []
        self.pair_min = pairwise_min_bound(Wb)
        h = self.h = highspy.Highs()
        for k, v in (("output_flag", False), ("primal_feasibility_tolerance", 1e-9),
                     ("dual_feasibility_tolerance", 1e-9), ("threads", 1)):  # fmt: skip
            h.setOptionValue(k, v)
        if seed is not None:
            h.setOptionValue("random_seed", solver_seed(seed))
        self.wall_deadline = NO_DEADLINE  # HiGHS runs are interrupted after this
        interrupt_after(h, lambda: self.wall_deadline)
        P = len(self.d)
        h.addVars(P, np.zeros(P), np.ones(P))
        h.changeColsCost(P, np.arange(P, dtype=np.int32), self.d)
        self.fixed: np.ndarray | None = None  # per column -1 (free), 0 or 1 (`fix_forced`)

    def fix_forced(self, forced: np.ndarray) -> None:
        """Fix x_ab (a < b) to 1 where forced[a, b] (a precedes b in every optimal order) and
        to 0 where forced[b, a]: the LP and MIP range over those orders only, and the
        Lagrangian bound counts fixed columns at their values (`lagrangian_value`)."""
        a, b = self.iu
        fixed = np.where(forced[a, b], 1, np.where(forced[b, a], 0, -1)).astype(np.int8)
        idx = np.nonzero(fixed >= 0)[0]
        if len(idx):
            v = fixed[idx].astype(float)
            self.h.changeColsBounds(len(idx), idx.astype(np.int32), v, v)
        self.fixed = fixed

    def add_cycles(self, cycles: Sequence[tuple[Triple, int]]) -> None:
        """Rows kind 1: x_ab + x_bc - x_ac <= 1; kind 2: -x_ab - x_bc + x_ac <= 0."""
        if not cycles:
            return
        T = np.asarray([t for t, _ in cycles], dtype=np.int64).reshape(-1, 3)
        kind2 = np.asarray([k for _, k in cycles]) == 2
        T[kind2] = T[kind2][:, [0, 2, 1]]  # kind 2 is the cycle a -> c -> b -> a
        self.add_cycle_rows(T)

    def add_cycle_rows(self, C: np.ndarray) -> None:
        """For each row (a, b, c) of C the 3-cycle inequality y_ab + y_bc + y_ca <= 2, with
        y_uv = x_uv for u < v and 1 - x_vu otherwise."""
        if not len(C):
            return
        U = C.astype(np.int64)
        V = U[:, [1, 2, 0]]
        fwd = U < V
        cols = self.col[np.minimum(U, V), np.maximum(U, V)]
        coef = np.where(fwd, 1.0, -1.0)
        rhs = 2.0 - (~fwd).sum(axis=1)
        self._load_rows(cols, coef, rhs)
        self.rows_cols.append(cols)
        self.rows_coef.append(coef)
        self.rows_rhs.append(rhs)

    def _load_rows(self, cols: np.ndarray, coef: np.ndarray, upper: np.ndarray) -> None:
        """Append 3-term rows (k, 3 columns and coefficients) <= upper to HiGHS's LP."""
        k = len(upper)
        self.h.addRows(
            k, np.full(k, -self.hs.kHighsInf), upper, 3 * k,
            np.arange(0, 3 * k, 3, dtype=np.int32), cols.ravel().astype(np.int32), coef.ravel(),
        )  # fmt: skip

    def set_rhs(self, upper: np.ndarray) -> None:
        """Give HiGHS's cut rows the right-hand sides `upper` (highspy 1.12 has no vectorized
        row-bound change: delete and reload); the stored rows, and so `lagrangian_bound`, keep
        their own."""
        k = len(upper)
        self.h.deleteRows(k, np.arange(k, dtype=np.int32))
        self._load_rows(np.concatenate(self.rows_cols), np.concatenate(self.rows_coef), upper)

    def add_all_triangles(self, deadline: Deadline) -> bool:
        """Replace the cut rows by every 3-cycle inequality (both orientations of every
        triple: the textbook model); False if the deadline passed while adding them."""
        n = self.n
        rows = n * (n - 1) * (n - 2) / 3
        check_alloc(FULL_BYTES_PER_ROW * rows, f"the full triangle model of a block of {n} jobs",
                    fix="use route 'lp' or 'packing' (lazy rows)")  # fmt: skip
        self.keep_rows(np.zeros(sum(len(r) for r in self.rows_rhs), dtype=bool))
        for a in range(n - 2):
            if deadline.passed():
                return False
            b, c = np.triu_indices(n - a - 1, 1)
            T = np.stack([np.full(len(b), a), b + a + 1, c + a + 1], axis=1)
            self.add_cycle_rows(np.concatenate([T, T[:, [0, 2, 1]]]))
        return True

    def purge_slack_rows(self) -> int:
        """Delete rows slack by more than the tuning's `purge_slack` at the LP optimum: the LP
        stays a relaxation of the full model (the bound of every round is computed before),
        and separation re-adds a row that is violated later. Keeps each LP small."""
        if not self.rows_cols:
            return 0
        rhs = np.concatenate(self.rows_rhs)
        slack = rhs - np.asarray(self.h.getSolution().row_value, dtype=float)
        if len(slack) != len(rhs):
            return 0
        return self.keep_rows(slack <= self.tuning.purge_slack)

    def keep_rows(self, keep: np.ndarray) -> int:
        """Delete the cut rows where `keep` is False, in HiGHS and in the stored copies (the
        LP stays a relaxation: every row is a valid inequality); returns how many."""
        drop = ~np.asarray(keep, dtype=bool)
        if not self.rows_cols or not drop.any():
            return 0
        self.h.deleteRows(int(drop.sum()), np.nonzero(drop)[0].astype(np.int32))
        self.rows_cols = [np.concatenate(self.rows_cols)[~drop]]
        self.rows_coef = [np.concatenate(self.rows_coef)[~drop]]
        self.rows_rhs = [np.concatenate(self.rows_rhs)[~drop]]
        return int(drop.sum())

    def tournament(self, x: np.ndarray) -> np.ndarray:
        """The fractional tournament Y of a point x (Y[a, b]: share of a before b)."""
        Y = np.zeros((self.n, self.n))
        Y[self.iu] = x
        Y.T[self.iu] = 1.0 - x
        np.fill_diagonal(Y, 0.0)
        return Y

    def before_of(self, x: np.ndarray | None) -> np.ndarray | None:
        """The tournament (a before b) of an integer point x, None for None."""
        if x is None:
            return None
        before = self.tournament(x) > 0.5
        np.fill_diagonal(before, False)
        return before

    def x_of(self, order: Sequence[int]) -> np.ndarray:
        """The point of an order (x_ab = 1 when a precedes b)."""
        pos = np.empty(self.n, dtype=np.int64)
        pos[np.asarray(order, dtype=np.int64)] = np.arange(self.n)
        return (pos[self.iu[0]] < pos[self.iu[1]]).astype(float)

    def lagrangian_bound(self) -> float | None:
        """A sound lower bound on the block's pair cost from the current LP row duals."""
        sol = self.h.getSolution()
        if not sol.dual_valid or not self.rows_cols:
            return None
        y = np.maximum(0.0, -np.asarray(sol.row_dual, dtype=float))
        if len(y) != sum(len(r) for r in self.rows_rhs):
            return None
        cols, coef = np.concatenate(self.rows_cols), np.concatenate(self.rows_coef)
        return lagrangian_value(self.d, self.s, self.const, cols, coef,
                                np.concatenate(self.rows_rhs), y, self.fixed)  # fmt: skip

    def time_limit(self, deadline: Deadline, cap: float | None = None) -> None:
        """HiGHS's time limit for the next run: the deadline's time left, or `cap` seconds if
        sooner (none: no limit). It counts the run time of every run of this object: add it;
        the interrupt callbacks enforce the deadline on the wall clock."""
        left = deadline.remaining(floor=0.01)  # HiGHS's one conversion
        limits = [t for t in (left, cap) if t is not None]
        base = float(self.h.getRunTime())
        self.h.setOptionValue("time_limit", base + min(limits) if limits else self.hs.kHighsInf)
        self.wall_deadline = deadline

    def stopped_by_cap(self, deadline: Deadline) -> bool:
        """The last run hit HiGHS's time limit before the deadline (a `cap` of `time_limit`)."""
        hit = self.h.getModelStatus() == self.hs.HighsModelStatus.kTimeLimit
        return hit and not deadline.passed()

    def optimal(self) -> bool:
        """The last run ended optimal."""
        return bool(self.h.getModelStatus() == self.hs.HighsModelStatus.kOptimal)

    def ipm_tolerance(self, tol: float | None) -> None:
        """HiGHS's interior point optimality tolerance for the runs that follow: `tol`, or
        HiGHS's default with None (crossover rounds and the MIP keep the default)."""
        self.h.setOptionValue("ipm_optimality_tolerance", tol or IPM_DEFAULT_OPT_TOL)

    def set_options(self, **values: Any) -> None:
        """Set HiGHS options by name, in the order given."""
        for k, v in values.items():
            self.h.setOptionValue(k, v)
