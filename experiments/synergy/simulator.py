"""Round-based cluster simulator of Synergy (OSDI 2022), fast enough to sweep loads.

Every round (300 s by default), at times 0, R, 2R, ...:
1. jobs that arrived by the round's start become runnable (a job arriving mid-round waits);
2. the policy orders the runnable jobs (`policies.py`);
3. the allocation algorithm of `schedlab.solvers.synergy` places them in that order: every job whose
   GPUs still fit cluster-wide is considered, and gets GPUs on servers plus CPU and memory per
   GPU (an allocator, tag "fast": proportional, greedy, tune, opt, called one way on arrays
   through `allocators.RoundAllocator`; any other registered method, e.g. milp, through `solve`
   on a `Snapshot`);
4. each running job progresses at its profiled per-GPU throughput for the allocation it got,
   for the whole round; a job whose remaining work ends inside the round completes at that
   exact time (its resources stay idle until the next round, as in Synergy's simulator).
Preemption between rounds is free (the paper's simulator does the same), so allocations of
consecutive rounds are independent.

Work is in proportional-share seconds (see `workloads.py`): a job with per-GPU throughput
`tput` (normalized, 1 at the profiling point 3 CPUs / 62.5 GB per GPU) finishes `tput` seconds
of work per second. A job alone on the cluster at proportional share therefore has
JCT = (round start after arrival - arrival) + work_s.

Differences from msr-fiddle/synergy's simulator, on purpose, each a switch of
`SimConfig.fidelity` (`fidelity.py`; `--as-authors` turns all on): completions are exact
(Synergy ends jobs at lease ends, i.e. rounds up to the round), throughput comes from the
profile table at the allocated configuration (Synergy's simulator uses the ideal speedup or 1),
work is continuous (theirs: whole iterations, floored per round), a few ordering/admission
details of their policies, and OPT packs servers (theirs: cluster totals only). No placement
penalty (theirs is 1 for every model). The authors' job stream is `authors_stream.py`.

The round loop is `_Run` here; the per-job arrays and per-round records are in `sim_state.py`,
the bulk step over unchanged rounds (`SimConfig.fast_forward`) in `sim_forward.py`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.experiments.synergy.fidelity import Fidelity
from schedlab.experiments.synergy.metrics import JctStats, Utilization, jct_stats, resolve_window
from schedlab.experiments.synergy.policies import Policy, ftf_rho, get_policy
from schedlab.experiments.synergy.sim_forward import FastForward
from schedlab.experiments.synergy.sim_state import DONE_RTOL, Jobs, UtilLog, policy_view
from schedlab.experiments.synergy.workloads import JobSpec, Workload
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.solve import METHODS, solve
from schedlab.solvers.synergy.allocation import Allocation, JobAllocation, check_allocation
from schedlab.solvers.synergy.allocators import FAST_TAG, SUBJECT, RoundAllocator
from schedlab.solvers.synergy.heuristic_opt import phase1, proportional_set
from schedlab.solvers.synergy.placement import RoundResult
from schedlab.solvers.synergy.problem import Cluster, Job, Snapshot
from schedlab.solvers.synergy.profiles import ProfileSet, named_profiles
from schedlab.solvers.validate import Deadline, check_work

# Policies whose authors' scheduler offers only the jobs GPU-proportional admits.
PREFIX_POLICIES = ("las", "drf", "tetris")
_CFG_TOL = 1e-9  # configuration equality (grid values)
# Policies whose sort key is elementwise in the job attributes (evaluated for many rounds
# at once when fast-forwarding); any other policy is fast-forwarded only if it is FIFO.
_ELEMENTWISE_KEYS = ("fifo", "srtf", "las", "ftf", "drf", "tetris")
_UNUSED_FLAGS = np.ones(0, dtype=bool)


@dataclass(frozen=True)
class SimConfig:
    """Knobs of one simulation run (the workload is passed separately).

    `servers=None` uses the workload's design size (16; 4 for the 100-job traces). `stop`:
    "window" ends the run once every job of the measurement window finished (the Synergy
    simulator's rule, for endless streams), "all" once every job finished (traces; gives the
    makespan); None picks "window" for synthetic streams and "all" for traces.
    `starvation_h`: a job that has not run for this long is scheduled first from then on
    (Synergy's priority bump; None disables). `reuse`: keep last round's allocation when the
    ordered jobs the allocator looked at are unchanged (allocators are deterministic, so this
    never changes results). `via_registry`: call a fast allocator (tag "fast") through `solve`
    on a validated `Snapshot`, like every other method (slow; for cross-checks). `check`:
    validate every round's allocation (capacities, exact GPU counts) and raise on a violation.
    `fast_forward`: run the rounds between two events (an arrival, a completion, a starvation
    bump, a change of the policy's order) as one bulk step of the same per-round arithmetic
    (bit-identical results, far fewer Python steps at low load; FIFO under any fidelity, the
    other built-in policies under schedlab's rules); `fidelity`: which of the authors'
    simulator rules apply;
    `profile_set`: the model profiles (the CPU:GPU-ratio sets come with the matching
    `cpus_per_server`).
    """

    policy: str = "fifo"
    alloc: str = "proportional"
    servers: int | None = None
    gpus_per_server: int = 8
    cpus_per_server: float = 24.0
    mem_gb_per_server: float = 500.0
    round_s: float = 300.0
    window: tuple[int, int] | None = None
    stop: str | None = None
    starvation_h: float | None = 1000.0
    alloc_time_limit_s: float | None = None
    reuse: bool = True
    via_registry: bool = False
    check: bool = False
    max_sim_h: float = 1.0e6
    max_rounds: int = 1_000_000  # work cap: simulated rounds (CLI --max-rounds)
    fidelity: Fidelity = Fidelity()  # schedlab's rules, or the authors' (fidelity.py)
    fast_forward: bool = True  # repeat unchanged rounds in bulk (identical results)
    profile_set: str = "default"  # model profiles (profiles.named_profiles), e.g. cpu-ratio-4

    def cluster(self, workload: Workload) -> Cluster:
        servers = self.servers if self.servers is not None else workload.default_servers
        return Cluster(servers, self.gpus_per_server, self.cpus_per_server, self.mem_gb_per_server)


@dataclass
class SimResult:
    """Per-job outcomes (arrays indexed by job position in arrival order) and summaries."""

    workload: str
    description: str
    policy: str
    alloc: str
    cluster: Cluster
    round_s: float
    job_id: np.ndarray
    arrival_s: np.ndarray
    completion_s: np.ndarray  # NaN: not finished when the run stopped
    gpus: np.ndarray
    model: np.ndarray  # model index into the profiles
    work_s: np.ndarray
    work_done_s: np.ndarray
    excluded: int
    window: tuple[int, int]
    window_note: str
    stop: str
    stats: JctStats
    makespan_s: float | None
    sim_end_s: float
    rounds: int
    allocator_calls: int
    fallback_rounds: int
    alloc_stats: dict[str, int]
    utilization: Utilization
    runtime_s: float
    notes: list[str] = field(default_factory=list)

    @property
    def jct_s(self) -> np.ndarray:
        return self.completion_s - self.arrival_s

    def window_mask(self) -> np.ndarray:
        a, b = self.window
        return (self.job_id >= a) & (self.job_id < b) & np.isfinite(self.completion_s)

    def window_jct_s(self) -> np.ndarray:
        return self.jct_s[self.window_mask()]

    def to_dict(self) -> dict[str, Any]:
        """JSON summary (snake_case keys, hours for times)."""
        d: dict[str, Any] = {
            "workload": self.workload,
            "description": self.description,
            "policy": self.policy,
            "alloc": self.alloc,
            "servers": self.cluster.servers,
            "gpus": self.cluster.total_gpus,
            "round_s": self.round_s,
        }
        d.update(self.stats.to_dict())
        d.update(
            {
                "window": list(self.window),
                "window_note": self.window_note,
                "makespan_h": None if self.makespan_s is None else self.makespan_s / 3600.0,
                "sim_time_h": self.sim_end_s / 3600.0,
                "stop": self.stop,
                "jobs_arrived": int(self.job_id.size),
                "jobs_completed": int(np.isfinite(self.completion_s).sum()),
                "jobs_excluded": self.excluded,
                "rounds": self.rounds,
                "allocator_calls": self.allocator_calls,
                "fallback_rounds": self.fallback_rounds,
                "alloc_stats": dict(self.alloc_stats),
            }
        )
        d.update(self.utilization.mean())
        d["runtime_s"] = self.runtime_s
        if self.notes:
            d["notes"] = list(self.notes)
        return d


@dataclass(slots=True)
class _Round:
    """What an allocator returned for the examined prefix of the ordered jobs."""

    examined: int  # the result covers the first `examined` ordered jobs (later ones do not run)
    exact: bool  # True: valid only for this exact order; False: for any order with this prefix
    run: np.ndarray  # bool per examined job
    tput: np.ndarray  # per-GPU throughput per examined job
    cpus_per_gpu: np.ndarray
    mem_gb_per_gpu: np.ndarray
    placement: Any  # per examined job [(server, gpus), ...]: a list, or _Placements (lazy)
    fallback: bool = False


class _Allocator:
    """Calls one allocation method of `schedlab.solvers.synergy` on the ordered runnable jobs."""

    def __init__(
        self,
        method: str,
        cluster: Cluster,
        profiles: ProfileSet,
        *,
        via_registry: bool,
        time_limit: float | None,
        authors_opt: bool = False,
    ) -> None:
        if (SUBJECT, method) not in METHODS:
            raise InvalidInput(
                f"alloc: unknown allocation method {method!r}; "
                f"choose one of: {', '.join(METHODS.names(scope=SUBJECT))}"
            )
        entry = METHODS.get(method, scope=SUBJECT)
        self.method = method
        self.cluster = cluster
        self.profiles = profiles
        self.fast = RoundAllocator(cluster, profiles)
        self.use_fast = FAST_TAG in entry.tags and not via_registry
        self.time_limit = time_limit
        self.names = profiles.names
        self.stats: dict[str, int] = {}
        self._alone: dict[tuple[int, int], bool] = {}
        self.authors_opt = authors_opt and method == "opt"
        self._p1: dict = {}

    def runs_alone(self, model: int, gpus: int) -> bool:
        """Whether a job of this model and GPU demand runs on the empty cluster; a job that
        does not can never run under this allocator (e.g. GREEDY when its ideal demand does
        not fit the whole cluster), so the simulator excludes it instead of waiting forever."""
        key = (model, gpus)
        if key not in self._alone:
            saved = dict(self.stats)
            rd = self(np.array([model]), np.array([gpus]))
            self.stats = saved
            self._alone[key] = bool(rd.run.size and rd.run[0])
        return self._alone[key]

    def __call__(self, models: np.ndarray, gpus: np.ndarray) -> _Round:
        if self.authors_opt:
            return self._opt_cluster(models, gpus)
        if self.use_fast:
            return self._fast(self.method, models, gpus)
        return self._registry(models, gpus)

    def _count(self, stats: dict[str, Any]) -> None:
        """Sum the allocator's integer counters; count OPT's phase outcomes by status."""
        for key, v in stats.items():
            if isinstance(v, int) and not isinstance(v, bool):
                self.stats[key] = self.stats.get(key, 0) + v
            elif key.endswith("_status") and isinstance(v, str):
                name = f"{key}_{v}"
                self.stats[name] = self.stats.get(name, 0) + 1

    def _fast(self, method: str, models: np.ndarray, gpus: np.ndarray) -> _Round:
        # the door of the per-round limit: the user's seconds become this round's deadline
        rr = self.fast.allocator(method)(models, gpus, deadline=Deadline.after(self.time_limit))
        self._count(rr.stats)
        run, placement = rr.run, _Placements(rr)
        n = run.size
        full = rr.used_gpus == self.cluster.total_gpus and bool(run.any())
        if full:
            n = int(np.flatnonzero(run)[-1]) + 1  # the allocator stops once GPUs are full
        return _Round(
            n,
            not full,
            run[:n],
            rr.tput_per_gpu[:n],
            rr.cpus_per_gpu[:n],
            rr.mem_gb_per_gpu[:n],
            placement[:n],
        )

    def _opt_cluster(self, models: np.ndarray, gpus: np.ndarray) -> _Round:
        """The authors' simulated OPT: the jobs GPU-proportional admits run at the phase-1
        configurations (unweighted objective, cluster-wide totals), with no server placement."""
        ks, gs = models.tolist(), gpus.tolist()
        jobs = proportional_set(self.fast, gs)
        n = int(jobs[-1]) + 1 if jobs else 0
        run = np.zeros(n, dtype=bool)
        c, m, t = np.zeros(n), np.zeros(n), np.zeros(n)
        if jobs:
            chosen, stats = phase1(
                self.fast,
                ks,
                gs,
                jobs,
                deadline=Deadline.after(self.time_limit),
                cache=self._p1,
                weighted=False,
            )
            self._count({k: v for k, v in stats.items() if k.endswith("_status")})
            for j in jobs:
                run[j] = True
                c[j], m[j], t[j] = chosen[j]
        full = sum(gs[j] for j in jobs) == self.cluster.total_gpus
        return _Round(n, not full, run, t, c, m, [[] for _ in range(n)])

    def _registry(self, models: np.ndarray, gpus: np.ndarray) -> _Round:
        # Offer the order up to the last job GPU-proportional admits, plus one cluster's worth
        # of GPUs after it (room for jobs that replace skipped ones); the rest cannot run.
        total = self.cluster.total_gpus
        free = total
        last = -1
        g_list = gpus.tolist()
        for i, g in enumerate(g_list):
            if g <= free:
                free -= g
                last = i
                if free == 0:
                    break
        n = last + 1
        extra = 0
        while n < len(g_list) and extra < total:
            extra += g_list[n]
            n += 1
        # The offered prefix depends on nothing after it only if the GPUs filled up and the
        # tail stopped on its GPU budget; otherwise the result holds for this exact order.
        exact = not (free == 0 and extra >= total and n < len(g_list))
        jobs = tuple(
            Job(str(i), self.names[k], int(g))
            for i, (k, g) in enumerate(zip(models[:n].tolist(), g_list[:n], strict=True))
        )
        snap = Snapshot(self.cluster, jobs, self.profiles)
        res = solve(snap, self.method, time_limit=self.time_limit)
        self._count({k: v for k, v in res.stats.items() if k.endswith("_status")})
        self._count({"status": res.status.value})
        if not res.has_solution:
            out = self._fast("proportional", models[:n], gpus[:n])
            return _Round(n, exact, *_pad(out, n), fallback=True)
        run = np.zeros(n, dtype=bool)
        tput = np.zeros(n)
        cpg = np.zeros(n)
        mpg = np.zeros(n)
        placement: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        assert res.solution is not None
        for a in res.solution.jobs:
            i = int(a.job_id)
            run[i] = True
            cpg[i], mpg[i] = a.cpus_per_gpu, a.mem_gb_per_gpu
            tput[i] = self.profiles.tput(int(models[i]), cpg[i], mpg[i])
            placement[i] = [(p.server, p.gpus) for p in a.parts]
        return _Round(n, exact, run, tput, cpg, mpg, placement)


class _Placements:
    """A round's placements, built per job only when asked (checks, fallbacks)."""

    def __init__(self, ra: RoundResult, n: int | None = None) -> None:
        self.ra, self.n = ra, ra.run.size if n is None else n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return _Placements(self.ra, len(range(*key.indices(self.n))))
        if not -self.n <= key < self.n:
            raise IndexError(key)
        return self.ra.placement(key % self.n) if self.ra.run[key % self.n] else []


def _pad(
    rd: _Round, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[list[tuple[int, int]]]]:
    """A result's arrays extended with not-running entries to n jobs."""
    extra = n - rd.examined
    return (
        np.concatenate([rd.run, np.zeros(extra, dtype=bool)]),
        np.concatenate([rd.tput, np.zeros(extra)]),
        np.concatenate([rd.cpus_per_gpu, np.zeros(extra)]),
        np.concatenate([rd.mem_gb_per_gpu, np.zeros(extra)]),
        list(rd.placement) + [[] for _ in range(extra)],
    )


def _n_jobs(workload: Workload) -> int | None:
    jobs = workload.jobs
    if hasattr(jobs, "__len__"):
        return len(jobs)  # type: ignore[arg-type]
    return getattr(jobs, "max_jobs", None)


def simulate(
    workload: Workload, config: SimConfig | None = None, *, progress: bool = False
) -> SimResult:
    """Run one simulation; see the module docstring for the round logic."""
    return _Run(workload, config or SimConfig(), progress).run()


class _Run:
    """One simulation as steps: admit arrivals, order, allocate, advance, record; it holds the
    run's settings and state and drives the round loop. The other concepts live apart so each
    piece stays small: the per-job arrays and per-round records (`sim_state.py`), the jump over
    unchanged rounds (`sim_forward.FastForward`), the checks at the door (`_check_work`) and
    the outcome (`_result`, `_notes`)."""

    def __init__(self, workload: Workload, cfg: SimConfig, progress: bool) -> None:
        self.t_start = time.perf_counter()
        if not (cfg.round_s > 0 and math.isfinite(cfg.round_s)):
            raise InvalidInput(f"round_s: must be a positive number of seconds (got {cfg.round_s})")
        self.workload, self.cfg = workload, cfg
        self.cluster = cluster = cfg.cluster(workload)
        self.profiles = profiles = named_profiles(cfg.profile_set)
        problems = cluster.problems(profiles)
        if problems:
            raise InvalidInput(problems)
        self.policy: Policy = get_policy(cfg.policy)
        self.allocator = _Allocator(
            cfg.alloc,
            cluster,
            profiles,
            via_registry=cfg.via_registry,
            time_limit=cfg.alloc_time_limit_s,
            authors_opt=cfg.fidelity.opt == "authors",
        )
        self.n_total = _n_jobs(workload)
        synthetic = not isinstance(workload.jobs, list)
        self.stop = cfg.stop or ("window" if synthetic else "all")
        if self.stop not in ("window", "all"):
            raise InvalidInput(f"stop: must be 'window' or 'all' (got {self.stop!r})")
        self.window, self.window_note = resolve_window(
            cfg.window, self.n_total, open_stream=synthetic
        )
        if self.window[1] <= self.window[0]:
            raise InvalidInput(f"window: {self.window_note} holds no job; give a non-empty window")
        _check_work(workload, cfg, profiles, cluster)
        self._constants()
        self._state()
        self.bar = _progress_bar(cfg, self.window, self.stop, self.n_total) if progress else None

    def _constants(self) -> None:
        cfg, cluster, profiles = self.cfg, self.cluster, self.profiles
        self.ideal = [profiles.ideal(k) for k in range(len(profiles.models))]
        self.speedups = [
            1.0 if cfg.alloc == "proportional" else m.speedup_at_ideal for m in profiles.models
        ]
        fid = cfg.fidelity
        self.ideal_c = np.array([c for c, _m in self.ideal])
        self.ideal_m = np.array([m for _c, m in self.ideal])
        self.s_ideal = np.array([m.speedup_at_ideal for m in profiles.models])
        self.iter_s = [m.iter_time_s_at_proportional for m in profiles.models]
        self.round_end = fid.completion == "round-end"
        self.integer = fid.iterations == "integer"
        # theirs: binary speed outside OPT; proportional runs every job at speed 1
        self.binary = fid.speed == "binary" and cfg.alloc != "opt"
        self.authors_rules = fid.policy == "authors"
        self.prefix_admission = self.authors_rules and cfg.policy in PREFIX_POLICIES
        self.demotion = self.authors_rules and cfg.alloc not in ("proportional", "opt")
        # FIFO's order never changes between events; other elementwise keys are checked
        self.static_key = cfg.policy == "fifo"  # FIFO's key (arrival) and no bumps
        checked = not (self.authors_rules or self.integer) and self.policy.name in _ELEMENTWISE_KEYS
        self.forward = cfg.reuse and cfg.fast_forward and (self.static_key or checked)
        self.quiet = False
        self.in_order = True  # jobs admitted in (arrival, id) order so far
        self.last_admitted = (-math.inf, -1)
        self.total_gpus = cluster.total_gpus
        self.total_cpus = cluster.cpus_per_server * cluster.servers
        self.total_mem = cluster.mem_gb_per_server * cluster.servers
        self.totals = (float(self.total_gpus), float(self.total_cpus), float(self.total_mem))
        self.R = float(cfg.round_s)
        self.starv_s = math.inf if cfg.starvation_h is None else cfg.starvation_h * 3600.0
        self.max_t = cfg.max_sim_h * 3600.0

    def _state(self) -> None:
        self.jobs = Jobs()
        self.source: Iterator[JobSpec] = iter(self.workload.jobs)
        self.nxt = next(self.source, None)
        self.excluded = self.workload.excluded
        self.unplaceable: dict[tuple[str, int], int] = {}
        self.excluded_in_window = 0
        self.window_done = 0
        self.active = np.zeros(0, dtype=np.int64)
        self.cache_prefix: np.ndarray | None = None
        self.cache_round: _Round | None = None
        self.rounds = self.calls = self.fallbacks = self.skipped_rounds = 0
        self.log = UtilLog()
        self.k = 0  # round index; the round starts at k * R
        self.forwarder = FastForward(
            self.jobs,
            self.log,
            self.policy,
            round_s=self.R,
            max_rounds=self.cfg.max_rounds,
            max_t=self.max_t,
            starv_s=self.starv_s,
            integer=self.integer,
            static_key=self.static_key,
            totals=self.totals,
        )

    def _window_target(self) -> int:
        return (self.window[1] - self.window[0]) - self.excluded_in_window

    # ---- the round loop ------------------------------------------------------------------
    def run(self) -> SimResult:
        R = self.R
        while True:
            t = self.k * R
            if t > self.max_t:
                raise InvalidInput(
                    f"simulate: passed {self.cfg.max_sim_h:g} simulated hours without finishing "
                    "(work cap); check the arrival rate (--load) and the trace's times"
                )
            if self.rounds >= self.cfg.max_rounds:
                raise InvalidInput(
                    f"simulate: stopped after {self.rounds} rounds, the work cap; the input "
                    "implies absurd work (check --round-s, --load, the trace), or raise "
                    "--max-rounds"
                )
            self.admit(t)
            if self.stop == "window" and self.window_done >= self._window_target():
                break
            if self.active.size == 0:
                if self.nxt is None:
                    break
                k_next = max(self.k + 1, math.ceil(self.nxt.arrival_s / R))
                self.skipped_rounds += k_next - self.k
                self.k = k_next
                continue
            ordered = self.order(t)
            rd = self.allocate(ordered)
            self.advance(t, ordered, rd)
            self.rounds += 1
            self.k += 1
            if self.quiet:
                self.fast_forward(ordered, rd)
        if self.bar is not None:
            self.bar.close()
        return _result(self)

    def admit(self, t: float) -> None:
        """Jobs that arrived by `t` become runnable; a job that can never run is excluded."""
        new: list[int] = []
        window, profiles, allocator = self.window, self.profiles, self.allocator
        while self.nxt is not None and self.nxt.arrival_s <= t:
            nxt = self.nxt
            mi = profiles.index(nxt.model)
            if nxt.gpus > self.total_gpus or not allocator.runs_alone(mi, nxt.gpus):
                self.excluded += 1
                if nxt.gpus <= self.total_gpus:
                    key = (nxt.model, nxt.gpus)
                    self.unplaceable[key] = self.unplaceable.get(key, 0) + 1
                if window[0] <= nxt.job_id < window[1]:
                    self.excluded_in_window += 1
            else:
                c, m = self.ideal[mi]
                if (nxt.arrival_s, nxt.job_id) < self.last_admitted:
                    self.in_order = False
                self.last_admitted = (nxt.arrival_s, nxt.job_id)
                i = self.jobs.add(nxt, mi, c, m, self.speedups[mi], self.iter_s[mi])
                if self.integer:  # remaining work counts whole iterations
                    self.jobs.remaining[i] = self.jobs.iters_total[i] * self.iter_s[mi]
                new.append(i)
            self.nxt = next(self.source, None)
        if new:
            self.active = np.concatenate([self.active, np.asarray(new, dtype=np.int64)])
        self.quiet = self.forward  # stays so if no job finishes this round

    def order(self, t: float) -> np.ndarray:
        """The runnable jobs (indices into the job arrays) in the policy's order."""
        jobs, active = self.jobs, self.active
        self.n_runnable = int(active.size)
        if self.static_key and self.in_order:  # FIFO: the runnable jobs are in arrival order
            return active
        since = t - np.where(
            np.isnan(jobs.last_run[active]), jobs.arrival[active], jobs.last_run[active]
        )
        starving = since > self.starv_s
        if not self.authors_rules:  # theirs: noticed during the round, effective the next
            jobs.bumped[active] |= starving
        view = policy_view(
            jobs, active, jobs.remaining[active], jobs.attained[active], t, self.totals
        )
        key = self.policy.order(view)
        if self.authors_rules and self.policy.name == "ftf":  # theirs: rho ascending
            key = np.lexsort([view.job_id, view.arrival_s, ftf_rho(view), ~view.bumped])
        ordered: np.ndarray = active[key]
        if self.authors_rules:
            jobs.bumped[active] |= starving
        if self.prefix_admission:
            las_tune = self.policy.name == "las" and self.cfg.alloc == "tune"
            ordered = _proportional_prefix(ordered, jobs.gpus, self.total_gpus, las_tune)
        return ordered

    def allocate(self, ordered: np.ndarray) -> _Round:
        """The allocator's result for this order, or last round's when it would see the same."""
        rd: _Round | None = None
        cached, prefix = self.cache_round, self.cache_prefix
        if self.cfg.reuse and cached is not None and prefix is not None:
            L = prefix.size
            same_len = ordered.size == L if cached.exact else ordered.size >= L
            if same_len and np.array_equal(ordered[:L], prefix):
                rd = cached
        if rd is None:
            rd = self.allocator(self.jobs.model[ordered], self.jobs.gpus[ordered])
            self.calls += 1
            self.fallbacks += rd.fallback
            self.cache_round = rd
            self.cache_prefix = ordered[: rd.examined].copy()
        if self.cfg.check:
            _check_round(rd, ordered, self.jobs, self.cluster, self.profiles, self.allocator.names)
        return rd

    def advance(self, t: float, ordered: np.ndarray, rd: _Round) -> None:
        """Run the allocated jobs for the round; a job whose work ends inside it completes
        (at that moment, or at the round's end under `completion="round-end"`)."""
        jobs, R = self.jobs, self.R
        pos = np.flatnonzero(rd.run)
        run_idx = ordered[pos]
        rate, at_ideal = self._speed(run_idx, rd, pos)
        g = jobs.gpus[run_idx]
        if self.integer:
            need, fin = jobs.advance_iterations(run_idx, rate, R)
        else:
            need = np.where(rate > 0, jobs.remaining[run_idx] / np.where(rate > 0, rate, 1), np.inf)
            fin = need <= R * (1.0 + DONE_RTOL)
            done_now = rate * np.minimum(need, R)
            jobs.done[run_idx] += done_now
            jobs.remaining[run_idx] = np.where(fin, 0.0, jobs.remaining[run_idx] - rate * R)
        dt = np.full(need.shape, R) if self.round_end else np.minimum(need, R)
        jobs.attained[run_idx] += g * dt
        jobs.last_run[run_idx] = t + dt
        if self.demotion:  # theirs: speedup 1 for a job TUNE moved off its ideal, reset later
            jobs.speedup[self.active] = self.s_ideal[jobs.model[self.active]]
            jobs.speedup[run_idx[~at_ideal]] = 1.0
        fin_idx = run_idx[fin]
        self.last_rate = rate
        if fin_idx.size:
            self.quiet = False
            jobs.completion[fin_idx] = t + (R if self.round_end else need[fin])
            ids = jobs.id[fin_idx]
            in_win = int(((ids >= self.window[0]) & (ids < self.window[1])).sum())
            self.window_done += in_win
            if self.bar is not None:
                self.bar.update(in_win if self.stop == "window" else int(fin_idx.size))
            self.active = self.active[np.isnan(jobs.completion[self.active])]  # keeps order
        model = jobs.model[run_idx]  # used: what the profile can use, at most its ideal
        self.log.record(
            t,
            g,
            dt / R,
            rd.cpus_per_gpu[pos],
            rd.mem_gb_per_gpu[pos],
            (self.ideal_c[model], self.ideal_m[model]),
            (self.total_gpus, self.total_cpus, self.total_mem),
            int(self.n_runnable - pos.size),
        )

    def fast_forward(self, ordered: np.ndarray, rd: _Round) -> None:
        """After a round with no completion: jump the next rounds while nothing changes
        (`sim_forward.py`); not when the cached allocation would not serve them (an exact-order
        result covering a prefix: `allocate` would call the allocator again)."""
        if rd.exact and rd.examined != ordered.size:
            return
        nxt = None if self.nxt is None else self.nxt.arrival_s
        pos = np.flatnonzero(rd.run)
        jumped = self.forwarder.jump(ordered, pos, self.k, self.rounds, nxt, self.last_rate)
        self.rounds += jumped
        self.k += jumped

    def _speed(
        self, run_idx: np.ndarray, rd: _Round, pos: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per-GPU speed of the running jobs, and whether each got its ideal configuration."""
        if not (self.binary or self.demotion):
            return rd.tput[pos], _UNUSED_FLAGS  # at_ideal is read only under demotion
        model = self.jobs.model[run_idx]
        at_ideal = (np.abs(rd.cpus_per_gpu[pos] - self.ideal_c[model]) <= _CFG_TOL) & (
            np.abs(rd.mem_gb_per_gpu[pos] - self.ideal_m[model]) <= _CFG_TOL
        )
        if not self.binary:
            return rd.tput[pos], at_ideal
        if self.cfg.alloc == "proportional":
            return np.ones(run_idx.size), at_ideal
        return np.where(at_ideal, self.s_ideal[model], 1.0), at_ideal


def _notes(run: _Run) -> list[str]:
    """Why jobs were excluded and rounds fell back, after the workload's own notes."""
    wl, alloc = run.workload, run.cfg.alloc
    notes = list(wl.notes)
    too_big = run.excluded - wl.excluded - sum(run.unplaceable.values())
    if too_big:
        notes.append(
            f"{too_big} job(s) need more than the cluster's {run.total_gpus} GPUs and were excluded"
        )
    for (model_name, g), count in sorted(run.unplaceable.items()):
        notes.append(
            f"{count} job(s) of {model_name} with {g} GPUs were excluded: {alloc} cannot "
            "place them even on the empty cluster, so they would never run"
        )
    if run.fallbacks:
        notes.append(
            f"{run.fallbacks} round(s) fell back to GPU-proportional: {alloc} found no "
            "allocation within its time limit"
        )
    return notes


def _result(run: _Run) -> SimResult:
    """The finished run's per-job outcomes and summaries."""
    jobs, window = run.jobs, run.window
    n = jobs.n
    completion = jobs.completion[:n].copy()
    arrival = jobs.arrival[:n].copy()
    job_id = jobs.id[:n].copy()
    mask = (job_id >= window[0]) & (job_id < window[1]) & np.isfinite(completion)
    makespan = None
    if run.stop == "all" and n > 0 and np.isfinite(completion).all():
        makespan = float(completion.max() - arrival.min())
    return SimResult(
        workload=run.workload.name,
        description=run.workload.description,
        policy=run.policy.name,
        alloc=run.cfg.alloc,
        cluster=run.cluster,
        round_s=run.R,
        job_id=job_id,
        arrival_s=arrival,
        completion_s=completion,
        gpus=jobs.gpus[:n].copy(),
        model=jobs.model[:n].copy(),
        work_s=jobs.work[:n].copy(),
        work_done_s=jobs.done[:n].copy(),
        excluded=run.excluded,
        window=window,
        window_note=run.window_note,
        stop=run.stop,
        stats=jct_stats((completion - arrival)[mask]),
        makespan_s=makespan,
        sim_end_s=run.k * run.R if run.rounds else 0.0,
        rounds=run.rounds,
        allocator_calls=run.calls,
        fallback_rounds=run.fallbacks,
        alloc_stats=dict(run.allocator.stats),
        utilization=run.log.utilization(run.skipped_rounds),
        runtime_s=time.perf_counter() - run.t_start,
        notes=_notes(run),
    )


def _check_work(workload: Workload, cfg: SimConfig, profiles: ProfileSet, cluster: Cluster) -> None:
    """Work cap at the door: a finite workload whose longest job needs more rounds (even
    at the profiles' best speed-up) or whose arrivals span more simulated time than the
    caps allow is refused before the first round."""
    jobs = workload.jobs
    if not isinstance(jobs, list):  # a stream: judge by its first jobs (a fresh iteration)
        if iter(jobs) is jobs:
            return
        jobs = workload.take(1000)
    if not jobs:
        return
    best = max(max(max(r) for r in m.tput) for m in profiles.models) or 1.0
    longest = max(j.work_s for j in jobs) / best
    check_work(longest / cfg.round_s, cfg.max_rounds, "simulate: longest job", "--max-rounds")
    if isinstance(workload.jobs, list):  # all jobs: the cluster cannot go faster
        total = sum(j.work_s * j.gpus for j in jobs) / best / cluster.total_gpus
        check_work(total / cfg.round_s, cfg.max_rounds, "simulate: all jobs", "--max-rounds")
    last = max(j.arrival_s for j in jobs) + longest
    if not last <= cfg.max_sim_h * 3600.0:
        raise InvalidInput(
            f"simulate: the last job arrives and finishes after {last / 3600.0:.3g} "
            f"simulated hours, beyond the cap of {cfg.max_sim_h:g} hours; check the "
            "arrival rate (--load), the round length (--round-s) or the trace's times"
        )


def _progress_bar(cfg: SimConfig, window: tuple[int, int], stop: str, n_total: int | None) -> Any:
    """A progress bar counting finished jobs (of the window, or all)."""
    from tqdm import tqdm

    w = window
    total_bar = (w[1] - w[0]) if stop == "window" else n_total
    return tqdm(
        total=total_bar,
        desc=f"{cfg.policy}+{cfg.alloc}",
        unit="job",
        leave=False,
        disable=None,
    )


def _proportional_prefix(
    ordered: np.ndarray, gpus: np.ndarray, total_gpus: int, las_tune: bool
) -> np.ndarray:
    """Theirs for LAS, DRF, TETRIS: only the jobs GPU-proportional admits are offered
    (in order; LAS+TUNE, `las_tune`, by descending GPU demand); `gpus`: every job's GPUs."""
    g = gpus[ordered]
    if g.size and int(g.max()) == 1:
        keep = ordered[:total_gpus]
    else:
        free, pick = total_gpus, []
        for i, gi in enumerate(g.tolist()):
            if gi <= free:
                pick.append(i)
                free -= gi
                if free == 0:
                    break
        keep = ordered[np.asarray(pick, dtype=np.int64)]
    if las_tune:
        keep = keep[np.argsort(-gpus[keep], kind="stable")]
    return keep


def _check_round(
    rd: _Round,
    ordered: np.ndarray,
    jobs: Jobs,
    cluster: Cluster,
    profiles: ProfileSet,
    names: list[str],
) -> None:
    """Independent capacity check of one round, then the solvers' validator; raise on any
    violation (an allocator or simulator bug, never bad input)."""
    S = cluster.servers
    used = np.zeros((S, 3))
    errors: list[str] = []
    for i in np.flatnonzero(rd.run):
        j = int(ordered[i])
        got = 0
        for s, n in rd.placement[i]:
            if not 0 <= s < S or n < 1:
                errors.append(f"job {jobs.id[j]}: bad part ({s}, {n})")
                continue
            used[s] += (n, n * rd.cpus_per_gpu[i], n * rd.mem_gb_per_gpu[i])
            got += n
        if got != jobs.gpus[j]:
            errors.append(f"job {jobs.id[j]}: got {got} GPUs, needs {jobs.gpus[j]}")
        expect = profiles.tput(int(jobs.model[j]), rd.cpus_per_gpu[i], rd.mem_gb_per_gpu[i])
        if not math.isclose(expect, rd.tput[i], rel_tol=1e-12, abs_tol=1e-12):
            errors.append(f"job {jobs.id[j]}: throughput {rd.tput[i]} != profile {expect}")
    cap = np.array([cluster.gpus_per_server, cluster.cpus_per_server, cluster.mem_gb_per_server])
    over = used > cap * (1 + 1e-9) + 1e-9
    for s, r in zip(*np.nonzero(over), strict=True):
        errors.append(f"server {s}: {('GPUs', 'CPUs', 'memory')[r]} {used[s, r]:g} > {cap[r]:g}")
    if not errors:
        snap = Snapshot(
            cluster,
            tuple(
                Job(str(i), names[int(jobs.model[ordered[i]])], int(jobs.gpus[ordered[i]]))
                for i in range(rd.examined)
            ),
            profiles,
        )
        alloc = Allocation(
            tuple(
                JobAllocation.uniform(
                    str(i), rd.cpus_per_gpu[i], rd.mem_gb_per_gpu[i], rd.placement[i]
                )
                for i in np.flatnonzero(rd.run)
            )
        )
        errors = check_allocation(snap, alloc)
    if errors:
        raise AssertionError("invalid round allocation: " + "; ".join(errors[:10]))
