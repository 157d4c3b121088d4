"""The one table of Synergy allocators and the fast path the simulators call every round.

An allocator registers once, where it is defined, with `@register_allocator(name, ...)` on a
factory `factory(placer, options) -> Allocator`; an `Allocator` takes plain sequences (model
index and GPU demand per job, in policy order), does no validation and returns a
`RoundResult`. Registration puts it in the one method table (`schedlab.solvers.solve.METHODS`,
scope "synergy", tag "fast"), so both paths reach the same code:

- `solve(snapshot, name)` (users, CLI, figures) runs it on a validated snapshot and returns a
  `SolveResult[Allocation]`;
- `RoundAllocator(cluster).allocate(name, models, gpus)` (simulators) runs it on lists; build
  one `RoundAllocator` per (cluster, profiles) and reuse it, so allocators that memoize (OPT)
  keep their state between rounds.

Placement is shared (`placement.py`); the allocators live in `heuristics.py` (proportional,
greedy, tune) and `opt.py` (Synergy-OPT). A plugin module adds one the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.options import NoOptions, parse_options
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import METHODS, register_method
from schedlab.solvers.synergy.allocation import Allocation
from schedlab.solvers.synergy.placement import Placer, RoundResult
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import make_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline

SUBJECT = "synergy"
FAST_TAG = "fast"  # methods with a fast path (an Allocator)


class Allocator(Protocol):
    """One round on plain lists: the jobs' model indices and GPU demands in policy order."""

    def __call__(
        self, models: Sequence[int], gpus: Sequence[int], *, deadline: Deadline = NO_DEADLINE
    ) -> RoundResult: ...


AllocatorFactory = Callable[[Placer, Any], Allocator]


class FastMethod:
    """The `solve` method of a registered allocator: runs it on a snapshot's lists."""

    def __init__(self, name: str, factory: AllocatorFactory) -> None:
        self.name = name
        self.factory = factory
        self.__doc__ = factory.__doc__

    def __call__(
        self,
        snap: Snapshot,
        *,
        deadline: Deadline = NO_DEADLINE,
        seed: int | None = None,
        options: Any,
    ) -> SolveResult[Allocation | None]:
        t0 = time.perf_counter()
        ra = RoundAllocator(snap.cluster, snap.profiles)
        rr = ra.allocate(
            self.name,
            snap.model_indices(),
            snap.gpu_demands(),
            deadline=deadline,
            options=options,
        )
        runtime = time.perf_counter() - t0
        alloc = rr.to_allocation(snap.ids)
        return make_result(snap, alloc, self.name, runtime, bound=rr.bound, stats=dict(rr.stats))


def register_allocator(
    name: str,
    *,
    summary: str,
    options: type = NoOptions,
    tags: Sequence[str] = (),
) -> Callable[[AllocatorFactory], AllocatorFactory]:
    """Register an allocator factory as the Synergy method `name` with a fast path.

    It is a heuristic (status `feasible`); `tags` help figures select it (e.g. "paper")."""

    def deco(factory: AllocatorFactory) -> AllocatorFactory:
        register_method(
            SUBJECT, name, exact=False, options=options, tags=(*tags, FAST_TAG), summary=summary
        )(FastMethod(name, factory))
        return factory

    return deco


def fast_methods() -> list[str]:
    """Names of the registered methods with a fast path, in registration order."""
    return METHODS.names(scope=SUBJECT, tag=FAST_TAG)


class RoundAllocator(Placer):
    """Allocates rounds of jobs on a cluster with any registered fast allocator; reuse it
    across rounds (allocator instances, and their memoized state, are kept per name)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._made: dict[tuple[str, Any], Allocator] = {}

    def allocator(self, method: str, options: Any = None) -> Allocator:
        """The allocator `method` on this cluster (created on first use, then kept)."""
        key = (method, options)
        fn = self._made.get(key)
        if fn is None:
            entry = METHODS.get(method, scope=SUBJECT)
            if not isinstance(entry.obj, FastMethod):
                raise InvalidInput(
                    f"method: synergy method {method!r} has no fast path; "
                    f"fast ones: {', '.join(fast_methods())}"
                )
            opts = parse_options(entry.options or NoOptions, options, where=f"method {entry.key}")
            fn = self._made[key] = entry.obj.factory(self, opts)
        return fn

    def allocate(
        self,
        method: str,
        models: Sequence[int],
        gpus: Sequence[int],
        *,
        deadline: Deadline = NO_DEADLINE,
        options: Any = None,
    ) -> RoundResult:
        """Allocate one round with the registered fast allocator `method` (see `fast_methods`;
        proportional, greedy, tune, opt, and any plugin's) within `deadline`."""
        return self.allocator(method, options)(models, gpus, deadline=deadline)
