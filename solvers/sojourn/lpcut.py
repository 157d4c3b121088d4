"""`lpcut`: exact A/B by HiGHS with triangle cuts separated on the LP relaxation first.

Per block (see `solvers.sojourn.lop`): variables x_ab in [0, 1] (a < b), objective
sum (W[a,b] - W[b,a]) x_ab / s + const with s = max |W[a,b] - W[b,a]| (so HiGHS's absolute
tolerances act on numbers of order 1, not 1e-5), and triangle rows for chosen triples.
1. LP rounds: solve the LP, add the triangle inequalities its solution violates most (up to
   CUTS_PER_ROUND(n) triples), repeat until none is violated or half the time is spent. Every
   row is a valid inequality of the ordering polytope, so no integer order is cut off.
2. A sound bound from the LP duals whatever HiGHS's tolerances: for y >= 0 on rows A x <= r
   and 0 <= x <= 1, d x >= sum_j min(0, (d + A^T y)_j) - y r (weak duality; theory/
   sojourn_cycles.py has the pair structure, `lagrangian_bound` the arithmetic).
3. The MIP on the cut model, started from the hint order (insertion descent on W), with an
   absolute gap below the proof tolerance; lazy rounds as in `lop.solve_block` if the integer
   solution still has a 3-cycle.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.lop import (
    RoundResult,
    Triple,
    insertion_descent,
    refuse_non_lop,
    solve_lop,
)
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING
from schedlab.solvers.sojourn.problem import SUBJECT, SojournProblem
from schedlab.solvers.solve import register_method

VIOL_TOL = 1e-7  # an LP triangle counts as violated above this (scaled units)
MAX_LP_ROUNDS = 200
LP_TIME_SHARE = 0.5  # at most this share of the block's time goes to LP rounds
PURGE_EVERY = 5  # LP rounds between deletions of clearly slack rows (deleting every round cycles)
PURGE_SLACK = 0.1
MIP_ROOT_FACTOR = 2.0  # a MIP needs at least this many LP-round times to be worth starting


def cuts_per_round(n: int) -> int:
    return max(2000, 20 * n)


def violated_cycles(Y: np.ndarray, limit: int) -> list[tuple[Triple, int]]:
    """Sorted triples (a<b<c) with the orientation whose 3-cycle inequality the fractional
    tournament Y violates, most violated first: kind 1 is a -> b -> c -> a
    (x_ab + x_bc - x_ac <= 1), kind 2 is a -> c -> b -> a (x_ac - x_ab - x_bc <= 0)."""
    n = Y.shape[0]
    found: dict[tuple[Triple, int], float] = {}
    for b in range(n):
        V = Y[:, b][:, None] + Y[b, :][None, :] + Y.T  # V[a, c] = y_ab + y_bc + y_ca
        V[b, :] = V[:, b] = 0.0
        np.fill_diagonal(V, 0.0)
        a_idx, c_idx = np.nonzero(V > 2.0 + VIOL_TOL)
        for a, c in zip(a_idx.tolist(), c_idx.tolist(), strict=True):
            t = sorted((a, b, c))
            rot = (a, b, c) in ((t[0], t[1], t[2]), (t[1], t[2], t[0]), (t[2], t[0], t[1]))
            found[(t[0], t[1], t[2]), 1 if rot else 2] = float(V[a, c]) - 2.0
    return sorted(found, key=lambda k: -found[k])[:limit]


class HighsCutModel:
    """One block's triangle model in HiGHS (highspy): LP cut rounds, then the MIP."""

    def __init__(self, Wb: np.ndarray, *, gap_abs: float, seed: int | None) -> None:
        import highspy

        self.hs = highspy
        self.n = n = Wb.shape[0]
        iu = np.triu_indices(n, 1)
        self.col = np.full((n, n), -1, dtype=np.int64)
        self.col[iu] = np.arange(len(iu[0]))
        self.iu = iu
        d = (Wb - Wb.T)[iu]
        self.s = float(np.max(np.abs(d))) if d.size and np.max(np.abs(d)) > 0 else 1.0
        self.d = d / self.s
        self.const = float(np.tril(Wb, -1).sum())
        self.gap_abs = gap_abs
        self.rows_cols: list[np.ndarray] = []
        self.rows_coef: list[np.ndarray] = []
        self.rows_rhs: list[np.ndarray] = []
        self.lp_done = False
        self.closed_by_lp = False
        self.lp_x: np.ndarray | None = None
        self.last_before: np.ndarray | None = None  # the last MIP solution's tournament
        self.last_lp_s = 0.0  # seconds of the last LP run (predicts the MIP's root LP)
        self.best_lb: float | None = None  # best Lagrangian bound over the LP rounds
        self.W = Wb
        h = self.h = highspy.Highs()
        for k, v in (("output_flag", False), ("primal_feasibility_tolerance", 1e-9),
                     ("dual_feasibility_tolerance", 1e-9), ("threads", 1)):  # fmt: skip
            h.setOptionValue(k, v)
        if seed is not None:
            h.setOptionValue("random_seed", int(seed) % 2**31)
        self.wall_deadline: float | None = None  # HiGHS runs are interrupted after this
        for hook in (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt):
            hook.subscribe(self._interrupt)
        P = len(self.d)
        h.addVars(P, np.zeros(P), np.ones(P))
        h.changeColsCost(P, np.arange(P, dtype=np.int32), self.d)

    def add_triangles(self, triples: Sequence[Triple]) -> None:
        """Both inequalities of each triple, or after a MIP solve only the one its tournament
        violates (the lazy rounds of `lop.solve_block`: half the rows)."""
        B = self.last_before
        if B is None:
            self.add_cycles([(t, kind) for t in triples for kind in (1, 2)])
            return
        # a -> b -> c -> a (kind 1) when a before b; else a -> c -> b -> a (kind 2)
        self.add_cycles([((a, b, c), 1 if B[a, b] else 2) for a, b, c in triples])

    def add_cycles(self, cycles: Sequence[tuple[Triple, int]]) -> None:
        """Rows kind 1: x_ab + x_bc - x_ac <= 1; kind 2: -x_ab - x_bc + x_ac <= 0."""
        if not cycles:
            return
        T = np.asarray([t for t, _ in cycles], dtype=np.int64).reshape(-1, 3)
        kind = np.asarray([k for _, k in cycles])
        cols = np.stack(
            [self.col[T[:, 0], T[:, 1]], self.col[T[:, 1], T[:, 2]], self.col[T[:, 0], T[:, 2]]], 1
        )
        sign = np.where(kind == 1, 1.0, -1.0)[:, None]
        coef = sign * np.array([1.0, 1.0, -1.0])[None, :]
        rhs = np.where(kind == 1, 1.0, 0.0)
        k = len(T)
        self.h.addRows(
            k, np.full(k, -self.hs.kHighsInf), rhs, 3 * k,
            np.arange(0, 3 * k, 3, dtype=np.int32), cols.ravel().astype(np.int32), coef.ravel(),
        )  # fmt: skip
        self.rows_cols.append(cols)
        self.rows_coef.append(coef)
        self.rows_rhs.append(rhs)

    def _tournament(self, x: np.ndarray) -> np.ndarray:
        Y = np.zeros((self.n, self.n))
        Y[self.iu] = x
        Y.T[self.iu] = 1.0 - x
        np.fill_diagonal(Y, 0.0)
        return Y

    def lagrangian_bound(self) -> float | None:
        """A sound lower bound on the block's pair cost from the current LP row duals."""
        sol = self.h.getSolution()
        if not sol.dual_valid or not self.rows_cols:
            return None
        y = np.maximum(0.0, -np.asarray(sol.row_dual, dtype=float))
        if len(y) != sum(len(r) for r in self.rows_rhs):
            return None
        cols, coef = np.concatenate(self.rows_cols), np.concatenate(self.rows_coef)
        red = self.d.copy()
        np.add.at(red, cols.ravel(), (coef * y[:, None]).ravel())
        lb = float(np.minimum(red, 0.0).sum() - y @ np.concatenate(self.rows_rhs))
        return self.const + self.s * lb - 1e-12 * (abs(self.const) + self.s * len(self.d))

    def _lp_rounds(self, deadline: float | None, target: float | None) -> dict[str, float]:
        """Cut rounds until no violated triangle, the deadline, or a Lagrangian bound that
        meets `target` (the incumbent's scaled cost within the MIP gap: proof without MIP)."""
        rounds = cuts = purged = 0
        self.h.setOptionValue("solver", "ipm")  # with crossover: a vertex and exact duals
        for rounds in range(1, MAX_LP_ROUNDS + 1):  # noqa: B007
            if deadline is not None:
                self._time_limit(deadline - time.perf_counter())
            t_run = time.perf_counter()
            self.h.run()
            if self.h.getModelStatus() != self.hs.HighsModelStatus.kOptimal:
                break  # stopped by time: keep the last optimal LP's solution and bound
            self.last_lp_s = time.perf_counter() - t_run
            x = np.asarray(self.h.getSolution().col_value, dtype=float)
            self.lp_x = x if len(x) == len(self.d) else None
            lb = self.lagrangian_bound()
            if lb is not None:
                self.best_lb = lb if self.best_lb is None else max(self.best_lb, lb)
                if target is not None and lb >= target:
                    self.closed_by_lp = True
                    break
            if self.lp_x is None:
                break
            new = violated_cycles(self._tournament(x), cuts_per_round(self.n))
            if not new or (deadline is not None and time.perf_counter() > deadline):
                break
            if rounds % PURGE_EVERY == 0:
                purged += self._purge_slack_rows()
            self.add_cycles(new)
            cuts += len(new)
        self.h.setOptionValue("solver", "choose")
        return {"lp_rounds": rounds, "lp_cuts": cuts, "lp_rows_purged": purged}

    def _start_before(self, x: np.ndarray | None) -> np.ndarray | None:
        if x is None:
            return None
        before = self._tournament(x) > 0.5
        np.fill_diagonal(before, False)
        return before

    def _interrupt(self, event: Any) -> None:
        """HiGHS callback: stop a run past the wall-clock deadline (its own time limit is
        not checked inside a long root LP or presolve)."""
        # the flag persists between runs: set it either way
        event.interrupt(self.wall_deadline is not None and time.perf_counter() > self.wall_deadline)

    def _time_limit(self, seconds: float) -> None:
        """HiGHS's time limit counts the run time of every run of this object: add it; the
        interrupt callbacks enforce the same deadline on the wall clock."""
        self.h.setOptionValue("time_limit", float(self.h.getRunTime()) + max(seconds, 0.01))
        self.wall_deadline = time.perf_counter() + max(seconds, 0.01)

    def _lp_order_x(self) -> np.ndarray | None:
        """0/1 vector of the order that ranks jobs by their LP 'before' mass, improved by
        insertion descent (an incumbent; exact when the LP solution is integral)."""
        if self.lp_x is None:
            return None
        Y = self._tournament(self.lp_x)
        order = [int(i) for i in np.argsort(-Y.sum(axis=1), kind="stable")]
        order = insertion_descent(self.W, order)
        pos = np.empty(self.n, dtype=np.int64)
        pos[np.asarray(order, dtype=np.int64)] = np.arange(self.n)
        return (pos[self.iu[0]] < pos[self.iu[1]]).astype(float)

    def _purge_slack_rows(self) -> int:
        """Delete rows that are slack at the LP optimum with a zero dual: the current solution
        stays optimal without them (KKT), so no bound is lost; separation re-adds them if
        they are violated later. Keeps each LP small (HiGHS's iterations slow with rows)."""
        if not self.rows_cols:
            return 0
        sol = self.h.getSolution()
        rhs = np.concatenate(self.rows_rhs)
        slack = rhs - np.asarray(sol.row_value, dtype=float)
        drop = (slack > PURGE_SLACK) & (np.abs(np.asarray(sol.row_dual, dtype=float)) < 1e-12)
        if drop.sum() < max(1000, len(rhs) // 4):
            return 0
        self.h.deleteRows(int(drop.sum()), np.nonzero(drop)[0].astype(np.int32))
        keep = ~drop
        self.rows_cols = [np.concatenate(self.rows_cols)[keep]]
        self.rows_coef = [np.concatenate(self.rows_coef)[keep]]
        self.rows_rhs = [rhs[keep]]
        return int(drop.sum())

    def solve(self, time_left: float | None, hint: Sequence[int] | None) -> RoundResult:
        t0 = time.perf_counter()
        stats: dict[str, float] = {}
        lp_bound = None
        start_x = None
        if hint is not None:
            pos = np.empty(self.n, dtype=np.int64)
            pos[np.asarray(hint, dtype=np.int64)] = np.arange(self.n)
            start_x = (pos[self.iu[0]] < pos[self.iu[1]]).astype(float)
        if not self.lp_done:
            lp_deadline = None if time_left is None else t0 + LP_TIME_SHARE * time_left
            target = None
            if start_x is not None:  # the hint's cost less the MIP's absolute gap
                target = self.const + self.s * float(self.d @ start_x) - self.gap_abs
            stats.update(self._lp_rounds(lp_deadline, target))
            lp_bound = self.best_lb
            lp_x = self._lp_order_x()
            if lp_x is not None and (start_x is None or self.d @ lp_x < self.d @ start_x):
                start_x = lp_x  # the rounded LP order is the better incumbent
                stats["lp_incumbent"] = 1
            if lp_bound is not None and start_x is not None:
                cost = self.const + self.s * float(self.d @ start_x)
                self.closed_by_lp |= lp_bound >= cost - self.gap_abs
            if self.closed_by_lp and start_x is not None:
                stats["closed_by_lp"] = 1
                return RoundResult(self._start_before(start_x), True, lp_bound, stats)
            self.lp_done = True
            P = len(self.d)
            self.h.changeColsIntegrality(
                P, np.arange(P, dtype=np.int32), np.ones(P, dtype=np.uint8)
            )
            self.h.setOptionValue("mip_rel_gap", 0.0)
            self.h.setOptionValue("mip_abs_gap", self.gap_abs / self.s)
        if start_x is not None:
            start = self.hs.HighsSolution()
            start.col_value = start_x.tolist()
            self.h.setSolution(start)
        if time_left is not None:
            left = time_left - (time.perf_counter() - t0)
            # a MIP's presolve and root are not always interruptible: skip one that would overrun
            if left <= max(0.01, MIP_ROOT_FACTOR * self.last_lp_s):
                stats["mip_skipped_for_time"] = 1
                return RoundResult(self._start_before(start_x), False, lp_bound, stats)
            self._time_limit(left)
        self.h.run()
        info = self.h.getInfo()
        status = self.h.getModelStatus()
        proven = status == self.hs.HighsModelStatus.kOptimal
        x = np.asarray(self.h.getSolution().col_value, dtype=float)
        has = len(x) == len(self.d) and math.isfinite(float(info.objective_function_value))
        found: np.ndarray | None = None
        if has and info.primal_solution_status == 2:  # kSolutionStatusFeasible
            found = self._tournament(x) > 0.5
            np.fill_diagonal(found, False)
        dual = float(info.mip_dual_bound)
        bound = self.const + self.s * dual if math.isfinite(dual) else None
        if lp_bound is not None:
            bound = lp_bound if bound is None else max(bound, lp_bound)
        stats["mip_nodes"] = int(info.mip_node_count)
        self.last_before = found
        return RoundResult(found, proven, bound, stats)


@dataclass(frozen=True)
class LpcutOptions:
    """Options of `lpcut`."""

    decompose: bool = field(
        default=True, metadata={"help": "solve the preference blocks separately"}
    )
    warm_start: bool = field(
        default=True,
        metadata={"help": "start each block from an insertion-descent order (MIP start)"},
    )


@register_method(
    SUBJECT,
    "lpcut",
    exact=True,
    kinds=LINEAR_ORDERING,
    options=LpcutOptions,
    summary="HiGHS with triangle cuts separated on the LP first (scaled), A and B",
)
def solve_lpcut(
    problem: SojournProblem,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: LpcutOptions,
) -> SolveResult[list[str]]:
    """Exact A or B: LP triangle separation, a sound dual bound, then the MIP (lazy rounds)."""
    from schedlab.solvers.sojourn.milp import _gap_abs

    inst, objective = problem.instance, problem.objective
    refuse_non_lop(objective, "lpcut")
    t0 = time.perf_counter()
    gap_abs = _gap_abs(inst, objective)
    res = solve_lop(
        inst,
        objective,
        "lpcut",
        lambda Wb: HighsCutModel(Wb, gap_abs=gap_abs, seed=seed),
        time_limit=time_limit,
        triangles="separate",
        decompose=options.decompose,
        warm_start=options.warm_start,
        extra_stats={"decompose": options.decompose, "warm_start": options.warm_start},
    )
    return replace(res, runtime_s=time.perf_counter() - t0)
