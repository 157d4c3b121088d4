"""Online configuration policies of the ESG simulator (`register_policy("esg", name, ...)`).

At each dispatch the simulator asks the policy for the configuration of one queue's head
request, given the request's remaining latency budget. Planning latency of a configuration
= stage latency (which holds the file's `wait_ms`) + the batch-fill wait estimate
(batch - 1) / (app arrival rate) when the configuration gives no `wait_ms` (the simulator waits
the one or the other). The remaining
stages are the function's critical path to the sink (longest at fastest configurations).
- esg: ESG_1Q: A* with both blades over the remaining stages; commit the first stage;
- greedy: cheapest configuration that leaves room for the fastest rest;
- batch / infless / static: the baselines of `solvers.esg.heuristics` (configuration masks);
  infless takes the cheapest configuration within its share of the remaining budget.
When nothing fits (the head is already late), every policy takes its cheapest configuration,
which drains the backlog fastest per unit of resource (the request misses anyway).
Decisions are cached per (function, budget rounded down to 0.1 ms): rounding down is safe.
`decision_work(st, f)` bounds what one decision costs, in simulator steps (an event is one),
for the simulator's work cap: esg's A* builds a DP table over the remaining stages, so its
decisions grow with the path length, the Pareto configurations and the DP buckets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from schedlab.experiments.registry import POLICIES, register_policy
from schedlab.solvers.esg.exact_astar import AStarOptions, astar_chain
from schedlab.solvers.esg.heuristics import MASKS
from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.problem import LAT_TOL, App

SUBJECT = "esg"

#: Array cells (configurations scanned, DP cells) that cost about one simulator step: an event
#: takes about 16 us, a cell of A*'s DP heuristic 3 to 60 ns (measured on apps of 3 to 1,000
#: stages), so 100 errs on the side of counting too much.
CELLS_PER_STEP = 100
#: The DP buckets of the A* the esg policy runs (its default options).
POLICY_DP_BUCKETS = AStarOptions().dp_buckets


@dataclass(frozen=True)
class FillModel:
    """Per function, each configuration's batch size and the fill wait (ms) its planning
    latency holds (the file's `wait_ms`, else (b - 1) / rate), and the app's rate (1/s)."""

    batch: list[np.ndarray]
    nominal_ms: list[np.ndarray]
    rate_per_s: float

    def wait_now_ms(self, f: int, queued: int) -> np.ndarray:
        """The fill wait ahead of a head with `queued` requests in its queue (itself included):
        until the batch is full at the app's rate, at most the planned wait (the simulator's
        timeout). It ignores the time the head already waited, so it never undercounts the
        wait: slack for the blocking and placement delays the planner does not model."""
        to_full = np.maximum(self.batch[f] - queued, 0) * 1000.0 / max(self.rate_per_s, 1e-9)
        return np.minimum(to_full, self.nominal_ms[f])


def attach_fill(st: AppState, app: App, rate_per_s: float) -> None:
    """Give a prepared state the fill model of its app (what `decide` needs for a head that
    already waited or has company), independent of the policy's `prepare`."""
    batch = [np.array([c.batch for c in f.configs], dtype=float) for f in app.functions]
    nominal = [
        np.array(
            [
                c.wait_ms if c.wait_ms > 0 else (c.batch - 1) * 1000.0 / max(rate_per_s, 1e-9)
                for c in f.configs
            ]
        )
        for f in app.functions
    ]
    st.fill = FillModel(batch, nominal, rate_per_s)


@dataclass
class AppState:
    """Per-application planning tables of one policy."""

    lat: list[np.ndarray]  # planning latency (inf outside the policy's mask)
    cost: list[np.ndarray]
    path: list[list[int]]  # remaining critical path from each function (itself first)
    fast: list[float]
    cache: dict[tuple[int, ...], int] = field(default_factory=dict)
    pareto: list[int] | None = None  # Pareto configurations per function (for decision_work)
    fill: FillModel | None = None  # batch sizes and planned fill waits (`attach_fill`)

    def pareto_counts(self) -> list[int]:
        """Configurations per function that A* keeps (finite, Pareto in latency and cost)."""
        if self.pareto is None:
            self.pareto = []
            for lat, cost in zip(self.lat, self.cost, strict=True):
                keep = np.isfinite(lat)
                self.pareto.append(len(pareto_indices(lat[keep], cost[keep])))
        return self.pareto


class PathPolicy:
    """Shared preparation; subclasses implement `choose`."""

    name = "greedy"
    mask = "greedy"

    def prepare(self, app: App, rate_per_s: float) -> AppState:
        lats, costs = app.stage_latency(), app.stage_cost()
        lat, cost = [], []
        for f, a, c in zip(app.functions, lats, costs, strict=True):
            m = MASKS[self.mask](f)
            wait = np.array(  # the file's wait_ms is in the stage latency `a` already
                [
                    0.0 if cf.wait_ms > 0 else (cf.batch - 1) * 1000.0 / max(rate_per_s, 1e-9)
                    for cf in f.configs
                ]
            )
            lat.append(np.where(m, a + wait, np.inf))
            cost.append(np.where(m, c, np.inf))
        fast = [float(x.min()) for x in lat]
        succ: list[list[int]] = [[] for _ in fast]
        for i, ps in enumerate(app.preds()):
            for p in ps:
                succ[p].append(i)
        path: list[list[int]] = [[] for _ in fast]
        for i in reversed(app.topo_order()):
            nxt = max(succ[i], key=lambda j: sum(fast[k] for k in path[j]), default=None)
            path[i] = [i] + (path[nxt] if nxt is not None else [])
        return AppState(lat, cost, path, fast)

    def decide(self, st: AppState, f: int, remaining_ms: float, queued: int = 1) -> int:
        """The configuration for a head with `remaining_ms` of budget and `queued` requests in
        its queue (itself included). Its own stage is planned with the fill wait ahead of that
        queue (`FillModel.wait_now_ms`), not the lone-request estimate: a head with company
        (a blocked queue that re-plans, a burst) fills its batch sooner. Cached per (function,
        budget rounded down to 0.1 ms, requests queued up to the largest batch)."""
        fill = st.fill
        n = 1 if fill is None else max(1, min(queued, int(fill.batch[f].max())))
        key: tuple[int, ...] = (f, math.floor(remaining_ms * 10))
        if n > 1:
            key += (n,)
        if key not in st.cache:
            saved = st.lat[f]
            if n > 1 and fill is not None:
                now = fill.wait_now_ms(f, n)
                st.lat[f] = np.where(np.isfinite(saved), saved - fill.nominal_ms[f] + now, saved)
            try:
                k = self.choose(st, f, key[1] / 10)
            finally:
                st.lat[f] = saved
            st.cache[key] = int(np.argmin(st.cost[f])) if k is None else k
        return st.cache[key]

    def decision_work(self, st: AppState, f: int) -> float:
        """Steps one decision at function f costs at most (a scan of its configurations)."""
        return 1.0 + len(st.lat[f]) / CELLS_PER_STEP

    def choose(self, st: AppState, f: int, budget: float) -> int | None:
        rest = sum(st.fast[i] for i in st.path[f][1:])
        ok = st.lat[f] + rest <= budget + LAT_TOL
        if not ok.any():
            return None
        return int(np.argmin(np.where(ok, st.cost[f], np.inf)))


# Registration order is the figure's order (tag "figure": the policies the ESG figure compares).
@register_policy(
    SUBJECT,
    "esg",
    summary="ESG_1Q: A* with dual-blade pruning, re-planned",
    tags=("figure",),
)
class EsgPolicy(PathPolicy):
    name = "esg"

    def decision_work(self, st: AppState, f: int) -> float:
        """A* over the remaining critical path: a DP table of (stages + 1) x (buckets + 1)
        cells and one pass per Pareto configuration over the buckets."""
        n = st.pareto_counts()
        cells = sum(n[i] + 1 for i in st.path[f]) * (POLICY_DP_BUCKETS + 1)
        return 1.0 + cells / CELLS_PER_STEP

    def choose(self, st: AppState, f: int, budget: float) -> int | None:
        path = st.path[f]
        ls, cs = [], []
        for i in path:
            keep = np.isfinite(st.lat[i])
            ls.append(st.lat[i][keep])
            cs.append(st.cost[i][keep])
        s = astar_chain(ls, cs, budget)
        if s.choice is None:
            return None
        return int(np.flatnonzero(np.isfinite(st.lat[f]))[s.choice[0]])


@register_policy(
    SUBJECT,
    "greedy",
    summary="cheapest configuration leaving room for the rest",
    tags=("figure",),
)
class GreedyPolicy(PathPolicy):
    name = "greedy"


@register_policy(SUBJECT, "batch", summary="BATCH-like: batching on whole GPUs", tags=("figure",))
class BatchPolicy(PathPolicy):
    name, mask = "batch", "batch"


@register_policy(
    SUBJECT,
    "infless",
    summary="INFless-like: no GPU sharing, per-stage share",
    tags=("figure",),
)
class InflessPolicy(PathPolicy):
    name, mask = "infless", "infless"

    def choose(self, st: AppState, f: int, budget: float) -> int | None:
        total = sum(st.fast[i] for i in st.path[f])
        share = budget * st.fast[f] / total if total > 0 else budget
        ok = st.lat[f] <= share + LAT_TOL
        if not ok.any():
            return super().choose(st, f, budget)
        return int(np.argmin(np.where(ok, st.cost[f], np.inf)))


@register_policy(SUBJECT, "static", summary="fixed resources, no batching", tags=("figure",))
class StaticPolicy(PathPolicy):
    name, mask = "static", "static"


def make_policy(name: str) -> PathPolicy:
    """A fresh policy object by registered name."""
    cls = POLICIES.get(name, scope=SUBJECT).obj
    policy: PathPolicy = cls()
    return policy
