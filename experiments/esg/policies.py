"""Online configuration policies of the ESG simulator (`register_policy("esg", name, ...)`).

At each dispatch the simulator asks the policy for the configuration of one queue's head
request, given the request's remaining latency budget. Planning latency of a configuration
= stage latency (which holds the file's `wait_ms`) + the batch-fill wait estimate
(batch - 1) / (app arrival rate) when the configuration gives no `wait_ms` (the simulator waits
the one or the other). The remaining
stages are the function's critical path to the sink (longest at fastest configurations).
- esg: ESG_1Q: A* with both blades over the remaining stages; commit the first stage. On a DAG
  the SLO is first split over the dominator segments (`EsgPolicy.split`, SPLITS): a head plans
  its path to its segment's end within its segment's deadline (see `EsgPolicy`);
- greedy: cheapest configuration that leaves room for the fastest rest;
- batch / infless / static: the baselines (masks of `solvers.esg.heuristics`): batch
  (BATCH-like) CPU-only, the cheapest within the function's own SLO; infless (INFless-like)
  CPU-only or MPS shares up to 50 %, batches only when exec <= SLO / 2, batch timeout
  SLO - exec (`batch_timeout_ms`); a function's own SLO is its share of the remaining budget
  (`SplitPolicy`); static batch 1 at the largest resources.
When nothing fits (the head is already late), every policy takes its cheapest configuration,
which drains the backlog fastest per unit of resource (the request misses anyway).
The esg policy's factors can be switched off one by one (`Factors`, the ablations of ESG's
paper's three factors, `schedlab esg simulate --no-gpu-sharing / --no-batching / --no-replan`,
and its A* pruning setting `--pruning paper`): whole GPUs only, batch 1 only, one plan per
request made at its arrival (`PathPolicy.plan_request`), the paper's A* pruning.
Decisions are cached per (function, budget rounded down to 0.1 ms): rounding down is safe.
`decision_work(st, f)` bounds what one decision costs, in simulator steps (an event is one),
for the simulator's work cap: esg's A* builds a DP table over the remaining stages, so its
decisions grow with the path length, the Pareto configurations and the DP buckets.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from schedlab.experiments.registry import POLICIES, register_policy
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.exact_astar import AStarOptions, astar_chain
from schedlab.solvers.esg.heuristics import MASKS
from schedlab.solvers.esg.pareto import pareto_indices
from schedlab.solvers.esg.problem import LAT_TOL, App, Config, Function
from schedlab.solvers.esg.slo_split import Rule, merged_segments, rule_budgets
from schedlab.solvers.esg.split_opt import optimize

SUBJECT = "esg"

#: Array cells (configurations scanned, DP cells) that cost about one simulator step: an event
#: takes about 16 us, a cell of A*'s DP heuristic 3 to 60 ns (measured on apps of 3 to 1,000
#: stages), so 100 errs on the side of counting too much.
CELLS_PER_STEP = 100
#: The DP buckets of the A* the esg policy runs (its default options).
POLICY_DP_BUCKETS = AStarOptions().dp_buckets
#: How the esg policy splits a DAG's SLO over its dominator segments (`--split`): "opt" the
#: optimal split (`solvers/esg/split_opt.py`, ours), "min_latency" and "slack" the paper's rules
#: as reconstructed (`slo_split.py`), "critical_path" no split (plan the remaining critical path
#: within the whole remaining budget: the ablation "without the split").
SPLITS = ("opt", "min_latency", "slack", "critical_path")
DEFAULT_SPLIT = "opt"
#: What a head takes when no configuration fits its budget (it is late; `--late`): "drain"
#: the cheapest per request among those whose batch the queued requests already fill (the
#: batch leaves now; else the smallest batch), "cheapest" the cheapest per request whatever
#: its batch (the rule before: on the measured profiles it is BERT at batch 128, ~1 s to fill
#: and 947 ms to run, and one late head then makes every later request late). Ours, for
#: every policy alike; not stated in the sources read.
LATE_RULES = ("drain", "cheapest")
DEFAULT_LATE = "drain"
#: The esg policy's A* pruning settings (`--pruning`): "schedlab" the defaults of
#: `AStarOptions` (DP lower-bound heuristic, dominance pruning); "paper" the paper's setting as
#: claim 14 checks it (latency and cost blades, Pareto filter, heuristic the sum of the
#: remaining minimum costs, no dominance pruning). Both are exact: they differ in time.
PRUNINGS: dict[str, AStarOptions] = {
    "schedlab": AStarOptions(),
    "paper": AStarOptions(dominance=False, dp_buckets=0),
}
#: A GPU share counted as a whole GPU (`--no-gpu-sharing`): shares are written as rounded
#: decimals (MIG 1/7 = 0.142857), so 1 - 1e-6 and above.
WHOLE_GPU = 1.0 - 1e-6


@dataclass(frozen=True)
class Factors:
    """The esg policy's factors (ESG's paper: GPU sharing, task batching, adaptivity), each of
    which an ablation switches off, and its A* pruning setting (one of PRUNINGS).

    - gpu_sharing False: whole GPUs only (a GPU configuration must take share 1; CPU-only
      configurations stay: they share no GPU);
    - batching False: batch 1 only;
    - replan False: plan every function of a request once, at its arrival (the planned start
      of each stage from the planning latencies), never again per stage (`plan_request`);
    - pruning: "schedlab" or "paper" (same plans up to ties; decision time differs)."""

    gpu_sharing: bool = True
    batching: bool = True
    replan: bool = True
    pruning: str = "schedlab"

    def check(self) -> None:
        if self.pruning not in PRUNINGS:
            raise InvalidInput(
                f"pruning (--pruning): unknown {self.pruning!r}; choose one of: "
                f"{', '.join(PRUNINGS)}"
            )

    @property
    def full(self) -> bool:
        """Every factor on and the default pruning: ESG as evaluated."""
        return self == Factors()

    def switched_off(self) -> list[str]:
        """The CLI flags of this setting (empty for full ESG)."""
        out = [f"--no-{n.replace('_', '-')}" for n in ("gpu_sharing", "batching", "replan")
               if not getattr(self, n)]  # fmt: skip
        if self.pruning != "schedlab":
            out.append(f"--pruning {self.pruning}")
        return out

    def allowed(self, f: Function) -> np.ndarray:
        """Configurations of f this setting may use."""
        ok = np.ones(len(f.configs), dtype=bool)
        if not self.gpu_sharing:
            ok &= np.array([c.cpu_only or c.gpu_share >= WHOLE_GPU for c in f.configs])
        if not self.batching:
            ok &= np.array([c.batch == 1 for c in f.configs])
        return ok

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def fill_wait_ms(c: Config, rate_per_s: float) -> float:
    """How long a batch of configuration c waits to fill: the file's `wait_ms` when given (> 0:
    the batch timeout it was planned with), else (b - 1) / rate (the simulator waits this)."""
    return c.wait_ms if c.wait_ms > 0 else (c.batch - 1) * 1000.0 / max(rate_per_s, 1e-9)


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
    nominal = [np.array([fill_wait_ms(c, rate_per_s) for c in f.configs]) for f in app.functions]
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
    # the SLO split (esg policy on a DAG): per function, its path to its segment's end and the
    # budgets of the segments after its own; None: plan the critical path only
    seg_path: list[list[int]] | None = None
    seg_after: list[float] | None = None
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
    split = "critical_path"  # how a DAG's SLO is split (the baselines: not at all)
    replan = True  # False: `plan_request` at arrival, then that plan (the simulator reads it)
    late = DEFAULT_LATE  # what a late head takes (LATE_RULES)

    def restrict(self, f: Function) -> np.ndarray:
        """Configurations the policy may use besides its mask (all; the esg policy's factors
        narrow it)."""
        return np.ones(len(f.configs), dtype=bool)

    def prepare(self, app: App, rate_per_s: float) -> AppState:
        lats, costs = app.stage_latency(), app.stage_cost()
        lat, cost = [], []
        for f, a, c in zip(app.functions, lats, costs, strict=True):
            m = MASKS[self.mask](f) & self.restrict(f)
            # the file's wait_ms is in the stage latency `a` already: add only the estimate
            wait = np.array([fill_wait_ms(cf, rate_per_s) - cf.wait_ms for cf in f.configs])
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
            st.cache[key] = self.late_choice(st, f, n) if k is None else k
        return st.cache[key]

    def late_choice(self, st: AppState, f: int, queued: int) -> int:
        """The configuration of a head for which nothing fits (it is late), by `self.late`
        (LATE_RULES): "cheapest" the cheapest per request (whatever its batch); "drain" the
        cheapest whose batch the `queued` requests fill (so it leaves now), else the smallest
        batch."""
        if self.late == "cheapest" or st.fill is None:
            return int(np.argmin(st.cost[f]))
        b = st.fill.batch[f]
        ok = np.isfinite(st.cost[f]) & (b <= queued)
        if not ok.any():
            ok = np.isfinite(st.cost[f]) & (b == b[np.isfinite(st.cost[f])].min())
        return int(np.argmin(np.where(ok, st.cost[f], np.inf)))

    def plan_request(
        self, st: AppState, order: list[int], preds: list[list[int]], slo_ms: float,
        queued: dict[int, int],
    ) -> list[int]:  # fmt: skip
        """Every function's configuration for a request at its arrival (`replan` False): in
        topological `order`, each function decided (`decide`) as a head would be at its planned
        start, the latest planned finish of its predecessors (planning latencies), with the
        budget left then; a source with the `queued` requests at its queue (itself included),
        the others alone. The same rule as per stage, made once, with no feedback."""
        finish = [0.0] * len(order)
        plan = [0] * len(order)
        for f in order:
            start = max((finish[p] for p in preds[f]), default=0.0)
            k = self.decide(st, f, slo_ms - start, queued.get(f, 1))
            plan[f] = k
            lat = float(st.lat[f][k])
            finish[f] = start + (lat if math.isfinite(lat) else 0.0)
        return plan

    def batch_timeout_ms(self, st: AppState, f: int, k: int, remaining_ms: float) -> float | None:
        """How long configuration k's batch may wait to fill, counted from the head's arrival
        in the queue (None: the simulator's rule, the file's wait_ms or (b - 1) / rate)."""
        return None

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
    """ESG_1Q re-planned at every head. On a DAG the SLO is split over the dominator segments
    (`split`, one of SPLITS) in `prepare`, on the planning tables; a head at function f plans
    f's path to its segment's end within its segment's deadline (remaining budget minus the
    budgets of the later segments), and the whole critical path within the remaining budget
    when that does not fit (a late request borrows the later segments' slack)."""

    name = "esg"

    def __init__(self, split: str = DEFAULT_SPLIT, factors: Factors | None = None) -> None:
        if split not in SPLITS:
            raise InvalidInput(
                f"split (--split): unknown {split!r}; choose one of: {', '.join(SPLITS)}"
            )
        self.split = split
        self.factors = factors or Factors()
        self.factors.check()
        self.replan = self.factors.replan
        self.astar = PRUNINGS[self.factors.pruning]

    def restrict(self, f: Function) -> np.ndarray:
        """The configurations the factors allow (`Factors.allowed`)."""
        return self.factors.allowed(f)

    def prepare(self, app: App, rate_per_s: float) -> AppState:
        """The shared tables, and the split of the app's SLO on them (a DAG only). A function
        the factors leave with no configuration is refused, naming it and the flag."""
        if not self.factors.full:
            bad = [f.id for f in app.functions if not self.factors.allowed(f).any()]
            if bad:
                raise InvalidInput(
                    f"policy esg {' '.join(self.factors.switched_off())}: app {app.name!r} "
                    f"function(s) {', '.join(map(repr, bad))} have no configuration left "
                    "(--no-gpu-sharing keeps share-1 and CPU-only configurations, --no-batching "
                    "batch-1 ones); give them such configurations or drop the flag"
                )
        st = super().prepare(app, rate_per_s)
        if self.split == "critical_path" or app.is_chain:
            return st
        segs = [s for s, _ in merged_segments(app)]
        if self.split == "opt":
            budgets = optimize(app, st.lat, st.cost, app.slo_ms).budgets
        else:
            rule: Rule = "slack" if self.split == "slack" else "min_latency"
            budgets = rule_budgets(app, segs, rule, st.lat, st.cost, app.slo_ms)
        if budgets is None or len(segs) < 2:  # no plan fits the SLO, or nothing to split
            return st
        st.seg_path, st.seg_after = self._segment_paths(app, segs, st.fast, budgets)
        return st

    @staticmethod
    def _segment_paths(
        app: App, segs: list[list[int]], fast: list[float], budgets: list[float]
    ) -> tuple[list[list[int]], list[float]]:
        """Per function: its longest (at fastest) path to its segment's end, and the budgets
        of the segments after its own."""
        paths: list[list[int]] = [[] for _ in fast]
        after = [0.0] * len(fast)
        preds = app.preds()
        for k, seg in enumerate(segs):
            for i in reversed(seg):  # seg is in topological order: successors first
                nxt = [j for j in seg if i in preds[j]]
                best = max(nxt, key=lambda j: sum(fast[x] for x in paths[j]), default=None)
                paths[i] = [i] + (paths[best] if best is not None else [])
                after[i] = float(sum(budgets[k + 1 :]))
        return paths, after

    def decision_work(self, st: AppState, f: int) -> float:
        """A* over the remaining critical path (and the segment's path first): a DP table of
        (stages + 1) x (buckets + 1) cells and one pass per Pareto configuration per bucket."""
        n = st.pareto_counts()
        paths = [st.path[f]] + ([st.seg_path[f]] if st.seg_path is not None else [])
        cells = sum(n[i] + 1 for p in paths for i in p) * (POLICY_DP_BUCKETS + 1)
        return 1.0 + cells / CELLS_PER_STEP

    def choose(self, st: AppState, f: int, budget: float) -> int | None:
        if st.seg_path is not None and st.seg_after is not None:
            k = self._plan(st, st.seg_path[f], budget - st.seg_after[f])
            if k is not None:
                return k
        return self._plan(st, st.path[f], budget)

    def _plan(self, st: AppState, path: list[int], budget: float) -> int | None:
        """A* over `path` within `budget`: the first function's configuration (None: none)."""
        if budget <= 0:
            return None
        ls, cs = [], []
        for i in path:
            keep = np.isfinite(st.lat[i])
            ls.append(st.lat[i][keep])
            cs.append(st.cost[i][keep])
        s = astar_chain(ls, cs, budget, self.astar)
        if s.choice is None:
            return None
        return int(np.flatnonzero(np.isfinite(st.lat[path[0]]))[s.choice[0]])


@register_policy(
    SUBJECT,
    "greedy",
    summary="cheapest configuration leaving room for the rest",
    tags=("figure",),
)
class GreedyPolicy(PathPolicy):
    name = "greedy"


@dataclass
class BaselineState(AppState):
    """A baseline's tables: AppState plus each configuration's execution time (ms: the stage
    latency without any fill wait) and the fastest one per function within the mask."""

    exec_ms: list[np.ndarray] = field(default_factory=list)
    exec_fast: list[float] = field(default_factory=list)


class SplitPolicy(PathPolicy):
    """A per-function baseline (INFless and BATCH configure each function against its own
    SLO; neither splits a pipeline's): a function's SLO is the head's remaining budget split
    over the remaining critical path in proportion to the fastest execution times (ours)."""

    #: What the mask keeps, for the refusal when a function has none of it.
    needs = "a configuration"

    def prepare(self, app: App, rate_per_s: float) -> BaselineState:
        """The base tables, the fill model, execution times; refuse a function with no
        configuration in the mask (InvalidInput naming it and the fix)."""
        st = super().prepare(app, rate_per_s)
        attach_fill(st, app, rate_per_s)
        assert st.fill is not None
        bad = [
            f.id for f, lat in zip(app.functions, st.lat, strict=True) if not np.isfinite(lat).any()
        ]
        if bad:
            raise InvalidInput(
                f"policy {self.name}: app {app.name!r} function(s) {', '.join(map(repr, bad))} "
                f"have no {self.needs}, the only kind this baseline uses; give the functions "
                "such configurations (e.g. schedlab esg generate --cpu-configs 12) or drop the "
                "policy"
            )
        ex = [lat - w for lat, w in zip(st.lat, st.fill.nominal_ms, strict=True)]
        return BaselineState(
            st.lat, st.cost, st.path, st.fast, fill=st.fill,
            exec_ms=ex, exec_fast=[float(x.min()) for x in ex],
        )  # fmt: skip

    def slo_share_ms(self, st: AppState, f: int, budget: float) -> float:
        """Function f's own SLO: its share of the budget over the remaining critical path."""
        fast = st.exec_fast if isinstance(st, BaselineState) else st.fast
        total = sum(fast[i] for i in st.path[f])
        return budget * fast[f] / total if total > 0 else budget

    def choose(self, st: AppState, f: int, budget: float) -> int | None:
        """The cheapest configuration whose planning latency (fill wait included) fits the
        function's own SLO; else the look-ahead rule."""
        ok = st.lat[f] <= self.slo_share_ms(st, f, budget) + LAT_TOL
        if not ok.any():
            return super().choose(st, f, budget)
        return int(np.argmin(np.where(ok, st.cost[f], np.inf)))


@register_policy(
    SUBJECT,
    "batch",
    summary="BATCH-like: CPU-only (Lambda), batch and timeout per function SLO",
    tags=("figure",),
)
class BatchPolicy(SplitPolicy):
    """BATCH (Ali et al., SC 2020) on AWS Lambda: CPU-only functions, its optimizer picks the
    memory (vCPUs), the batch size and the batch timeout that meet the function's SLO at the
    least cost. Here: the cheapest CPU-only configuration whose execution plus expected fill
    wait (b - 1) / rate (the timeout) fits the function's SLO."""

    name, mask = "batch", "batch"
    needs = "CPU-only configuration (gpu_share 0)"


@register_policy(
    SUBJECT,
    "infless",
    summary="INFless-like: CPU or MPS 10-50 %, exec <= SLO/2 for batches, timeout SLO - exec",
    tags=("figure",),
)
class InflessPolicy(SplitPolicy):
    """INFless (Yang et al., ASPLOS 2022): per function, batch b = 1 must execute within the
    SLO (timeout 0); b > 1 within SLO / 2, with the batch timeout SLO - exec; resources are
    CPU threads with a GPU share of at most 50 % via MPS, or CPU only. Among those, the
    cheapest per request (INFless ranks by throughput per resource; per-request cost is its
    inverse at our prices)."""

    name, mask = "infless", "infless"
    needs = "CPU-only configuration or GPU share of 10-50 %"

    def choose(self, st: AppState, f: int, budget: float) -> int | None:
        """INFless's rule within the function's SLO; else the look-ahead rule."""
        if not isinstance(st, BaselineState) or st.fill is None:
            return super().choose(st, f, budget)
        slo = self.slo_share_ms(st, f, budget) + LAT_TOL
        ex = st.exec_ms[f]
        ok = np.where(st.fill.batch[f] > 1, ex <= slo / 2, ex <= slo)
        if not ok.any():
            return PathPolicy.choose(self, st, f, budget)
        return int(np.argmin(np.where(ok, st.cost[f], np.inf)))

    def batch_timeout_ms(self, st: AppState, f: int, k: int, remaining_ms: float) -> float | None:
        """INFless's batch timeout: the function's SLO - exec for b > 1, 0 for b = 1."""
        if not isinstance(st, BaselineState) or st.fill is None:
            return None
        if st.fill.batch[f][k] <= 1:
            return 0.0
        slo = self.slo_share_ms(st, f, math.floor(remaining_ms * 10) / 10)
        return max(slo - float(st.exec_ms[f][k]), 0.0)


@register_policy(SUBJECT, "static", summary="fixed resources, no batching", tags=("figure",))
class StaticPolicy(PathPolicy):
    name, mask = "static", "static"


def make_policy(
    name: str, split: str | None = None, factors: Factors | None = None, late: str | None = None
) -> PathPolicy:
    """A fresh policy object by registered name; `split` (one of SPLITS) and `factors` (the
    ablations, `Factors`) for the esg policy only; `late` (LATE_RULES) for any."""
    if late is not None and late not in LATE_RULES:
        raise InvalidInput(
            f"late (--late): unknown {late!r}; choose one of: {', '.join(LATE_RULES)}"
        )
    policy = _make(name, split, factors)
    policy.late = late or DEFAULT_LATE
    return policy


def _make(name: str, split: str | None, factors: Factors | None) -> PathPolicy:
    """The policy object of `make_policy`, before its late rule is set."""
    cls = POLICIES.get(name, scope=SUBJECT).obj
    if split is not None and name != "esg" and split != "critical_path":
        raise InvalidInput(
            f"split (--split): only the esg policy splits the SLO (policy {name!r}); "
            "leave it out or choose critical_path"
        )
    if factors is not None and name != "esg" and not factors.full:
        raise InvalidInput(
            f"{' '.join(factors.switched_off())}: ablations of the esg policy only (policy "
            f"{name!r}); leave them out"
        )
    if name != "esg":
        policy: PathPolicy = cls()
        return policy
    esg: PathPolicy = cls(DEFAULT_SPLIT if split is None else split, factors)
    return esg
