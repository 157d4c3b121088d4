"""lpcut's LP rounds: solve the LP, round it, separate, repeat until the bound meets the order.

Each round solves the LP by the block's solver (the interior point without crossover, each LP
from scratch, or the dual simplex from the previous round's basis), raises the bound from its
duals (`lagrangian_bound`), offers its rounded order and adds the violated rows
(`separation.separate`). Rows slack at the LP optimum are deleted until the rounds stall. A
round may change solver: a slow dual simplex round hands the rest to the interior point
(`_simplex_cap`), a first round with many rows runs by the interior point with crossover
(`_crossover_round`), an interior point round without an answer is retried by the simplex
(`_round_verdict`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Literal

import numpy as np

from schedlab.solvers.lop.core import rounded_order
from schedlab.solvers.lop.lpcut.options import LpcutTuning, LpSolver
from schedlab.solvers.lop.lpcut.primal import PrimalSide
from schedlab.solvers.lop.lpcut.separation import separate
from schedlab.solvers.validate import NO_DEADLINE, Deadline

Verdict = Literal["optimal", "imprecise", "retry", "stop"]


@dataclass
class RoundCounts:
    """What the LP rounds of one block did (their stats)."""

    rounds: int = 0
    cuts: int = 0
    purged: int = 0
    general: int = 0
    fallback: int = 0
    imprecise: int = 0
    crossovers: int = 0
    stall_tried: bool = False  # the one general round of `stall_general` ran
    probe_closed: int = 0  # `stall_probe` closed the block before that round


class LpRounds(PrimalSide):
    """The LP rounds of one block and the choice of their HiGHS solver round by round."""

    def __init__(
        self, Wb: np.ndarray, *, seed: int | None, tuning: LpcutTuning, close_abs: float
    ) -> None:
        super().__init__(Wb, seed=seed, tuning=tuning, close_abs=close_abs)
        self.lp_solver: LpSolver = "ipm"  # the LP rounds' HiGHS solver (`pick_lp_solver`)
        self.simplex_ref_s_per_row: float | None = None  # first simplex round's s per row
        self.ipm_switched = False  # the rounds switched to the interior point
        self.crossover_checked = False  # the first round with rows has been judged
        self.last_lp_s = 0.0  # seconds of the slowest LP run (predicts the MIP's root LP,
        # which starts from scratch: a warm-started simplex round can take 1% of it)

    def lp_rounds(self, deadline: Deadline = NO_DEADLINE) -> dict[str, float]:
        """Cut rounds by `self.lp_solver` until the Lagrangian bound meets the best order
        (proof without MIP), no triangle is violated, the rounds stall, or the deadline."""
        c = RoundCounts()
        own: list[float] = []  # the best of this phase's own Lagrangian bounds, per round
        self.set_options(solver=self.lp_solver, run_crossover="off")
        self.ipm_tolerance(self.tuning.ipm_optimality_tol)
        for c.rounds in range(1, self.tuning.max_lp_rounds + 1):  # noqa: B007
            if deadline.passed():
                break
            x = self._run_round(deadline, c)
            if isinstance(x, str):
                if x == "stop":
                    break
                continue  # "again": the same round by another solver
            if self._round_step(deadline, x, own, c):
                break
        self.set_options(solver="choose", run_crossover="on")
        return {"lp_rounds": c.rounds, "lp_cuts": c.cuts, "lp_general_cuts": c.general,
                "lp_rows_purged": c.purged, "lp_stalled": int(self.lp_stalled),
                "lp_ipm_fallbacks": c.fallback, "lp_ipm_imprecise": c.imprecise,
                "lp_stall_general": int(c.stall_tried), "stall_probe_s": self.stall_probe_s,
                "lp_stall_probe_closed": c.probe_closed,
                "lp_ipm_switched": int(self.ipm_switched),
                "lp_crossover_rounds": c.crossovers}  # fmt: skip

    def _run_round(
        self, deadline: Deadline, c: RoundCounts
    ) -> np.ndarray | Literal["again", "stop"]:
        """Run one LP round: its point, "again" to run the round again (by another solver), or
        "stop" (stopped by time, or no point)."""
        cap = self._simplex_cap()
        self.time_limit(deadline, cap)
        crossover = self._crossover_round()
        c.crossovers += crossover
        t0 = time.perf_counter()
        self.h.run()
        t_run = time.perf_counter() - t0
        self.lp_s += t_run
        if crossover and not self._end_crossover_round(deadline):
            c.fallback += 1
            return "again"  # by the dual simplex
        if cap is not None and self.stopped_by_cap(deadline):
            self._switch_to_ipm()
            return "again"  # by the interior point
        self._note_simplex_ref(t_run)
        # the slowest round, even one stopped by time, sizes the MIP's root (docs/lop.md)
        self.last_lp_s = max(self.last_lp_s, t_run)
        verdict = self._round_verdict(deadline)
        if verdict == "retry":
            c.fallback += 1
            return "again"
        if verdict == "stop":
            return "stop"  # stopped by time: keep the last optimal LP's bound
        c.imprecise += verdict == "imprecise"
        x = np.asarray(self.h.getSolution().col_value, dtype=float)
        return x if len(x) == len(self.d) else "stop"

    def _round_step(
        self, deadline: Deadline, x: np.ndarray, own: list[float], c: RoundCounts
    ) -> bool:
        """Bound, rounding, stall check and separation after a solved round; True to stop."""
        lb = self.lagrangian_bound()
        if lb is not None:
            self.raise_bound(lb)
        own.append(max(own[-1] if own else -math.inf, -math.inf if lb is None else lb))
        Y = self.tournament(x)
        t = time.perf_counter()
        self.offer(rounded_order(self.W, Y))
        self.search_s += time.perf_counter() - t
        if self.closed():
            self.closed_by_lp = True
            return True
        general_now = False
        k = self.tuning.lp_stall_rounds
        if len(own) > k and own[-1] - own[-1 - k] < self.close_abs:
            if not self.tuning.stall_general or c.stall_tried:
                self.lp_stalled = True
                return True
            if self.stall_probe(deadline):
                c.probe_closed = 1
                return True
            # crossing blocks: one round of the most violated triangles first (docs/lop.md)
            c.stall_tried = general_now = True
            own.clear()
        assert self.order is not None
        new, general = separate(Y, self.order, self.D, self.tuning, general_now)
        c.general += general
        if not len(new) or deadline.passed():
            return True
        if not c.stall_tried:  # after a stall, deleted rows came back round after round
            c.purged += self.purge_slack_rows()
        self.add_cycle_rows(new)
        c.cuts += len(new)
        return False

    def _crossover_round(self) -> bool:
        """Whether this round, the block's first with rows, runs by the interior point with
        crossover in place of the dual simplex from the slack basis (`crossover_min_rows_per_n`
        set, at least that many rows per vertex): the crossover's basis warm-starts the dual
        simplex rounds after it, and its seconds per row are `_simplex_cap`'s reference."""
        per_n, rows = self.tuning.crossover_min_rows_per_n, self.h.getNumRow()
        if per_n is None or self.crossover_checked or self.lp_solver != "simplex" or not rows:
            return False
        self.crossover_checked = True
        if rows < per_n * self.n:
            return False
        self.set_options(solver="ipm", run_crossover="on")
        self.ipm_tolerance(None)
        return True

    def _end_crossover_round(self, deadline: Deadline) -> bool:
        """Back to the dual simplex after `_crossover_round`; False (the round to be run again
        by the dual simplex) if the interior point did not end optimal and time is left."""
        self.set_options(solver="simplex", run_crossover="off")
        self.ipm_tolerance(self.tuning.ipm_optimality_tol)
        return self.optimal() or deadline.passed()

    def _simplex_cap(self) -> float | None:
        """Seconds the next round may take before it is handed to the interior point: with
        `ipm_switch_ratio` set, while the dual simplex runs, that many times the block's first
        round's seconds per cut row (at least `ipm_switch_floor_s`); else None, and None for
        that first round itself. A ratio of two times measured moments apart on one machine:
        the rule does not depend on the machine's speed."""
        ratio, ref = self.tuning.ipm_switch_ratio, self.simplex_ref_s_per_row
        if ratio is None or ref is None or self.ipm_switched or self.lp_solver != "simplex":
            return None
        return max(self.tuning.ipm_switch_floor_s, ratio * ref * self.h.getNumRow())

    def _note_simplex_ref(self, t_run: float) -> None:
        """Keep the first completed dual simplex round's seconds per cut row (`_simplex_cap`);
        the run on an LP without rows does not count."""
        rows = self.h.getNumRow()
        if self.simplex_ref_s_per_row is None and self.lp_solver == "simplex" and rows > 0:
            self.simplex_ref_s_per_row = t_run / rows

    def _switch_to_ipm(self) -> None:
        """The block's remaining LP rounds by the interior point (once)."""
        self.ipm_switched = True
        self.lp_solver = "ipm"
        self.h.setOptionValue("solver", "ipm")

    def _round_verdict(self, deadline: Deadline) -> Verdict:
        """What an LP round's end allows: "optimal"; "imprecise", an interior point that ended
        kUnknown with duals, used as they are where the interior point is preferred (crossing
        blocks): any duals >= 0 give a sound Lagrangian bound and any point a separation and a
        rounding; "retry" by the dual simplex where such a round has no duals; else "stop"."""
        if self.optimal():
            return "optimal"
        pref = self.tuning.lp_solver == "ipm" or self.ipm_switched
        if self.lp_solver != "ipm" or not pref or deadline.passed():
            return "stop"
        status = self.h.getModelStatus()
        if status == self.hs.HighsModelStatus.kUnknown and self.h.getSolution().dual_valid:
            return "imprecise"
        self.lp_solver = "simplex"
        self.h.setOptionValue("solver", "simplex")
        return "retry"
