"""lpcut's primal side: the best order of a block, its searches, and when it meets the bound.

Orders come from the hint, the start search (`search_start_kicks`), the packing's starting
order (`search_start`), the LP rounds' roundings and the searches after a stall
(`stall_probe`, `stall_search`); each is offered (`offer`) and the cheapest kept. The block is
closed once the best sound bound is within the closing slack of the best order (`closed`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from schedlab.solvers.kernels.order_search import iterated_search, kicks, multistart
from schedlab.solvers.lop.core import lop_cost
from schedlab.solvers.lop.lpcut.lp_model import CutLp
from schedlab.solvers.lop.lpcut.options import DEFAULT_TUNING, LpcutTuning
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed


def search_start(
    Wb: np.ndarray,
    order: Sequence[int],
    seed: int | None,
    deadline: Deadline = NO_DEADLINE,
    tuning: LpcutTuning = DEFAULT_TUNING,
) -> list[int]:
    """The packing's starting order: the best of an iterated insertion search from
    `search_starts` rotations of `order` (`solvers.kernels.order_search.multistart`). The
    restricted pricing prices around this order, and its bound levels off short of an order
    that is not optimal (docs/lop.md, "lpcut's tuning"). The deadline is checked between
    rotations."""
    found = multistart(Wb, order, starts=tuning.search_starts,
                       kicks_per_start=tuning.search_kicks, max_length=tuning.search_segment,
                       seed=solver_seed(seed), stop=deadline.passed)  # fmt: skip
    return [int(i) for i in found]


class PrimalSide(CutLp):
    """The block's best order and best bound, and the searches that improve the order."""

    def __init__(
        self, Wb: np.ndarray, *, seed: int | None, tuning: LpcutTuning, close_abs: float
    ) -> None:
        super().__init__(Wb, seed=seed, tuning=tuning)
        self.close_abs = close_abs  # bound this close to the incumbent: the block is closed
        self.order: list[int] | None = None  # the best order known to the LP phase
        self.order_cost = math.inf
        self.best_lb: float | None = None  # best sound bound (LP rounds and packing)
        self.closed_by_lp = False  # proven without a MIP (triangle LP or cycle packing)
        self.search_s = 0.0  # seconds in the local searches (start search, LP rounding)
        self.stall_chunks = 0  # chunks of the stall search run (`_stall_chunk`: their seeds)
        self.stall_probe_s = 0.0  # seconds of `stall_probe`
        self.lp_stalled = False  # the LP rounds stopped on `lp_stall_rounds` without progress
        self.lp_s = 0.0  # seconds in HiGHS's LP rounds (`lp_rounds`)

    def offer(self, order: Sequence[int]) -> None:
        """Keep `order` if it is cheaper than the best order."""
        cost = lop_cost(self.W, order)
        if cost < self.order_cost:
            self.order, self.order_cost = list(order), cost

    def raise_bound(self, lb: float) -> None:
        """Keep the best sound lower bound met (LP rounds and packing alike)."""
        self.best_lb = lb if self.best_lb is None else max(self.best_lb, lb)

    def closed(self) -> bool:
        """The best bound is within the closing slack of the best order."""
        return self.best_lb is not None and self.best_lb >= self.order_cost - self.close_abs

    def deficit_share(self) -> float:
        """(best order's cost - pairwise minimum) / pairwise minimum: what a dual certificate
        has to cover, relative to the closing slack's base (inf without an order)."""
        if self.order is None:
            return math.inf
        return (self.order_cost - self.pair_min) / max(self.pair_min, 1e-300)

    def search_start_kicks(self, deadline: Deadline) -> None:
        """Offer the best order of an iterated insertion search from the best order (the
        tuning's `start_kicks` kicks of at most `start_kick_length` jobs,
        `order_search.iterated_search`) before any LP round: the LP rounds separate the cycles
        tight at the incumbent, which carry a dual certificate only if it is optimal."""
        t = self.tuning
        if self.order is None or not t.start_kicks or deadline.passed():
            return
        self._kick_search(t.start_kicks, solver_seed(self.seed), t.start_patience)

    def _kick_search(self, count: int, seed: int, patience: int | None = None) -> None:
        """Offer the result of `count` kicks of the iterated insertion search from the best
        order (kicks of at most `start_kick_length` jobs drawn from `seed`)."""
        assert self.order is not None
        t = time.perf_counter()
        table = kicks(self.n, count, self.tuning.start_kick_length, seed)
        self.offer([int(i) for i in iterated_search(self.W, self.order, table, patience=patience)])
        self.search_s += time.perf_counter() - t

    def _stall_chunk(self, count: int) -> bool:
        """One chunk of the stall search (`count` kicks, the seeds going on from the chunks
        before); True if the best order then meets the bound (the block is closed)."""
        self._kick_search(count, solver_seed(self.seed) + 1 + self.stall_chunks)
        self.stall_chunks += 1
        if self.closed():
            self.closed_by_lp = True
        return self.closed_by_lp

    def stall_probe(self, deadline: Deadline) -> bool:
        """Before the general round of a stall (`stall_general`): one chunk of the stall
        search, of at most the block's start kicks (so it costs about what the start search
        did), in case the bound has reached the optimum and only the order lags. True if it
        closed the block."""
        count = min(self.tuning.stall_search_chunk, self.tuning.start_kicks)
        if not count or self.order is None or deadline.passed():
            return False
        t = time.perf_counter()
        closed = self._stall_chunk(count)
        self.stall_probe_s += time.perf_counter() - t
        return closed

    def stall_search(self, deadline: Deadline) -> dict[str, float]:
        """After LP rounds that stalled short of the best order: iterated insertion searches
        from it, `stall_search_chunk` kicks at a time, for up to `stall_search_share` times the
        LP rounds' seconds (and half the time left), until the best order meets the bound."""
        share, chunk = self.tuning.stall_search_share, self.tuning.stall_search_chunk
        if share is None or not self.lp_stalled or self.closed() or self.order is None:
            return {}
        t0 = time.perf_counter()
        budget = share * self.lp_s
        left = deadline.remaining()
        if left is not None:
            budget = min(budget, 0.5 * left)
        chunks = 0
        while time.perf_counter() - t0 < budget and not deadline.passed():
            chunks += 1
            if self._stall_chunk(chunk):
                break
        return {"stall_search_s": time.perf_counter() - t0,
                "stall_search_kicks": chunks * chunk,
                "stall_search_closed": int(self.closed_by_lp)}  # fmt: skip
