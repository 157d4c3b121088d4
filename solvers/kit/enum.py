"""The one work cap of the enumeration oracles: every oracle of every subject counts its work in
the same steps and stops at the same cap (option `max_work`, flag `--max-work`).

A step is one element of one candidate solution examined by Python-speed code (a job of an
order, a job of an allocation, a choice tried for a job, a stage of a listed path): about half
a microsecond here. Oracles that examine candidates in compiled or vectorized code count them
at their measured relative cost (`COMPILED`, `VECTORIZED`), so that MAX_WORK steps take a few
seconds in every oracle. Where the count is known before the search, a larger one is refused
up front (`refuse_above`: InvalidInput naming the cap, the flag and the methods to use
instead); where it is not (a depth-first search), the search stops at the cap (`WorkMeter`)
and the oracle reports what it has: its best solution, status `feasible` (or `timeout` with
none), and a sound bound, never a proof it does not have.
"""

from __future__ import annotations

import math

from schedlab.solvers.errors import InvalidInput

#: The default work cap, in steps: a few seconds of any oracle here (docs/architecture.md).
MAX_WORK = 5_000_000
#: Steps per element examined by numba-compiled code (paths kernels): measured ~1000x faster.
COMPILED = 1e-3
#: Steps per element examined by numpy-vectorized code: measured ~8x faster.
VECTORIZED = 0.125


def refuse_above(work: float, max_work: int, what: str, instead: str) -> None:
    """InvalidInput when `work` steps (known before the search) exceed `max_work`."""
    if math.isfinite(work) and work <= max_work:
        return
    shown = f"{work:.3g}" if math.isfinite(work) and work < 1e30 else "more than 10^30"
    raise InvalidInput(
        f"{what}: {shown} enumeration steps, above the work cap max_work={max_work:,} "
        f"(--max-work); use {instead}, or raise the cap"
    )


class WorkMeter:
    """Counts the steps of a search whose size is not known up front; `spend` says when the cap
    is passed (then `stopped` stays true)."""

    def __init__(self, max_work: int) -> None:
        self.max_work = max_work
        self.done = 0
        self.stopped = False

    def spend(self, steps: int = 1) -> bool:
        """Count `steps`; True once the cap is passed."""
        self.done += steps
        if self.done > self.max_work:
            self.stopped = True
        return self.stopped
