"""lpcut's block model: the route of a block, then its LP phase and the MIP hand-off.

Routes (option `route`, per preference block): "packing" is the cycle packing, then the LP
rounds, then the MIP; "lp" is the LP rounds, then the MIP; "full" writes every triangle row and
goes to the MIP; "auto" (the default) picks per block in `HighsCutModel.pick_route` from the
block's starting order. Whatever the route, a block's bound is the Lagrangian or packing bound
computed from duals (or HiGHS's MIP dual bound), and the status is `certify`'s. The package's
docstring (`lop.lpcut`) has the whole story.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.core import (
    INTEGER_SLACK,
    ModelFactory,
    RoundResult,
    Triple,
    block_gap_abs,
    block_slacks,
)
from schedlab.solvers.lop.cyclepack import CyclePacker
from schedlab.solvers.lop.lpcut.mip import MipHandoff
from schedlab.solvers.lop.lpcut.options import (
    DEFAULT_TUNING,
    ROUTES,
    LpcutOptions,
    LpcutTuning,
    LpSolver,
    MasterLp,
    Route,
)
from schedlab.solvers.lop.lpcut.primal import search_start
from schedlab.solvers.lop.lpcut.rounds import LpRounds
from schedlab.solvers.validate import Deadline


class HighsCutModel(LpRounds, MipHandoff):
    """One block's triangle model in HiGHS (highspy): the route, LP cut rounds, then the MIP.

    The LP model (`lp_model.CutLp`), the primal side (`primal.PrimalSide`), the rounds
    (`rounds.LpRounds`) and the MIP (`mip.MipHandoff`) are its parts, one module each."""

    def __init__(
        self,
        Wb: np.ndarray,
        *,
        gap_abs: float,
        close_abs: float = 0.0,
        seed: int | None,
        packing: bool = False,
        packing_master: MasterLp = "pdlp",
        route: Route | None = None,
        threads: int = 1,
        packing_fill: bool = True,
        forced: np.ndarray | None = None,
        tuning: LpcutTuning = DEFAULT_TUNING,
    ) -> None:
        super().__init__(Wb, seed=seed, tuning=tuning, close_abs=max(close_abs, gap_abs))
        self.packing = packing  # the cycle-packing certificate is allowed (route auto/packing)
        # None: the historical chain (packing if allowed, LP rounds, MIP)
        self.route: Route = route or ("packing" if packing else "lp")
        self.packing_master = packing_master
        self.threads = threads  # the packing masters' (PDLP's); HiGHS runs on one
        self.packing_fill = packing_fill  # the packing's 3-cycle fill (`CyclePacker`'s fill)
        self.gap_abs = gap_abs
        self.lp_done = False
        self.closed_by_packing = False
        self.packing_stopped = False  # the cycle packing ran out of time without closing
        self.last_before: np.ndarray | None = None  # the last MIP solution's tournament
        if forced is not None:
            self.fix_forced(forced)

    def add_triangles(self, triples: Sequence[Triple]) -> None:
        """Both inequalities of each triple, or after a MIP solve only the one its tournament
        violates (the lazy rounds of `lop.core.solve_block`: half the rows)."""
        B = self.last_before
        if B is None:
            self.add_cycles([(t, kind) for t in triples for kind in (1, 2)])
            return
        # a -> b -> c -> a (kind 1) when a before b; else a -> c -> b -> a (kind 2)
        self.add_cycles([((a, b, c), 1 if B[a, b] else 2) for a, b, c in triples])

    def pick_route(self) -> Route:
        """The route of this block (`route` auto): the cycle packing when the incumbent's
        deficit is small enough for its loose masters (`packing_max_deficit`), else the LP
        rounds, which hand over to the MIP on their cut rows when they stall. The full model
        is never picked: on the measured families (docs/lop.md) it was not the fastest."""
        if self.route != "auto":
            return self.route
        if self.packing and self.deficit_share() <= self.tuning.packing_max_deficit:
            return "packing"
        return "lp"

    def pick_lp_solver(self) -> LpSolver:
        """The LP rounds' solver: the tuning's, if set; else the dual simplex, warm-started
        from the previous round's basis, when the deficit share exceeds `simplex_min_deficit`
        (dense matrices), and the interior point from scratch below it (degenerate LPs of the
        cyclic family; docs/lop.md)."""
        if self.tuning.lp_solver is not None:
            return self.tuning.lp_solver
        return "simplex" if self.deficit_share() > self.tuning.simplex_min_deficit else "ipm"

    def packing_certificate(self, deadline: Deadline) -> dict[str, float]:
        """Column generation of the cycle packing (`lop.cyclepack`) from the best order, first
        improved by `search_start`: its bound and orders join the LP phase's; it closes the
        block when it meets the best order within the closing slack."""
        if self.order is None:
            return {}
        t = time.perf_counter()
        self.offer(search_start(self.W, self.order, self.seed, deadline, self.tuning))
        self.search_s += time.perf_counter() - t
        packer = CyclePacker(self.W, seed=self.seed, master=self.packing_master,
                             threads=self.threads, fill=self.packing_fill,
                             tuning=self.tuning.packing)  # fmt: skip
        out = packer.certify(self.order, self.close_abs, deadline)
        self.packing_stopped = out.stopped  # no LP ran after it: its MIP would start blind
        self.offer(out.order)
        self.raise_bound(out.bound)
        if self.closed():
            self.closed_by_lp = self.closed_by_packing = True
        return dict(out.stats)

    def solve(self, deadline: Deadline, hint: Sequence[int] | None) -> RoundResult:
        """The LP phase once (route, start search, packing, LP rounds), then the MIP unless
        the LP phase closed the block; later calls (lazy rounds) run the MIP only."""
        stats: dict[str, Any] = {}
        if hint is not None:
            self.offer(hint)
        if not self.lp_done:
            done = self._lp_phase(deadline, hint, stats)
            if done is not None:
                return done
            self._to_mip()
        return self._mip_phase(deadline, stats)

    def _lp_phase(
        self, deadline: Deadline, hint: Sequence[int] | None, stats: dict[str, Any]
    ) -> RoundResult | None:
        """The block's route up to the MIP; a result when it closed the block (or the full
        model could not be written in time), None for the MIP to run."""
        self.search_start_kicks(deadline)
        route = self.pick_route()
        stats["route"] = route
        stats[f"route_{route}"] = 1
        self.lp_solver = self.pick_lp_solver()
        stats[f"lp_solver_{self.lp_solver}"] = 1
        lp_deadline = deadline.share(self.tuning.lp_time_share)
        if route == "packing":
            stats.update(self.packing_certificate(lp_deadline))
        if route != "full" and not self.closed_by_lp:
            stats.update(self.lp_rounds(lp_deadline))
            stats.update(self.stall_search(lp_deadline))
        stats["lp_s"], stats["search_s"] = self.lp_s, self.search_s
        if self.order is not None and hint is not None and list(hint) != self.order:
            stats["lp_incumbent"] = 1
        if self.closed_by_lp and self.order is not None:
            stats["closed_by_lp"] = 1
            stats["closed_by_packing"] = int(self.closed_by_packing)
            return RoundResult(self.before_of(self.x_of(self.order)), True, self.best_lb, stats)
        if route == "full" and not self.add_all_triangles(deadline):
            return RoundResult(None, False, self.best_lb, stats)
        return None

    def _mip_phase(self, deadline: Deadline, stats: dict[str, Any]) -> RoundResult:
        """The MIP from the best order, its bound joined with the LP phase's."""
        start_x = None if self.order is None else self.x_of(self.order)
        lp_bound = self.best_lb
        if start_x is not None:
            start = self.hs.HighsSolution()
            start.col_value = start_x.tolist()
            self.h.setSolution(start)
        # a MIP's presolve and root are not always interruptible: skip one that would overrun,
        # and one after a packing stopped by time (no LP round ran to size its root)
        root_s = max(0.01, self.tuning.mip_root_factor * self.last_lp_s)  # 0.01: full model
        if self.packing_stopped or deadline.passed(within=root_s):
            stats["mip_skipped_for_time"] = 1
            return RoundResult(self.before_of(start_x), False, lp_bound, stats)
        t = time.perf_counter()
        run = self._run_mip(deadline)
        stats["mip_s"] = time.perf_counter() - t
        if run.killed:  # past the deadline: what the child reported before, or the LP's
            stats["mip_killed"] = 1
        found = self.before_of(run.x)
        bound = self.const + self.s * run.dual if math.isfinite(run.dual) else None
        if lp_bound is not None:
            bound = lp_bound if bound is None else max(bound, lp_bound)
        if run.nodes >= 0:
            stats["mip_nodes"] = run.nodes
        if found is None and run.killed:
            found = self.before_of(start_x)
        self.last_before = found
        return RoundResult(found, run.proven, bound, stats)


def block_close_abs(Wb: np.ndarray) -> float:
    """The slack of a block standing alone (`core.block_slacks` with no other block and no
    offset): SLACK_SHARE of the proof tolerance of its pairwise-minimum cost. lpcut's blocks
    get theirs from `solve_lop_matrix`, which also counts B's constant term (about 2x wider)."""
    return block_slacks(Wb, [np.arange(Wb.shape[0])])[0]


def lpcut_factory(
    options: LpcutOptions,
    seed: int | None,
    *,
    integral: bool = False,
    tuning: LpcutTuning = DEFAULT_TUNING,
    forced: np.ndarray | None = None,
) -> ModelFactory:
    """lpcut's block model builder for `core.solve_lop_matrix` / `core.solve_block`; refuses a
    route that its options rule out. `integral`: integer costs, whose MIP may stop within
    `core.INTEGER_SLACK` (the bound rounds up); `tuning` and `forced` (pairs fixed) go to
    every block model it builds."""
    if options.route not in ROUTES:
        raise InvalidInput(f"route: lpcut takes one of {', '.join(ROUTES)} (got {options.route!r})")
    if options.route == "packing" and not options.packing:
        raise InvalidInput("route: 'packing' needs the packing on (drop --no-packing)")
    return lambda Wb, _deadline, slack: HighsCutModel(
        Wb,
        gap_abs=INTEGER_SLACK if integral else block_gap_abs(Wb),
        close_abs=slack,
        seed=seed,
        packing=options.packing,
        packing_master=options.packing_master,
        route=options.route,
        threads=options.threads,
        packing_fill=options.packing_fill,
        forced=forced,
        tuning=tuning,
    )
