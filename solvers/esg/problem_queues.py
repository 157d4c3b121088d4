"""Many queues at once under invoker capacities: the problem, its tables and its plans.

A queue is the (application, function) queue of a chain at stage `from_stage`: its head request
has `budget_ms` left and `requests` requests wait. Serving the queue picks one configuration per
remaining stage and places each stage's container on an invoker; a configuration of batch b
runs ceil(requests / b) batches back to back on that container, so its stage latency is
ceil(n / b) * latency_ms + wait_ms + transfer_ms (in that order) and its cost ceil(n / b) *
(vcpus * vcpu_s + gpu_share * gpu_s) * latency_ms / 1000 (whole runs are paid). The queue is a
hit when its stages' latencies, summed in stage order from 0.0, are at most budget_ms + LAT_TOL
(`problem.fits_budget`, ESG's one SLO tolerance). A queue may be left unserved (a miss; it takes
no resources now). The containers on an invoker must fit its vCPUs and GPU share together: their
vCPUs (shares), summed in queue-then-stage order from 0.0, at most capacity + CAP_TOL
(`cap_limit`). `evaluate` is that definition; every q_* method and the tests use it.

Objective (lexicographic): most hits first, least total cost second. As one number (the
`value` every method reports, minimised): misses + cost / cost_ref with cost_ref = 2 x the sum
over queues of their dearest path: the cost term is below 1/2, so one more hit always wins.

File format (JSON): {"invokers": [{"vcpus": 16, "gpu": 1.0}, ...], "queues": [{"app": {an
application object, a chain}, "budget_ms": 80, "requests": 3, "from_stage": 0}, ...]}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.esg.dispatch import CAP_TOL
from schedlab.solvers.esg.problem import App, fits_budget
from schedlab.solvers.result import SolveResult, solution_result
from schedlab.solvers.serialize import JsonFile

#: per queue: None (a miss) or per stage (configuration index, invoker index)
Choice = tuple[tuple[int, int], ...] | None


def cap_limit(capacity: float) -> float:
    """The most the containers on an invoker may use of `capacity`: capacity + CAP_TOL."""
    return capacity + CAP_TOL


@dataclass(frozen=True)
class Queue:
    """One queue: a chain application, the stage it is at, its head's budget, its requests."""

    app: App
    budget_ms: float
    requests: int = 1
    from_stage: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "app": self.app.to_dict(),
            "budget_ms": self.budget_ms,
            "requests": self.requests,
            "from_stage": self.from_stage,
        }


@dataclass(frozen=True)
class InvokerCap:
    """An invoker's capacity: vCPUs and GPU share (1.0 = one whole GPU)."""

    vcpus: float
    gpu: float


@dataclass(frozen=True)
class StageTable:
    """Per configuration of one stage of one queue: latency, cost, vCPUs, GPU share."""

    lat: np.ndarray
    cost: np.ndarray
    vcpus: np.ndarray
    share: np.ndarray


@dataclass(frozen=True)
class QueuesProblem(JsonFile):
    """Queues and invokers; `kind` "queues" (methods `q_*`)."""

    subject: ClassVar[str] = "esg"
    FILE_WHAT: ClassVar[str] = "the queues file"

    queues: tuple[Queue, ...]
    invokers: tuple[InvokerCap, ...]

    @property
    def kind(self) -> str:
        return "queues"

    def tables(self) -> list[list[StageTable]]:
        """Per queue, per remaining stage: the configuration table (see the module doc)."""
        out = []
        for q in self.queues:
            pr = q.app.prices
            rows = []
            for f in q.app.functions[q.from_stage :]:
                runs = np.array([math.ceil(q.requests / c.batch) for c in f.configs], dtype=float)
                lat = np.array([c.latency_ms for c in f.configs])
                wait = np.array([c.wait_ms for c in f.configs])
                v = np.array([c.vcpus for c in f.configs])
                g = np.array([c.gpu_share for c in f.configs])
                cost = runs * (v * pr.vcpu_s + g * pr.gpu_s) * lat / 1000.0
                rows.append(StageTable(runs * lat + wait + f.transfer_ms, cost, v, g))
            out.append(rows)
        return out

    def cost_ref(self) -> float:
        """2 x the sum over queues of their dearest path (> 0): the cost term stays below 1/2."""
        total = sum(sum(float(t.cost.max()) for t in rows) for rows in self.tables())
        return 2.0 * max(total, 1e-300)

    # --- files --------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> QueuesProblem:
        return _parse(data, source)

    def to_dict(self) -> dict[str, Any]:
        return {
            "invokers": [{"vcpus": i.vcpus, "gpu": i.gpu} for i in self.invokers],
            "queues": [q.to_dict() for q in self.queues],
        }


def _pos(p: Problems, where: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not (math.isfinite(v) and v > 0):
        p.add(f"{where}: must be a positive finite number (got {v!r})")
        return 1.0
    return float(v)


def _queue(p: Problems, k: int, d: Any) -> Queue | None:
    where = f"queues[{k}]"
    if not isinstance(d, dict):
        p.add(f"{where}: must be an object with app, budget_ms, requests")
        return None
    known = {"app", "budget_ms", "requests", "from_stage"}
    for key in sorted(set(d) - known):
        p.add(f"{where}.{key}: unknown field; fields: {', '.join(sorted(known))}")
    try:
        app = App.from_dict(d.get("app"))
    except InvalidInput as exc:
        p.add(f"{where}.app: {exc}")
        return None
    if not app.is_chain:
        p.add(f"{where}.app: must be a chain (edges in list order); got a DAG")
    n, s = d.get("requests", 1), d.get("from_stage", 0)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        p.add(f"{where}.requests: must be an integer >= 1 (got {n!r})")
        n = 1
    if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < len(app.functions):
        p.add(f"{where}.from_stage: must be an integer in [0, {len(app.functions)}) (got {s!r})")
        s = 0
    budget = d.get("budget_ms", app.slo_ms)
    return Queue(app, _pos(p, f"{where}.budget_ms", budget), n, s)


def _parse(data: Any, source: str | None) -> QueuesProblem:
    p = Problems()
    if not isinstance(data, dict):
        raise InvalidInput("top level: must be a JSON object with invokers and queues")
    for key in sorted(set(data) - {"invokers", "queues"}):
        p.add(f"{key}: unknown field; fields: invokers, queues")
    raw_inv, raw_q = data.get("invokers"), data.get("queues")
    if not isinstance(raw_inv, list) or not raw_inv:
        p.add("invokers: must be a non-empty list of {vcpus, gpu}")
        raw_inv = []
    if not isinstance(raw_q, list) or not raw_q:
        p.add("queues: must be a non-empty list of {app, budget_ms, requests}")
        raw_q = []
    invs = []
    for k, d in enumerate(raw_inv):
        if not isinstance(d, dict) or set(d) - {"vcpus", "gpu"}:
            p.add(f"invokers[{k}]: must be an object with vcpus and gpu only")
            continue
        invs.append(
            InvokerCap(
                _pos(p, f"invokers[{k}].vcpus", d.get("vcpus")),
                _pos(p, f"invokers[{k}].gpu", d.get("gpu")),
            )
        )
    qs = [_queue(p, k, d) for k, d in enumerate(raw_q)]
    p.raise_if_any(source)
    return QueuesProblem(tuple(q for q in qs if q is not None), tuple(invs))


# --- plans ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class QueuesPlan:
    """Per queue: None (miss) or per stage (config index, invoker index); hits, cost, value."""

    choices: tuple[Choice, ...]
    hits: int
    cost: float
    value: float
    latency_ms: tuple[float | None, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": self.hits,
            "cost": self.cost,
            "value": self.value,
            "queues": [
                None
                if c is None
                else {
                    "configs": [k for k, _ in c],
                    "invokers": [j for _, j in c],
                    "latency_ms": lat,
                }
                for c, lat in zip(self.choices, self.latency_ms, strict=True)
            ],
        }


def evaluate(problem: QueuesProblem, choices: list[Choice]) -> tuple[QueuesPlan, list[str]]:
    """The plan of these choices and the list of its violations (budget, capacity, shape)."""
    tabs, bad = problem.tables(), []
    use = np.zeros((len(problem.invokers), 2))
    cost, hits = 0.0, 0
    lats: list[float | None] = []
    for q, (c, rows) in enumerate(zip(choices, tabs, strict=True)):
        if c is None:
            lats.append(None)
            continue
        if len(c) != len(rows):
            bad.append(f"queue {q}: {len(c)} stages chosen, {len(rows)} remain")
            lats.append(None)
            continue
        lat = sum(float(t.lat[k]) for (k, _), t in zip(c, rows, strict=True))
        cost += sum(float(t.cost[k]) for (k, _), t in zip(c, rows, strict=True))
        for (k, j), t in zip(c, rows, strict=True):
            use[j] += (t.vcpus[k], t.share[k])
        if not fits_budget(lat, problem.queues[q].budget_ms):
            bad.append(f"queue {q}: latency {lat} over budget {problem.queues[q].budget_ms}")
        hits += 1
        lats.append(lat)
    for j, inv in enumerate(problem.invokers):
        if use[j, 0] > cap_limit(inv.vcpus) or use[j, 1] > cap_limit(inv.gpu):
            bad.append(f"invoker {j}: uses {use[j].tolist()} of ({inv.vcpus}, {inv.gpu})")
    value = (len(choices) - hits) + cost / problem.cost_ref()
    return QueuesPlan(tuple(choices), hits, cost, value, tuple(lats)), bad


def queues_result(
    problem: QueuesProblem,
    choices: list[Choice] | None,
    method: str,
    runtime_s: float,
    *,
    exact: bool,
    bound: float | None = None,
    stats: dict[str, Any] | None = None,
) -> SolveResult[QueuesPlan | None]:
    """A SolveResult by the one rule (`result.solution_result`): the plan re-evaluated and
    re-checked on the real data; exact methods certify `value` against `bound` (None: proven,
    an exhaustive search). Every queue may miss, so no plan means the time ran out."""
    stats = dict(stats or {})
    if choices is None:
        return solution_result(None, None, method, runtime_s, exact=exact, sense="min",
                               bound=bound, stats=stats)  # fmt: skip
    plan, bad = evaluate(problem, choices)
    stats.update(hits=plan.hits, cost=plan.cost)
    return solution_result(
        plan, plan.value, method, runtime_s, exact=exact, sense="min", bound=bound,
        proven=bound is None, violations=bad, stats=stats,
    )  # fmt: skip


def random_queues(
    n_queues: int,
    stages: int,
    configs: int,
    invokers: int,
    seed: int,
    *,
    vcpus: float = 8.0,
    gpu: float = 1.0,
    max_requests: int = 4,
) -> QueuesProblem:
    """Seeded random queues (chains from `profiles.generate`), budgets 0.6-1.4 x the SLO."""
    from schedlab.solvers.esg.generate import generate

    rng = np.random.default_rng(seed)
    qs = []
    for q in range(n_queues):
        app = generate(stages, configs, int(rng.integers(2**31)), name=f"q{q}")
        budget = round(app.slo_ms * float(rng.uniform(0.6, 1.4)), 3)
        qs.append(Queue(app, budget, int(rng.integers(1, max_requests + 1))))
    return QueuesProblem(tuple(qs), tuple(InvokerCap(vcpus, gpu) for _ in range(invokers)))
