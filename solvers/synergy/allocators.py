"""The one allocator protocol of Synergy, and the fast path the simulators call every round.

Every allocator follows one protocol. It registers where it is defined with the one method
decorator and the tag "fast" (`FAST_TAG`, this module's method form) on a factory:

    @register_method("synergy", name, exact=False, tags=("fast", ...), summary=...)
    def factory(placer: Placer, options) -> Allocator: ...

and the `Allocator` it returns takes one round, the jobs' model indices and GPU demands in
policy order (int64 arrays), does no validation and returns a `RoundResult` (arrays; see
`placement.py`). Everything reaches it through that one call:

- `solve(snapshot, name)` (users, CLI, figures) runs it on a validated snapshot through this
  form's runner (`solve_fast`) and returns a `SolveResult[Allocation]`;
- `RoundAllocator(cluster).allocator(name)(models, gpus)` (simulators) calls it on arrays;
  build one `RoundAllocator` per (cluster, profiles) and reuse it, so allocators that memoize
  (OPT) keep their state between rounds.

Placement is shared (`placement.py`); the allocators live in `heuristics.py` (proportional,
greedy, tune) and `heuristic_opt.py` (Synergy-OPT). A plugin module adds one the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.options import NoOptions, parse_options
from schedlab.solvers.registry import Entry
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import METHODS, method_form
from schedlab.solvers.synergy.allocation import Allocation
from schedlab.solvers.synergy.placement import Placer, RoundResult
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import make_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline

SUBJECT = "synergy"
FAST_TAG = "fast"  # the method form of an allocator factory (the simulator's fast path)


class Allocator(Protocol):
    """One round: the jobs' model indices and GPU demands (int64 arrays, policy order)."""

    def __call__(
        self, models: np.ndarray, gpus: np.ndarray, *, deadline: Deadline = NO_DEADLINE
    ) -> RoundResult: ...


AllocatorFactory = Callable[[Placer, Any], Allocator]


@method_form(SUBJECT, FAST_TAG)
def solve_fast(
    entry: Entry[AllocatorFactory],
    snap: Snapshot,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: Any,
) -> SolveResult[Allocation | None]:
    """Run the allocator `entry` on a validated snapshot (one round, a fresh `RoundAllocator`)."""
    t0 = time.perf_counter()
    ra = RoundAllocator(snap.cluster, snap.profiles)
    rr = ra.allocate(
        entry.name,
        snap.model_indices(),
        snap.gpu_demands(),
        deadline=deadline,
        options=options,
    )
    runtime = time.perf_counter() - t0
    alloc = rr.to_allocation(snap.ids)
    return make_result(snap, alloc, entry.name, runtime, bound=rr.bound, stats=dict(rr.stats))


def fast_methods() -> list[str]:
    """Names of the registered allocators (tag "fast"), in registration order."""
    return METHODS.names(scope=SUBJECT, tag=FAST_TAG)


class RoundAllocator(Placer):
    """Allocates rounds of jobs on a cluster with any registered allocator; reuse it across
    rounds (allocator instances, and their memoized state, are kept per name and options)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._made: dict[tuple[str, Any], Allocator] = {}

    def allocator(self, method: str, options: Any = None) -> Allocator:
        """The allocator `method` on this cluster (created on first use, then kept)."""
        key = (method, options)
        fn = self._made.get(key)
        if fn is None:
            entry = METHODS.get(method, scope=SUBJECT)
            if FAST_TAG not in entry.tags:
                raise InvalidInput(
                    f"method: synergy method {method!r} has no fast path; "
                    f"fast ones: {', '.join(fast_methods())}"
                )
            opts = parse_options(entry.options or NoOptions, options, where=f"method {entry.key}")
            fn = self._made[key] = entry.obj(self, opts)
        return fn

    def allocate(
        self,
        method: str,
        models: Sequence[int] | np.ndarray,
        gpus: Sequence[int] | np.ndarray,
        *,
        deadline: Deadline = NO_DEADLINE,
        options: Any = None,
    ) -> RoundResult:
        """Allocate one round with the registered allocator `method` (see `fast_methods`;
        proportional, greedy, tune, opt, and any plugin's)."""
        k = np.asarray(models, dtype=np.int64)
        g = np.asarray(gpus, dtype=np.int64)
        return self.allocator(method, options)(k, g, deadline=deadline)
