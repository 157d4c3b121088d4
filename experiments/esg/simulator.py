"""A discrete-event serverless simulator for ESG-style inference pipelines.

Requests arrive per application (Poisson, bursty on/off, or the Azure LLM code trace's arrival
times rescaled to the load). A request enters the queue of each function once all its
predecessors finished (per-(application, function) FIFO queues). When a queue has a head, the
policy picks a configuration (batch b, vCPUs, GPU share) from the head's remaining budget; the
batch leaves when b requests wait or when the head has waited the configuration's `wait_ms`
(when the file gives one: the wait it was planned with) or else the batch-fill estimate
(b - 1) / rate. A partial batch (n < b requests) runs for the least profiled latency of the
same function and size at a batch in n..b (`BatchLatency.ms`), and is billed for that.
Dispatch (`solvers.esg.dispatch.place`, rule `dispatch`, default "esg") places
it on an invoker: a warm idle container of the same size first (upstream invokers first), then
the invoker of the head's upstream function, then best fit on GPU share (idle containers are
evicted when space is needed); a new container pays the cold start (the function's
`cold_start_ms`, else `cold_start_ms` of the run). Idle containers stay warm for `keep_alive_s`.
A batch that finds no room waits, and its queue drops the configuration: when a run finishes
(room may be free) it re-plans from the head's remaining budget then.

Transfer (placement matters): a batch's run = latency_ms + transfer_ms (the file's fixed part,
the same anywhere) + the time to move its inputs: for each request of the batch and each
upstream function, that function's `output_mb` (else the run's `output_mb`, 1 MB) over the
local bandwidth (`local_mb_s`, 10,000 MB/s: shared memory on one invoker) when the upstream
stage ran on the same invoker, else over the network (`remote_mb_s`, 1,250 MB/s: 10 Gbit/s), one
after the other. A source function's input (from the gateway) costs the same anywhere: 0.
Cost = sum over runs of (vcpus * vcpu_s + gpu_share * gpu_s) * run time, so cold start and
transfer time are billed; reported per completed request. Every request completes
(the run drains), and the simulator checks that arrivals = completions.

The door (`Simulation.__init__`, so the CLI and the Python API alike):
- a configuration larger than an invoker (vCPUs or GPU share) is never chosen (dropped; the
  count is `configs_too_large`); a function with no configuration that fits is refused,
  naming the application, the function and the resource;
- the requests must arrive within `MAX_SPAN_MS` of simulated time (a tiny load is refused
  naming `--load`, not turned into an infinite gap);
- work cap `max_events` (`--max-events`): the steps the run implies (per request and function,
  `EVENTS_PER_STAGE` events and one policy decision of `policy.decision_work` steps) are
  checked before the first event, and counted while it runs; the bursty generator counts its
  on/off periods against the same cap; the per-request tables against the memory budget.

Load: `solvers.esg.limits.LOAD_DEFINITION` (the one definition, also the CLI's help), computed
by `gpu_demand_ms` and `arrival_rates`.
"""

from __future__ import annotations

import functools
import heapq
import math
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.esg.policies import (
    AppState,
    PathPolicy,
    attach_fill,
    fill_wait_ms,
    make_policy,
)
from schedlab.experiments.registry import WORKLOADS
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.dispatch import (
    CAP_TOL,
    DISPATCH_RULES,
    Container,
    Invoker,
    Placement,
    expire,
    place,
)
from schedlab.solvers.esg.limits import (
    MAX_COLD_START_MS,
    MAX_INVOKERS,
    MAX_LOAD,
    MAX_REQUESTS,
)
from schedlab.solvers.esg.problem import App
from schedlab.solvers.validate import (
    MAX_MAGNITUDE,
    WorkCap,
    check_alloc,
    check_number,
    check_seed,
    check_work,
    load_json_file,
    read_text_file,
)

#: Default work cap (steps: events, decision work, bursty on/off periods); `--max-events`.
MAX_EVENTS = 10**8
#: Events per request and function in the up-front estimate (arrival or enqueue, timer,
#: dispatch, completion).
EVENTS_PER_STAGE = 4
#: Longest simulated span (ms) the arrivals may cover: the door's magnitude limit (1e12 ms, 32
#: years). Beyond it the float clock loses the service times; a load near 5e-324 would make
#: the mean gap infinite.
MAX_SPAN_MS = MAX_MAGNITUDE
#: Mean on and off periods (ms) of the bursty arrival process.
BURST_ON_MS, BURST_OFF_MS = 1000.0, 3000.0
#: Memory kept per request and per (request, function) during a run (tables, events, queues).
BYTES_PER_REQUEST, BYTES_PER_STAGE = 400, 200
#: Data a function passes on per request when its file gives no `output_mb` (MB): about a
#: 512 x 512 RGB image (0.75 MB) or a mid-network feature map, rounded (illustrative).
OUTPUT_MB = 1.0
#: Bandwidths (MB/s) of a transfer on one invoker (memory copy, ~10 GB/s) and between invokers
#: (a 10 Gbit/s network, 1,250 MB/s); illustrative round numbers, not measured.
LOCAL_MB_S, REMOTE_MB_S = 10_000.0, 1_250.0


@dataclass(frozen=True)
class SimConfig:
    load: float = 0.5
    arrivals: str = "poisson"  # poisson | bursty | azure
    requests: int = 2000
    invokers: int = 4
    vcpus_per_invoker: float = 32.0
    gpus_per_invoker: float = 1.0
    keep_alive_s: float = 60.0
    cold_start_ms: float = 0.0  # used when a function gives none (0: warm-start model)
    dispatch: str = "esg"  # a rule of solvers.esg.dispatch.DISPATCH_RULES
    output_mb: float = OUTPUT_MB  # data per request a function passes on, when it gives none
    local_mb_s: float = LOCAL_MB_S  # bandwidth of a transfer on one invoker
    remote_mb_s: float = REMOTE_MB_S  # bandwidth of a transfer between invokers
    seed: int = 0
    trace: str | None = None  # an Azure LLM trace CSV for arrivals "azure" (default: the sample)
    max_events: int = MAX_EVENTS  # work cap (steps), see the module docstring
    warmup_frac: float = 0.0  # share (0..0.95) of the earliest arrivals left out of the metrics

    def check(self) -> None:
        """The CLI's ranges (`solvers.esg.limits`) for a configuration built in Python."""
        p: list[str] = []
        for name, lo, hi in (
            ("requests", 1, MAX_REQUESTS),
            ("invokers", 1, MAX_INVOKERS),
            ("max_events", 1, 10**12),
        ):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                p.append(f"{name.replace('_', '-')}: must be an integer in {lo}..{hi} (got {v!r})")
        check_number(self.load, "load", lo=0.0, hi=MAX_LOAD, lo_open=True, problems=p)
        check_number(self.cold_start_ms, "cold-start-ms", lo=0.0, hi=MAX_COLD_START_MS, problems=p)
        for name in ("vcpus_per_invoker", "gpus_per_invoker", "keep_alive_s"):
            check_number(getattr(self, name), name, lo=0.0, lo_open=True, problems=p)
        check_number(self.output_mb, "output_mb", lo=0.0, problems=p)
        check_number(self.warmup_frac, "warmup_frac", lo=0.0, hi=0.95, problems=p)
        for name in ("local_mb_s", "remote_mb_s"):
            check_number(getattr(self, name), name, lo=0.0, lo_open=True, problems=p)
        if self.dispatch not in DISPATCH_RULES:
            p.append(
                f"dispatch: unknown {self.dispatch!r}; choose one of: {', '.join(DISPATCH_RULES)}"
            )
        if p:
            raise InvalidInput(p)
        check_seed(self.seed, allow_none=False)


def load_apps(path: Path) -> list[App]:
    """An application file or a JSON list of application objects."""
    data = load_json_file(path, "the application file")
    items = data if isinstance(data, list) else [data]
    if not items:
        raise InvalidInput(f"{path}: an empty list of applications")
    apps = []
    for i, d in enumerate(items):
        try:
            apps.append(App.from_dict(d))
        except InvalidInput as exc:
            where = f"{path}" + (f"[{i}]" if isinstance(data, list) else "")
            raise exc.with_source(where) from None
    return apps


def azure_offsets() -> np.ndarray:
    """Shipped arrival offsets (s) of the Azure LLM code trace (first 3,000 requests)."""
    text = resources.files("schedlab.experiments.esg").joinpath("data/azure_code_arrivals.csv")
    return np.array([float(x) for x in text.read_text().split()[1:]])


def trace_offsets(path: str) -> np.ndarray:
    """Arrival offsets (s) of a whole Azure LLM trace CSV (TIMESTAMP,ContextTokens,...).

    The file goes through the input door (encoding, size); every bad timestamp is named with
    its line. Offsets are sorted and start at 0. Parsed once per (path, modification time,
    size): a file rewritten in place is read again.
    """
    try:
        st = os.stat(path)
    except OSError:
        return _trace_offsets(path, 0, -1)  # read_text_file names the problem
    return _trace_offsets(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _trace_offsets(path: str, mtime_ns: int, size: int) -> np.ndarray:
    """`trace_offsets` of one version of the file (the cache key holds its stat)."""
    lines = read_text_file(path, "the arrival trace").splitlines()
    if not lines or lines[0].split(",")[0].strip() != "TIMESTAMP":
        raise InvalidInput(f"{path}: the header must start with TIMESTAMP (an Azure LLM trace)")
    stamps, problems = [], []
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cell = line.split(",")[0].strip()
        try:
            stamps.append(datetime.fromisoformat(cell).timestamp())
        except ValueError:
            problems.append(f"line {no}: TIMESTAMP {cell[:40]!r} is not a date-time")
    if problems or len(stamps) < 2:
        raise InvalidInput(problems[:20] or ["fewer than 2 arrivals"], source=str(path))
    t = np.sort(np.array(stamps))
    if t[-1] == t[0]:
        raise InvalidInput(
            f"TIMESTAMP: all {len(t)} arrivals fall on one instant (to the microsecond): no gaps "
            "to rescale to --load; give a trace whose arrivals span some time",
            source=str(path),
        )
    return t - t[0]


def check_arrival_span(rate: float, n: int, why: str = "") -> None:
    """Refuse a rate (per second) whose n arrivals would span more than MAX_SPAN_MS; `why`
    says where the rate came from."""
    span = n * 1000.0 / rate if rate > 0 and math.isfinite(rate) else math.inf
    if not span <= MAX_SPAN_MS:
        raise InvalidInput(
            f"--load: {n} requests at {rate:.3g} per second{why} would arrive over {span:.3g} "
            f"ms of simulated time, above {MAX_SPAN_MS:.0e} ms (32 years; the clock would lose "
            "the service times); raise --load, lower --requests, or check the latencies"
        )


def arrival_times(
    kind: str,
    rate: float,
    n: int,
    rng: np.random.Generator,
    trace: str | None = None,
    *,
    max_steps: float = MAX_EVENTS,
) -> np.ndarray:
    """n arrival times (ms) with mean rate `rate` per second (`trace`: for kind "azure").

    Every kind: the n arrivals must span at most MAX_SPAN_MS (`check_arrival_span`). Bursty
    draws one on/off period per step: refused up front when the periods it expects exceed
    `max_steps`, stopped at `max_steps` (both naming --max-events). Azure: a window of equal
    timestamps (zero gaps) is scaled by the whole trace's mean gap (arrivals at one instant).
    """
    check_arrival_span(rate, n)
    if kind == "poisson":
        return np.cumsum(rng.exponential(1000.0 / rate, size=n))
    if kind == "bursty":  # on/off: on 25 % of the time at 4x the mean rate
        what = f"esg simulate: bursty arrivals at {rate:.3g} per second (a step per on/off period)"
        periods = 2.0 * n * 1000.0 / rate / (BURST_ON_MS + BURST_OFF_MS)
        check_work(periods, max_steps, what, "--max-events (or raise --load)")
        cap = WorkCap(max_steps, what, "--max-events (or raise --load)")
        out: list[float] = []
        t, on = 0.0, True
        while len(out) < n:
            cap.step()
            span = rng.exponential(BURST_ON_MS if on else BURST_OFF_MS)
            if on:
                k = rng.poisson(4 * rate * span / 1000.0)
                out.extend(np.sort(t + rng.uniform(0, span, size=k)).tolist())
            t, on = t + span, not on
        return np.array(out[:n])
    if kind == "azure":
        off = azure_offsets() if trace is None else trace_offsets(trace)
        gaps = np.roll(np.diff(off), -int(rng.integers(len(off) - 1)))  # seeded start
        g = np.tile(gaps, int(np.ceil(n / len(gaps))))[:n]
        mean = g.mean() if g.mean() > 0 else gaps.mean()  # a window of equal stamps: one instant
        g = g / mean * (1000.0 / rate)
        return np.cumsum(g)
    raise InvalidInput(f"arrivals: unknown {kind!r}; choose poisson, bursty or azure")


def arrival_process(kind: str) -> Callable[..., np.ndarray]:
    """The arrival process registered as `kind` (`WORKLOADS`, scope "esg"; `workloads.py` wraps
    `arrival_times`), so that a registered process is one the simulator runs."""
    names = WORKLOADS.names(scope="esg", tag="arrivals")
    if kind not in names:
        raise InvalidInput(f"arrivals: unknown {kind!r}; choose one of: {', '.join(names)}")
    return WORKLOADS.get(kind, scope="esg").obj


def gpu_demand_ms(apps: list[App]) -> float:
    """GPU-ms per request summed over the apps at their batch-1 GPU configurations of least
    GPU time (what load 1.0 is measured against; CPU-only configurations do not count)."""
    demand = 0.0
    for a in apps:
        for f in a.functions:
            gpu = [c for c in f.configs if not c.cpu_only]
            ones = [c for c in gpu if c.batch == 1] or gpu
            if ones:
                demand += min(c.gpu_share * c.latency_ms / c.batch for c in ones)
    if demand <= 0:
        raise InvalidInput(
            "--load: the applications have no GPU configuration, and the load is defined "
            "by GPU time (see --help); give at least one function a configuration with "
            "gpu_share > 0"
        )
    return demand


def arrival_rates(apps: list[App], cfg: SimConfig) -> list[float]:
    """Per-app arrival rate (1/s) for the configured load: the same r for every app,
    r x demand = load x capacity (`LOAD_DEFINITION`)."""
    capacity = cfg.invokers * cfg.gpus_per_invoker * 1000.0  # GPU-ms per s
    total = cfg.load * capacity / max(gpu_demand_ms(apps), 1e-9)
    return [total] * len(apps)


def requests_per_app(n_apps: int, n: int) -> list[int]:
    """Requests of each application (n split as evenly as possible, the first ones +1)."""
    return [n // n_apps + (1 if i < n % n_apps else 0) for i in range(n_apps)]


class DecisionLog:
    """Wall and CPU time (ms) of every policy decision, and which ones the policy computed (a
    cache miss): the decision-time metrics, kept apart from the simulated clock."""

    def __init__(self) -> None:
        self.ms: list[float] = []  # every decision, cache hits included
        self.miss_ms: list[float] = []  # the decisions the policy computed
        self.cpu_ms: list[float] = []  # CPU time of this thread per decision

    @staticmethod
    def start(state: AppState) -> tuple[int, float, float]:
        """What `stop` needs: the policy cache's size and the wall and CPU clocks, now."""
        return len(state.cache), time.perf_counter(), time.thread_time()

    def stop(self, state: AppState, started: tuple[int, float, float]) -> None:
        """Record a decision begun at `started`; a miss when the policy's cache grew."""
        cached, t0, c0 = started
        took = (time.perf_counter() - t0) * 1000.0
        self.ms.append(took)
        self.cpu_ms.append((time.thread_time() - c0) * 1000.0)
        if len(state.cache) > cached:
            self.miss_ms.append(took)

    def metrics(self) -> dict[str, Any]:
        """The decision-time percentiles and counts of the run's metrics (0 without any)."""
        dec = np.array(self.ms) if self.ms else np.zeros(1)
        miss = np.array(self.miss_ms) if self.miss_ms else np.zeros(1)
        cpu = np.array(self.cpu_ms) if self.cpu_ms else np.zeros(1)
        return {
            "decision_ms_p50": float(np.percentile(dec, 50)),
            "decision_ms_p99": float(np.percentile(dec, 99)),
            "decision_ms_p99_computed": float(np.percentile(miss, 99)),
            "decision_cpu_ms_p50": float(np.percentile(cpu, 50)),
            "decision_cpu_ms_p99": float(np.percentile(cpu, 99)),
            "decisions": len(self.ms),
            "decisions_cached": len(self.ms) - len(self.miss_ms),
        }


class BatchLatency:
    """Run latency of a batch on a configuration, partial batches included; the profile of
    each (application, function, vCPUs, GPU share) is sorted once and kept."""

    def __init__(self, apps: list[App]) -> None:
        self.apps = apps
        self.profiles: dict[tuple[int, int, float, float], list[tuple[int, float]]] = {}

    def ms(self, a: int, fn: int, k: int, n: int) -> float:
        """Latency of n requests on configuration k (batch b): a partial batch (n < b) takes
        the least profiled latency of the same function and size (vCPUs, GPU share) at a batch
        in n..b (k's own among them), so it pays for what it carries."""
        f = self.apps[a].functions[fn]
        c = f.configs[k]
        if n >= c.batch:
            return c.latency_ms
        key = (a, fn, c.vcpus, c.gpu_share)
        prof = self.profiles.get(key)
        if prof is None:
            same = [x for x in f.configs if (x.vcpus, x.gpu_share) == (c.vcpus, c.gpu_share)]
            prof = self.profiles[key] = sorted((x.batch, x.latency_ms) for x in same)
        return min(lat for b, lat in prof if n <= b <= c.batch)


class TransferLedger:
    """Time to move a batch's inputs from the upstream stages, and the run's transfer counts
    (how much data moved locally), so placement's effect shows in the metrics."""

    def __init__(self, apps: list[App], cfg: SimConfig, preds: list[list[list[int]]]) -> None:
        self.apps, self.cfg, self.preds = apps, cfg, preds
        self.transfer_ms = 0.0  # summed over (request, stage with upstream data)
        self.transfers = 0  # (request, stage with upstream data) pairs
        self.edges_local = self.edges_total = 0  # (request, upstream function) data moves

    def batch_ms(
        self, a: int, fn: int, i: int, batch: list[int], where: list[dict[int, int]]
    ) -> float:
        """Time (ms) to move a batch's inputs to invoker i: each request's data from each
        upstream function, locally when that stage ran on i (`where[r][p]`), else over the
        network."""
        total = 0.0
        for p in self.preds[a][fn]:
            mb = self.apps[a].functions[p].output_mb
            mb = self.cfg.output_mb if mb is None else mb
            for r in batch:
                local = where[r][p] == i
                self.edges_local += local
                self.edges_total += 1
                total += mb * 1000.0 / (self.cfg.local_mb_s if local else self.cfg.remote_mb_s)
        if self.preds[a][fn]:
            self.transfer_ms += total * len(batch)
            self.transfers += len(batch)
        return total

    def metrics(self) -> dict[str, Any]:
        """Mean transfer time per (request, stage with upstream data) and the local share."""
        return {
            "mean_transfer_ms": self.transfer_ms / max(self.transfers, 1),
            "local_transfer_share": self.edges_local / max(self.edges_total, 1),
        }


def request_metrics(
    apps: list[App],
    req_app: list[int],
    arrival: list[float],
    finish: list[float],
    req_cost: list[float],
    warmup_frac: float,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Hit rate, cost and latency over the measured requests (the earliest `warmup_frac` of
    the arrivals left out), overall and per application; refuses a run that lost requests."""
    fin = np.array(finish)
    arrived = len(fin)
    done = int(np.isfinite(fin).sum())
    if done != arrived:
        raise RuntimeError(f"simulator lost requests: {arrived} arrived, {done} completed")
    arr = np.array(arrival)
    # steady state: leave out the earliest warmup_frac of the arrivals (by arrival time)
    skip = int(math.floor(warmup_frac * arrived))
    keep = np.sort(np.argsort(arr, kind="stable")[skip:]) if skip else np.arange(arrived)
    lat = (fin - arr)[keep]
    slo = np.array([apps[a].slo_ms for a in req_app])[keep]
    measured_cost = float(np.sum(np.array(req_cost)[keep]))
    ok = lat <= slo + 1e-9
    owner = np.array(req_app)[keep]
    per_cost = np.array(req_cost)[keep]
    per_app = [
        {
            "app": app.name,
            "measured_requests": int((owner == a).sum()),
            "slo_hit_rate": float(ok[owner == a].mean()) if (owner == a).any() else 0.0,
            "cost": float(per_cost[owner == a].sum()) / max(int((owner == a).sum()), 1),
        }
        for a, app in enumerate(apps)
    ]
    overall = {
        "requests": arrived,
        "completed": done,
        "measured_requests": len(keep),
        "slo_hit_rate": float(np.mean(ok)),
        "slo_hits": int(ok.sum()),
        "cost": measured_cost / max(len(keep), 1),
        "p50_latency_ms": float(np.percentile(lat, 50)),
        "p99_latency_ms": float(np.percentile(lat, 99)),
    }
    return overall, per_app


class Simulation:
    """One run; `run()` returns the metrics. It holds the event queue, the per-request tables
    and the function queues; the batch latency, the transfers and the decision times are kept
    by `BatchLatency`, `TransferLedger` and `DecisionLog`."""

    def __init__(self, apps: list[App], policy: str | PathPolicy, cfg: SimConfig) -> None:
        cfg.check()
        self.apps, self.configs_too_large = servable_apps(apps, cfg)
        self.cfg = cfg
        self.policy = make_policy(policy) if isinstance(policy, str) else policy
        self.rng = np.random.default_rng(cfg.seed)
        # its own stream: arrivals stay the same whichever dispatch rule runs
        self.dispatch_rng = np.random.default_rng([cfg.seed, 1])
        self.rates = arrival_rates(self.apps, cfg)
        self.per_app = requests_per_app(len(self.apps), cfg.requests)
        demand = gpu_demand_ms(self.apps)
        why = f" (load {cfg.load:g} over a demand of {demand:.3g} GPU-ms per request)"
        for r, k in zip(self.rates, self.per_app, strict=True):
            check_arrival_span(r, max(k, 1), why)
        funcs = max(len(a.functions) for a in self.apps)
        check_alloc(
            cfg.requests * (BYTES_PER_REQUEST + BYTES_PER_STAGE * funcs),
            f"esg simulate: {cfg.requests} requests of up to {funcs} functions",
            fix="lower --requests",
        )
        self.states: list[AppState] = [
            self.policy.prepare(a, r) for a, r in zip(self.apps, self.rates, strict=True)
        ]
        for st, a, r in zip(self.states, self.apps, self.rates, strict=True):
            attach_fill(st, a, r)
        what = "esg simulate: requests x functions x (4 events + the policy's decision work)"
        check_work(self.work_estimate(), cfg.max_events, what, "--max-events")
        self.cap = WorkCap(cfg.max_events, "esg simulate", "--max-events")
        self.preds = [a.preds() for a in self.apps]
        self.topo = [a.topo_order() for a in self.apps]
        self.succ = [
            [[j for j, ps in enumerate(p) if i in ps] for i in range(len(p))] for p in self.preds
        ]
        self.invokers = [
            Invoker(cfg.vcpus_per_invoker, cfg.gpus_per_invoker) for _ in range(cfg.invokers)
        ]
        self.queues: dict[tuple[int, int], deque[int]] = {}
        self.pending: dict[tuple[int, int], tuple[int, float]] = {}  # queue -> (cfg, go time)
        self.blocked: set[tuple[int, int]] = set()
        self.events: list[tuple[float, int, str, Any]] = []
        self.seq = 0
        self.latency = BatchLatency(self.apps)
        self.ledger = TransferLedger(self.apps, cfg, self.preds)
        self.decisions = DecisionLog()
        self.cost = 0.0
        self.cold_starts = 0

    def work_estimate(self) -> float:
        """Steps the run implies: per request and function, EVENTS_PER_STAGE events and one
        decision of `policy.decision_work` steps (every decision a cache miss). A queue that
        waits for room re-plans, more decisions, counted as the run makes them."""
        total = 0.0
        for a, k in enumerate(self.per_app):
            fns = range(len(self.apps[a].functions))
            per = sum(EVENTS_PER_STAGE + self.policy.decision_work(self.states[a], f) for f in fns)
            total += k * per
        return total

    def push(self, t: float, kind: str, data: Any) -> None:
        """Schedule an event at t (ties in the order pushed)."""
        self.seq += 1
        heapq.heappush(self.events, (t, self.seq, kind, data))

    # --- requests ---------------------------------------------------------------------
    def _setup_requests(self) -> None:
        """Draw every application's arrivals (in application order, from the run's seed) and
        set up the per-request tables."""
        arrivals = arrival_process(self.cfg.arrivals)
        self.req_app: list[int] = []
        self.req_arrival: list[float] = []
        for a, k in enumerate(self.per_app):
            if k == 0:
                continue
            ts = arrivals(self.rates[a], k, self.rng, self.cfg.trace, max_steps=self.cfg.max_events)
            for t in ts:
                rid = len(self.req_app)
                self.req_app.append(a)
                self.req_arrival.append(float(t))
                self.push(float(t), "arrive", rid)
        m = len(self.req_app)
        self.req_left = [[len(p) for p in self.preds[self.req_app[r]]] for r in range(m)]
        self.req_done_fns = [0] * m
        self.req_finish = [np.nan] * m
        self.req_where: list[dict[int, int]] = [{} for _ in range(m)]
        self.req_cost = [0.0] * m
        self.req_enq: dict[tuple[int, int], float] = {}
        self.req_plan: dict[int, list[int]] = {}  # plans made at arrival (policy.replan False)

    def _plan_at_arrival(self, rid: int) -> None:
        """A policy that does not re-plan (`policy.replan` False) plans every function of the
        request now (`plan_request`, a decision like any other); its heads take that plan."""
        a = self.req_app[rid]
        srcs = {fn: len(self.queues.get((a, fn), ())) + 1 for fn, ps in enumerate(self.preds[a])
                if not ps}  # fmt: skip
        order = self.topo[a]
        started = self.decisions.start(self.states[a])
        plan = self.policy.plan_request(
            self.states[a], order, self.preds[a], self.apps[a].slo_ms, srcs
        )
        self.decisions.stop(self.states[a], started)
        self.req_plan[rid] = plan

    def _enqueue(self, t: float, rid: int, fn: int) -> None:
        """Request rid is ready for function fn (its predecessors finished) at t."""
        q = (self.req_app[rid], fn)
        self.queues.setdefault(q, deque()).append(rid)
        self.req_enq[(rid, fn)] = t
        self._service(t, q)

    # --- decisions and dispatch ---------------------------------------------------------
    def _service(self, t: float, q: tuple[int, int]) -> None:
        """Plan queue q's head (a configuration and when its batch leaves) if not planned, and
        dispatch the batch when it is full or its wait is over."""
        queue = self.queues.get(q)
        if not queue:
            self.pending.pop(q, None)
            return
        a, fn = q
        if q not in self.pending:
            head = queue[0]
            remaining = self.apps[a].slo_ms - (t - self.req_arrival[head])
            self.cap.step(math.ceil(self.policy.decision_work(self.states[a], fn)))
            if self.policy.replan:
                started = self.decisions.start(self.states[a])
                k = self.policy.decide(self.states[a], fn, remaining, len(queue))
                self.decisions.stop(self.states[a], started)
            else:  # the head's plan, made at its arrival (`_plan_at_arrival`)
                k = self.req_plan[head][fn]
            timeout = self.policy.batch_timeout_ms(self.states[a], fn, k, remaining)
            wait = self._fill_wait_ms(a, fn, k) if timeout is None else timeout
            go = self.req_enq[(head, fn)] + wait
            self.pending[q] = (k, go)
            if len(queue) < self.apps[a].functions[fn].configs[k].batch and go > t:
                self.push(go, "timer", q)
        k, go = self.pending[q]
        b = self.apps[a].functions[fn].configs[k].batch
        if len(queue) >= b or go <= t:
            self._dispatch(t, q)

    def _fill_wait_ms(self, a: int, fn: int, k: int) -> float:
        """How long a head waits for its batch to fill (`policies.fill_wait_ms`)."""
        return fill_wait_ms(self.apps[a].functions[fn].configs[k], self.rates[a])

    def _place(self, t: float, a: int, fn: int, k: int, head: int) -> Placement:
        """The run's dispatch rule (`solvers.esg.dispatch.place`) after keep-alive expiry."""
        c = self.apps[a].functions[fn].configs[k]
        expire(self.invokers, t, self.cfg.keep_alive_s * 1000.0)
        ups = [self.req_where[head][p] for p in self.preds[a][fn] if p in self.req_where[head]]
        return place(
            self.invokers,
            a,
            fn,
            k,
            c.vcpus,
            c.gpu_share,
            ups,
            rule=self.cfg.dispatch,
            rng=self.dispatch_rng,
        )

    def _dispatch(self, t: float, q: tuple[int, int]) -> None:
        """Place queue q's planned batch and start its run (billed), or mark q blocked when no
        invoker has room."""
        self.cap.step()
        a, fn = q
        k, _ = self.pending[q]
        queue = self.queues[q]
        f = self.apps[a].functions[fn]
        c = f.configs[k]
        pl = self._place(t, a, fn, k, queue[0])
        i, cont, cold = pl.invoker, pl.container, pl.cold
        if i < 0:  # no room: wait, and re-plan from the head's budget when room may be free
            self.blocked.add(q)
            del self.pending[q]
            return
        self.blocked.discard(q)
        batch = [queue.popleft() for _ in range(min(c.batch, len(queue)))]
        run = (
            self.latency.ms(a, fn, k, len(batch))
            + f.transfer_ms
            + self.ledger.batch_ms(a, fn, i, batch, self.req_where)
            + ((f.cold_start_ms or self.cfg.cold_start_ms) if cold else 0.0)
        )
        self.cold_starts += cold
        cont.busy = True
        rate = c.vcpus * self.apps[a].prices.vcpu_s + c.gpu_share * self.apps[a].prices.gpu_s
        self.cost += rate * run / 1000.0
        for r in batch:
            self.req_where[r][fn] = i
            self.req_cost[r] += rate * run / 1000.0 / len(batch)  # the run's share per request
        del self.pending[q]
        self.push(t + run, "done", (q, cont, batch))
        self._service(t, q)

    def _done(self, t: float, q: tuple[int, int], cont: Container, batch: list[int]) -> None:
        """A batch finished at t: free its container, pass its requests on to the successors,
        and re-plan the blocked queues (room may be free)."""
        a, fn = q
        cont.busy, cont.idle_since = False, t
        n_fns = len(self.apps[a].functions)
        for r in batch:
            self.req_done_fns[r] += 1
            if self.req_done_fns[r] == n_fns:
                self.req_finish[r] = t
            for j in self.succ[a][fn]:
                self.req_left[r][j] -= 1
                if self.req_left[r][j] == 0:
                    self._enqueue(t, r, j)
        for bq in list(self.blocked):  # room may be free: re-plan each from its budget now
            self.blocked.discard(bq)
            self._service(t, bq)

    def run(self) -> dict[str, Any]:
        """Draw the arrivals, process the events until none is left, return the metrics."""
        self._setup_requests()
        wall = time.perf_counter()
        while self.events:
            self.cap.step()
            t, _, kind, data = heapq.heappop(self.events)
            if kind == "arrive":
                preds = self.preds[self.req_app[data]]
                if not self.policy.replan:
                    self._plan_at_arrival(data)
                for fn, ps in enumerate(preds):
                    if not ps:
                        self._enqueue(t, data, fn)
            elif kind == "timer":
                if data in self.pending:
                    self._service(t, data)
            else:
                self._done(t, *data)
        return self._metrics(time.perf_counter() - wall)

    def _metrics(self, wall_s: float) -> dict[str, Any]:
        """The run's metrics (module docstring): requests, decisions, dispatch, transfers."""
        overall, per_app = request_metrics(
            self.apps,
            self.req_app,
            self.req_arrival,
            self.req_finish,
            self.req_cost,
            self.cfg.warmup_frac,
        )
        return {
            **overall,
            **self.decisions.metrics(),
            "dispatch": self.cfg.dispatch,
            "split": self.policy.split,
            "cold_starts": int(self.cold_starts),
            **self.ledger.metrics(),
            "rate_per_s": float(sum(self.rates)),
            "configs_too_large": self.configs_too_large,
            "work_steps": self.cap.done,
            "wall_s": wall_s,
            "per_app": per_app,
        }


def servable_apps(apps: list[App], cfg: SimConfig) -> tuple[list[App], int]:
    """The apps without the configurations no invoker can hold, and how many were dropped.

    A function left with none is refused (InvalidInput naming the application, the function
    and the resource): its requests could never be served, and the run would never drain.
    """
    if not apps:
        raise InvalidInput("apps: at least one application")
    vmax, gmax = cfg.vcpus_per_invoker + CAP_TOL, cfg.gpus_per_invoker + CAP_TOL
    out, dropped, problems = [], 0, []
    for app in apps:
        funcs, before = [], dropped
        for f in app.functions:
            ok = tuple(c for c in f.configs if c.vcpus <= vmax and c.gpu_share <= gmax)
            dropped += len(f.configs) - len(ok)
            if not ok:
                problems.append(_unservable(app, f.id, f.configs, cfg))
            funcs.append(replace(f, configs=ok) if len(ok) < len(f.configs) else f)
        out.append(replace(app, functions=tuple(funcs)) if dropped > before else app)
    if problems:
        raise InvalidInput(problems)
    return out, dropped


def _unservable(app: App, fid: str, configs: tuple[Any, ...], cfg: SimConfig) -> str:
    """Why no configuration of a function fits an invoker, naming the resource."""
    v = min(c.vcpus for c in configs)
    g = min(c.gpu_share for c in configs)
    inv = f"an invoker has {cfg.vcpus_per_invoker:g} vCPUs and {cfg.gpus_per_invoker:g} GPU"
    if v > cfg.vcpus_per_invoker + CAP_TOL:
        need = f"vCPUs: its configurations ask at least {v:g}"
    elif g > cfg.gpus_per_invoker + CAP_TOL:
        need = f"GPU share: its configurations ask at least {g:g}"
    else:
        need = "vCPUs and GPU share together: no configuration fits both"
    return (
        f"app {app.name!r} function {fid!r}: no configuration fits an invoker ({need}; {inv}); "
        "its requests could never be served"
    )


def simulate(apps: list[App], policy: str | PathPolicy, cfg: SimConfig) -> dict[str, Any]:
    """Run one simulation and return its metrics (see the module docstring)."""
    if not apps:
        raise InvalidInput("apps: at least one application")
    return Simulation(apps, policy, cfg).run()
