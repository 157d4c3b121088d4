"""Epoch-based cluster simulation of SLAQ against fair share and max-min, on real loss curves.

Workloads are looked up by name in `WORKLOADS` (scope "slaq", `workloads.py`). The default,
"shipped-curves", is `make_jobs`: Poisson arrivals (exponential inter-arrival times, mean
`arrival_mean_s`); job i follows the shipped curve number i mod 9 (sorted names), its loss
values multiplied by a factor log-uniform in [0.5, 2] (normalized losses, qualities and the
predictor are scale-free, so this only checks that nothing depends on the loss's units);
W_j (core-seconds per iteration) log-uniform in [w_min, w_max]. Iteration time with c cores:
W_j / c (perfect scaling) or alpha W_j / c + beta_s (a fixed part). Each job runs every
iteration of its curve; its normalized loss is (L_k - L_final) / (L_0 - L_final).

Steps per epoch of T = `epoch_s` (3 s): admit arrived jobs, observe each job's losses so far,
allocate (the policy; timed as scheduler time), advance (fractional iterations; the times
a job reaches 90% / 95% of its loss reduction are interpolated inside the epoch), record.

More jobs than cores (FIFO admission): at most C jobs run at once. Arrived jobs wait in a
queue in arrival order and are admitted, at the start of an epoch, while fewer than C jobs
run; a running job keeps its place until it finishes. Every running job therefore holds at
least one core in every epoch (new jobs floor(C/J) >= 1, old ones min(min_cores, floor(C/J))
>= 1, `min_cores` >= 1), so it finishes after finitely many epochs, and a queued job waits at
most until the jobs ahead of it finish: no job waits forever. With J <= C nothing queues and
the rule changes nothing. Delays (time to 90% / 95%, completion) count from arrival, so they
include the wait; the average normalized loss is over the running jobs.

Fallbacks of the predictor (too few points, a family that cannot fit; `predict.Fit.note`) are
counted per refit and reported by `summarize` (`fits`, `fallbacks_too_few_points`,
`fallbacks_failed_fit`, `fallbacks_to`: the predictor used instead, per family).

Work cap: at most `max_epochs` epochs (default 10^5, `--max-epochs`). The epochs the input
implies (the last arrival, and the total work sum_j iterations_j x W_j over all cores, in
epochs) are checked before the first step; a run that reaches the cap stops with
`InvalidInput` naming the flag (exit 2) instead of returning a truncated result.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from schedlab.experiments.registry import POLICIES, WORKLOADS
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.curves import normalized_loss, shipped_curve, shipped_names
from schedlab.solvers.slaq.heuristics import QualityLevel
from schedlab.solvers.slaq.limits import (
    MAX_ARRIVAL_MEAN_S,
    MAX_CORE_S_PER_ITER,
    MAX_CORES,
    MAX_EPOCH_S,
    MAX_EPOCHS,
    MIN_CORE_S_PER_ITER,
    SIM_MAX_JOBS,
)
from schedlab.solvers.slaq.predict import FAMILIES, MODELS, FitBatch, PredictorConfig, fit_many
from schedlab.solvers.slaq.quality import QualityBatch
from schedlab.solvers.validate import MAX_MAGNITUDE, WorkCap, check_number, check_seed, check_work

#: Iteration time of a job on c cores: W/c ("perfect") or alpha W/c + beta_s ("fixed").
Scaling = Literal["perfect", "fixed"]
SCALINGS: tuple[str, ...] = get_args(Scaling)

#: The registered workload (`workloads.py`) a run uses unless told otherwise: `make_jobs`.
DEFAULT_WORKLOAD = "shipped-curves"

#: The authors' workload only: how their token shares run ("fluid": the fluid limit of the
#: offer order, `workload_authors.token_shares`; "offers": task by task, `token_offers.py`).
TOKEN_MODELS: tuple[str, ...] = ("fluid", "offers")
#: The authors' workload only: iterations per job ("driver": their driver's counts, "curves":
#: every point of the shipped stand-in curves).
ITERATIONS: tuple[str, ...] = ("driver", "curves")
#: A job that got no core for its first `STARVED_S` seconds after arrival counts as starved.
STARVED_S = 30.0


@dataclass(frozen=True)
class SimConfig:
    """Workload and cluster of one simulation run."""

    jobs: int = 30
    cores: int = 64
    arrival_mean_s: float = 15.0
    epoch_s: float = 3.0
    seed: int = 0
    scaling: Scaling = "perfect"
    alpha: float = 1.0
    beta_s: float = 0.05
    w_min: float = 2.0
    w_max: float = 8.0
    min_cores: int = 3
    model: str = "auto"
    max_epochs: int = MAX_EPOCHS
    warm_fits: bool = False  # warm-start each refit from the job's previous fit
    token_model: str = "fluid"  # the authors' workload only (`TOKEN_MODELS`)
    iterations: str = "driver"  # the authors' workload only (`ITERATIONS`)

    def check(self) -> None:
        p: list[str] = []
        for name, lo, hi in (
            ("jobs", 1, SIM_MAX_JOBS),
            ("cores", 1, MAX_CORES),
            ("min_cores", 1, MAX_CORES),
            ("max_epochs", 1, 10**12),
        ):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                p.append(f"{name.replace('_', '-')}: must be an integer in {lo}..{hi} (got {v!r})")
        check_number(
            self.arrival_mean_s, "arrival-mean", lo=0.0, hi=MAX_ARRIVAL_MEAN_S, lo_open=True,
            problems=p,
        )  # fmt: skip
        check_number(self.alpha, "alpha", lo=0.0, lo_open=True, problems=p)
        for name in ("w_min", "w_max"):
            check_number(
                getattr(self, name), name.replace("_", "-"), lo=MIN_CORE_S_PER_ITER,
                hi=MAX_CORE_S_PER_ITER, problems=p,
            )  # fmt: skip
        check_number(self.epoch_s, "epoch-s", lo=0.0, hi=MAX_EPOCH_S, lo_open=True, problems=p)
        check_number(self.beta_s, "beta-s", lo=0.0, hi=MAX_MAGNITUDE, problems=p)
        for name, allowed in (
            ("model", MODELS),
            ("token_model", TOKEN_MODELS),
            ("iterations", ITERATIONS),
        ):
            if getattr(self, name) not in allowed:
                flag = name.replace("_", "-")
                p.append(
                    f"{flag}: must be one of {', '.join(allowed)} (got {getattr(self, name)!r})"
                )
        if not p and self.w_max < self.w_min:
            p.append(
                f"w-max: must be >= w-min (--w-min {self.w_min:g} > --w-max {self.w_max:g}): "
                "lower --w-min or raise --w-max"
            )
        if p:
            raise InvalidInput(p)
        check_seed(self.seed, allow_none=False)


@dataclass
class SimJob:
    """A job's curve, cost and progress (fractional iterations done)."""

    id: int
    arrival_s: float
    curve: np.ndarray
    w: float
    progress: float = 0.0
    done_s: float | None = None
    t90_s: float | None = None
    t95_s: float | None = None
    norm: np.ndarray = field(default_factory=lambda: np.zeros(0))
    drops: np.ndarray = field(default_factory=lambda: np.zeros(0))  # running largest drop
    fit_n: int = -1  # points of the last fit (-1: never fitted)
    fit: tuple[float, ...] = (0.0,) * 5  # the last fit's code, k_now, l_now; T / W_j; M_j
    fit_params: np.ndarray = field(default_factory=lambda: np.zeros(5))  # its packed params
    fit_offsets: np.ndarray = field(default_factory=lambda: np.full(2, np.nan))
    family: str = ""  # the job's family (the curve's name here), for per-family metrics
    queued_epochs: int = 0  # epoch starts it spent waiting for admission (FIFO, J > C)
    first_core_s: float | None = None  # time from arrival to the first epoch it got a core
    tasks: int = 1  # tasks per iteration (the authors' workload, token model "offers")
    fits: int = 0  # refits of its predictor
    fallbacks: Counter[str] = field(default_factory=Counter)  # "too-few-points" etc., "to:<family>"

    @property
    def last(self) -> int:
        return len(self.curve) - 1

    def points(self) -> int:
        return int(math.floor(self.progress + 1e-9)) + 1


def make_jobs(cfg: SimConfig) -> list[SimJob]:
    """The seeded workload (see the module docstring)."""
    rng = np.random.default_rng(cfg.seed)
    names = shipped_names()
    arrivals = np.cumsum(rng.exponential(cfg.arrival_mean_s, cfg.jobs))
    arrivals -= arrivals[0]  # the first job arrives at 0
    jobs = []
    for i in range(cfg.jobs):
        curve = shipped_curve(names[i % len(names)]) * math.exp(
            rng.uniform(-math.log(2), math.log(2))
        )
        w = math.exp(rng.uniform(math.log(cfg.w_min), math.log(cfg.w_max)))
        j = SimJob(i, float(arrivals[i]), curve, w, family=names[i % len(names)])
        j.norm = normalized_loss(curve)
        j.drops = np.maximum.accumulate(-np.diff(curve)) if len(curve) > 1 else np.zeros(0)
        jobs.append(j)
    return jobs


def iter_time_s(cfg: SimConfig, w: float, cores: float) -> float:
    if cores <= 0:
        return math.inf
    return w / cores if cfg.scaling == "perfect" else cfg.alpha * w / cores + cfg.beta_s


def largest_drop_so_far(job: SimJob, n: int) -> float:
    """`quality.largest_drop` of the first n points (from the running maximum)."""
    drop = float(job.drops[n - 2]) if n >= 2 else 0.0
    return drop if drop > 0 else 1.0


def qualities(jobs: list[SimJob], cfg: SimConfig) -> QualityBatch:
    """Q_j from the losses observed so far, as arrays; jobs with a new point are refit
    together (one `fit_many`), warm-started from their previous fit when `cfg.warm_fits`."""
    n_pts = [j.points() for j in jobs]
    stale = [(j, n) for j, n in zip(jobs, n_pts, strict=True) if j.fit_n != n]
    if stale:
        warm = np.array([j.fit_offsets for j, _ in stale]) if cfg.warm_fits else None
        hs = [j.curve[:n] for j, n in stale]
        batch = fit_many(hs, cfg.model, PredictorConfig(), warm=warm)
        for (j, _), kind in zip(stale, fallback_kinds(batch, hs, cfg.model), strict=True):
            j.fits += 1
            j.fallbacks.update(kind)
        code, params, k_now, l_now = batch.arrays()
        offs = batch.offsets()
        for i, (j, n) in enumerate(stale):
            j.fit_n = n
            ipc, norm = cfg.epoch_s / j.w, largest_drop_so_far(j, n)
            j.fit = (float(code[i]), float(k_now[i]), float(l_now[i]), ipc, norm)
            j.fit_params = params[i]
            j.fit_offsets = offs[i]
    q = np.array([j.fit for j in jobs]).reshape(len(jobs), 5)
    p = np.array([j.fit_params for j in jobs]).reshape(len(jobs), 5)
    return QualityBatch(q[:, 0].astype(np.int64), p, q[:, 1], q[:, 2], q[:, 3], q[:, 4])


def fallback_kinds(batch: FitBatch, hs: list[np.ndarray], model: str) -> list[tuple[str, ...]]:
    """Per history, the fallback its fit took: () when the model answered as asked, else
    ("too-few-points" or "failed-fit", "to:<the predictor used instead>")."""
    need = PredictorConfig().min_points if model == "auto" or model in FAMILIES else 2
    asked = set(FAMILIES) if model == "auto" else {model}
    out: list[tuple[str, ...]] = []
    for i, h in enumerate(hs):
        fam = batch[i].family if i in batch.extra else "family"  # rows: an asked family
        if len(h) < need:
            out.append(("too-few-points", f"to:{fam}"))
        elif fam != "family" and fam not in asked:
            out.append(("failed-fit", f"to:{fam}"))
        else:
            out.append(())
    return out


def quality_levels(jobs: list[SimJob], batch: QualityBatch) -> list[QualityLevel]:
    """Each job's quality level after the epoch (`heuristics.QualityLevel`) from its Q_j."""
    return [
        QualityLevel(
            batch[i],
            float(j.curve[0]),
            float(batch.l_now[i]),
            float(np.min(j.curve[: j.points()])),
            float(batch.norm[i]),
        )
        for i, j in enumerate(jobs)
    ]


def allocate(running: list[SimJob], cfg: SimConfig, policy: Any) -> list[int]:
    """Cores per running job: new jobs fair share, old ones minimum + the policy's extras
    (at most C running jobs, so every job holds at least one core)."""
    n = len(running)
    fair = cfg.cores // n
    is_new = [j.points() <= 1 for j in running]
    base = [fair if new else min(cfg.min_cores, fair) for new in is_new]
    old = [i for i in range(n) if not is_new[i]]
    if not old:
        return base
    free = cfg.cores - sum(base)
    olds = [running[i] for i in old]
    qs: Any = qualities(olds, cfg) if policy.meta["needs_quality"] else []
    if policy.meta.get("needs_level"):
        qs = quality_levels(olds, qs)
    extra = policy.obj(qs, [base[i] for i in old], free, fair)
    cores = list(base)
    for i, e in zip(old, extra, strict=True):
        cores[i] += int(e)
    return cores


def _crossing(job: SimJob, level: float) -> int:
    """First iteration whose normalized loss is <= level."""
    return int(np.argmax(job.norm <= level + 1e-12))


def advance(job: SimJob, cores: float, now: float, cfg: SimConfig) -> None:
    """Run the job for one epoch; record 90% / 95% times and completion (interpolated)."""
    rate = 1.0 / iter_time_s(cfg, job.w, cores)  # iterations per second
    start = job.progress
    job.progress = min(job.last, start + rate * cfg.epoch_s)
    for attr, level in (("t90_s", 0.1), ("t95_s", 0.05)):
        k = _crossing(job, level)
        if getattr(job, attr) is None and job.progress + 1e-9 >= k:
            setattr(job, attr, now + max(0.0, k - start) / rate - job.arrival_s)
    if job.progress >= job.last - 1e-9:
        job.done_s = now + (job.last - start) / rate


def implied_epochs(jobs: list[SimJob], cfg: SimConfig) -> float:
    """A lower bound on the epochs a run takes: the last arrival, or all work on all cores."""
    work = sum(j.last * iter_time_s(cfg, j.w, cfg.cores) for j in jobs)  # all cores to each
    return max(jobs[-1].arrival_s, work) / cfg.epoch_s if jobs else 0.0


def simulate(cfg: SimConfig, policy_name: str, workload: str = DEFAULT_WORKLOAD) -> dict[str, Any]:
    """Run a registered workload under a policy; per-epoch records and per-job results."""
    cfg.check()
    policy = POLICIES.get(policy_name, scope="slaq")
    entry = WORKLOADS.get(workload, scope="slaq")
    jobs = entry.obj(cfg)
    alloc = entry.meta.get("allocate", allocate)  # a workload may bring its scheduler's model
    check_work(implied_epochs(jobs, cfg), cfg.max_epochs, "slaq simulate", "--max-epochs")
    cap = WorkCap(cfg.max_epochs, "slaq simulate", "--max-epochs")
    now, nxt = 0.0, 0
    running: list[SimJob] = []
    queue: deque[SimJob] = deque()
    times, losses, sched_s, queued, by_family = [], [], [], [], []
    idle = job_epochs = 0  # job-epochs of running (admitted) jobs; those that got no core
    while True:
        cap.step()
        while nxt < len(jobs) and jobs[nxt].arrival_s <= now + 1e-9:  # arrive
            queue.append(jobs[nxt])
            nxt += 1
        while queue and len(running) < cfg.cores:  # FIFO admission, at most C running
            running.append(queue.popleft())
        for j in queue:
            j.queued_epochs += 1
        queued.append(len(queue))
        if running:
            t0 = time.perf_counter()
            cores = alloc(running, cfg, policy)
            sched_s.append(time.perf_counter() - t0)
            times.append(now)
            losses.append(float(np.mean([j.norm[j.points() - 1] for j in running])))
            by_family.append(family_losses(running))
            job_epochs += len(running)
            idle += sum(1 for c in cores if c <= 0)
            for j, c in zip(running, cores, strict=True):
                if c > 0 and j.first_core_s is None:
                    j.first_core_s = now - j.arrival_s
                advance(j, c, now, cfg)
            running = [j for j in running if j.done_s is None]
        now += cfg.epoch_s
        if nxt == len(jobs) and not running and not queue:
            break
    return {
        "config": asdict(cfg),
        "policy": policy_name,
        "workload": workload,
        "times_s": times,
        "mean_norm_loss": losses,
        "scheduler_s": sched_s,
        "family_loss": by_family,
        "queued": queued,
        "job_epochs": job_epochs,
        "idle_job_epochs": idle,
        "jobs": jobs,
    }


def family_losses(running: list[SimJob]) -> dict[str, float]:
    """Mean normalized loss of the running jobs of each family (per-family quality over time)."""
    groups: dict[str, list[float]] = {}
    for j in running:
        groups.setdefault(j.family, []).append(float(j.norm[j.points() - 1]))
    return {f: float(np.mean(v)) for f, v in groups.items()}


def starvation(jobs: list[SimJob]) -> dict[str, Any]:
    """Starved jobs: those whose first core came `STARVED_S` seconds or more after arrival
    (queue wait included; a job that never got one counts), and their share of all jobs; the
    mean wait for a first core over the jobs that got one."""
    waits = [j.first_core_s for j in jobs]
    starved = sum(1 for w in waits if w is None or w >= STARVED_S - 1e-9)
    got = [w for w in waits if w is not None]
    return {
        "starved_jobs": starved,
        "starved_share": starved / len(jobs) if jobs else 0.0,
        "mean_first_core_wait_s": float(np.mean(got)) if got else None,
    }


def summarize(run: dict[str, Any]) -> dict[str, Any]:
    """The CLI's JSON keys: loss over time, time to 90% / 95%, scheduler time per epoch, and
    the job-epochs of admitted jobs that got no core (`idle_job_epochs`, `idle_share`): under
    an over-committed rule (the authors' scheduler with minimums above C) a new job can wait at
    its first loss while the mean loss counts it."""
    jobs = run["jobs"]
    t90 = [j.t90_s for j in jobs if j.t90_s is not None]
    t95 = [j.t95_s for j in jobs if j.t95_s is not None]
    jct = [j.done_s - j.arrival_s for j in jobs if j.done_s is not None]
    waits = [j.queued_epochs * run["config"]["epoch_s"] for j in jobs]
    fb: Counter[str] = sum((j.fallbacks for j in jobs), Counter())
    job_epochs = run["job_epochs"]
    return {
        "policy": run["policy"],
        "jobs": len(jobs),
        "finished_jobs": len(jct),
        "epochs": len(run["times_s"]),
        "makespan_s": max((j.done_s for j in jobs if j.done_s is not None), default=None),
        "mean_normalized_loss": float(np.mean(run["mean_norm_loss"])) if run["times_s"] else None,
        "mean_time_to_90_s": float(np.mean(t90)) if t90 else None,
        "mean_time_to_95_s": float(np.mean(t95)) if t95 else None,
        "mean_completion_s": float(np.mean(jct)) if jct else None,
        "scheduler_ms_per_epoch": 1e3 * float(np.mean(run["scheduler_s"]))
        if run["scheduler_s"]
        else None,
        "max_queued_jobs": max(run.get("queued", []), default=0),
        "mean_queue_wait_s": float(np.mean(waits)) if waits else None,
        "idle_job_epochs": run["idle_job_epochs"],
        "job_epochs": job_epochs,
        "idle_share": run["idle_job_epochs"] / job_epochs if job_epochs else 0.0,
        **starvation(jobs),
        "fits": sum(j.fits for j in jobs),
        "fallbacks_too_few_points": fb["too-few-points"],
        "fallbacks_failed_fit": fb["failed-fit"],
        "fallbacks_to": {k[3:]: fb[k] for k in sorted(fb) if k.startswith("to:")},
        "config": run["config"],
    }
