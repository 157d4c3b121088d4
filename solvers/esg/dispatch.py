"""ESG dispatch: place a configured batch's container on an invoker.

The rule (ESG's, as reconstructed, `rule="esg"`): a warm idle container of the same owner
(application, function) and size (vCPUs, GPU share) first, on an upstream function's invoker
before any other; otherwise a new container on the invoker of the upstream function (any of
them), then best fit on free GPU share (least free share that fits); when no invoker has room,
idle containers are evicted (oldest first) on the invokers in that same order. Used by the
simulator (online) and by the many-queue measurement (`solvers.esg.heuristic_queues`) with an
empty cluster. A container's batch size is a run parameter, not part of its size.

The ablation rules (`DISPATCH_RULES`, the simulator's `--dispatch`) drop one mechanism each:
`no-locality` ignores the upstream invoker (warm containers in invoker order, then best fit),
`no-warm` never reuses an idle container (every batch a cold start), and `random` tries the
invokers in a random order (seeded by the caller's generator) for the warm container and for
a new one alike, blind to locality.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

#: Capacity tolerance of every fit check.
CAP_TOL = 1e-9
#: The dispatch rules (`place(rule=...)`; `schedlab esg simulate --dispatch`), name -> summary.
DISPATCH_RULES: dict[str, str] = {
    "esg": "warm container (upstream invoker first), then the upstream invoker, then best fit",
    "no-locality": "warm container, then best fit on GPU share; blind to the upstream invoker",
    "no-warm": "like esg but never reuses an idle container (every batch a cold start)",
    "random": "warm container, else a new one, invokers in a random order; locality-blind",
}


@dataclass(eq=False)
class Container:
    """A container of function `fn` of application `app`, sized (vcpus, share)."""

    app: int
    fn: int
    cfg: int
    vcpus: float
    share: float
    busy: bool = False
    idle_since: float = 0.0


@dataclass
class Invoker:
    """A server with vCPU and GPU-share capacity and the containers it holds."""

    vcpus: float
    gpu: float
    containers: list[Container] = field(default_factory=list)

    def free(self) -> tuple[float, float]:
        """Free (vCPUs, GPU share)."""
        v = self.vcpus - sum(c.vcpus for c in self.containers)
        g = self.gpu - sum(c.share for c in self.containers)
        return v, g


@dataclass(frozen=True)
class Placement:
    """Where a container went: invoker index (-1: nowhere), the container, whether it is new."""

    invoker: int
    container: Container
    cold: bool


def expire(invokers: Sequence[Invoker], t: float, keep_alive_ms: float) -> None:
    """Drop idle containers that have been idle for `keep_alive_ms` or longer at time t."""
    for inv in invokers:
        inv.containers = [x for x in inv.containers if x.busy or t - x.idle_since < keep_alive_ms]


def warm(
    invokers: Sequence[Invoker],
    app: int,
    fn: int,
    vcpus: float,
    share: float,
    order: Sequence[int] | None = None,
) -> Placement:
    """The first idle container of this owner and size, invokers visited in `order` (default:
    index order); invoker -1 when there is none."""
    for i in range(len(invokers)) if order is None else order:
        for x in invokers[i].containers:
            if not x.busy and (x.app, x.fn, x.vcpus, x.share) == (app, fn, vcpus, share):
                return Placement(i, x, False)
    return Placement(-1, Container(app, fn, -1, 0.0, 0.0), False)


def fits(inv: Invoker, vcpus: float, share: float, evict: bool) -> bool:
    """Whether a container fits, evicting idle containers (oldest first) when allowed."""
    v, g = inv.free()
    if evict:
        idle = sorted((x for x in inv.containers if not x.busy), key=lambda x: x.idle_since)
        while (v < vcpus - CAP_TOL or g < share - CAP_TOL) and idle:
            inv.containers.remove(idle.pop(0))
            v, g = inv.free()
    return v >= vcpus - CAP_TOL and g >= share - CAP_TOL


def place(
    invokers: Sequence[Invoker],
    app: int,
    fn: int,
    cfg: int,
    vcpus: float,
    share: float,
    upstream: Collection[int] = (),
    *,
    reuse_warm: bool = True,
    evict: bool = True,
    rule: str = "esg",
    rng: np.random.Generator | None = None,
) -> Placement:
    """Place a container of (app, fn) sized (vcpus, share) by `rule` (`DISPATCH_RULES`; see the
    module doc); `rng` draws the order of rule "random".

    `upstream`: invoker indices of the upstream function(s). A new container is appended to
    its invoker (marked idle; the caller sets `busy`). Invoker -1: nothing fits.
    """
    if rule not in DISPATCH_RULES:
        raise ValueError(f"dispatch rule {rule!r}; choose one of {', '.join(DISPATCH_RULES)}")
    n = len(invokers)
    free = [inv.free() for inv in invokers]  # once: no container changes before a fit check
    if rule == "random":
        gen = rng if rng is not None else np.random.default_rng(0)
        order = [int(i) for i in gen.permutation(n)]
        warm_order: list[int] | None = order
    elif rule == "no-locality":
        order = sorted(range(n), key=lambda i: free[i][1])
        warm_order = None
    else:
        order = sorted(range(n), key=lambda i: (i not in upstream, free[i][1]))
        warm_order = sorted(range(n), key=lambda i: i not in upstream)
    if reuse_warm and rule != "no-warm":
        w = warm(invokers, app, fn, vcpus, share, warm_order)
        if w.invoker >= 0:
            return w
    for ev in (False, True) if evict else (False,):
        for i in order:
            if ev:
                ok = fits(invokers[i], vcpus, share, True)
            else:
                ok = free[i][0] >= vcpus - CAP_TOL and free[i][1] >= share - CAP_TOL
            if ok:
                x = Container(app, fn, cfg, vcpus, share)
                invokers[i].containers.append(x)
                return Placement(i, x, True)
    return Placement(-1, Container(app, fn, cfg, 0.0, 0.0), False)
