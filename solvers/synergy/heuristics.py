"""GPU-proportional, Synergy-GREEDY and Synergy-TUNE as registered solve methods.

Thin wrappers around `engine.RoundAllocator` (the simulators' fast path); status `feasible`.
"""

from __future__ import annotations

import time

from schedlab.solvers.result import SolveResult
from schedlab.solvers.synergy.engine import RoundAllocator
from schedlab.solvers.synergy.methods import SYNERGY_METHODS
from schedlab.solvers.synergy.model import Snapshot
from schedlab.solvers.synergy.solution import make_result


def _run(snap: Snapshot, method: str) -> SolveResult:
    t0 = time.perf_counter()
    ra = RoundAllocator(snap.cluster, snap.profiles)
    rr = ra.allocate(method, snap.model_indices(), snap.gpu_demands())
    runtime = time.perf_counter() - t0
    stats = dict(rr.stats)
    if method == "tune":
        stats["tune_guaranteed"] = ra.tune_guaranteed
    return make_result(snap, rr.to_allocation(snap.ids), method, runtime, stats=stats)


@SYNERGY_METHODS.register(
    "proportional", exact=False, summary="GPU-proportional CPU and memory, first fit"
)
def solve_proportional(snap: Snapshot, *, time_limit=None, seed=None, **_) -> SolveResult:
    """CPU and memory in proportion to GPUs; every job whose GPUs fit runs."""
    return _run(snap, "proportional")


@SYNERGY_METHODS.register(
    "greedy", exact=False, summary="Synergy-GREEDY: ideal demand, first fit, skip misfits"
)
def solve_greedy(snap: Snapshot, *, time_limit=None, seed=None, **_) -> SolveResult:
    """Each job asks for its ideal demand; a job that does not fit is skipped this round."""
    return _run(snap, "greedy")


@SYNERGY_METHODS.register(
    "tune", exact=False, summary="Synergy-TUNE: ideal, else proportional, else reclaim from peers"
)
def solve_tune(snap: Snapshot, *, time_limit=None, seed=None, **_) -> SolveResult:
    """Ideal demand, else proportional share, else take back peers' excess (never skips)."""
    return _run(snap, "tune")
