"""Workloads "authors" and "authors-fit": SLAQ's multi-job experiment as the authors' code runs it.

Sources (andrewor14/spark, branch approximate-scheduling, commit 087e7bc5, read through the
stored index; see /tmp/research/slaq_authors.md §2): the driver `SVMVsLogisticRegression.scala`,
the scheduler `PoolReweighterLoss.scala` and the pool order in `SchedulingAlgorithm.scala`.

Jobs (`authors_jobs`). 4 x threads jobs (`cfg.jobs`; threads = jobs / 4, the last thread may be
partial), started in the driver's order svm_i, logistic_i, linreg_i, mlpc_i for i = 1, 2, ...
Each family follows one shipped loss curve (the runs' own curves are not published):

- svm: SVMWithSGD on epsilon (step 100, reg 0.001) -> svm-epsilon (same data set; our file's
  run settings are not documented);
- logreg: binary LogisticRegressionWithLBFGS on epsilon -> logreg (caveat: it starts at
  ln 10 = 2.3026, a 10-class run, not the driver's binary LR on epsilon);
- linreg: LinearRegressionWithSGD on YearPredictionMSD -> linreg0.1 (a 10% sample; the driver
  trains on the full data);
- mlpc: MultilayerPerceptronClassifier [784, 10, 10] on mnist8m -> mlpc (210 points).

Iterations (`cfg.iterations`): "driver" (default) runs each job for the driver's count at
commit 087e7bc5, `DRIVER_ITERATIONS`: SVMWithSGD.train(..., numIterations = 100, ...),
LinearRegressionWithSGD.train(..., numIterations = 100, ...), MLPC setMaxIter(60) (with
setTol(0.01), which may stop it earlier: not modelled), and LogisticRegressionWithLBFGS with
the fork's LBFGS defaults (maxNumIterations 1000, convergenceTol 1e-9), longer than our
100-point logreg curve, which is kept whole; the stand-in curve is cut to that many points.
"curves" runs every point of the stand-in curves (svm 200, logreg 100, linreg 128, mlpc 210),
the workload before the option existed.

Tasks per iteration (the "offers" token model only, `tasks_per_iter`): one task per partition;
mlpc's data is repartitioned to 1000 x fraction and linreg's to 100 in the driver; the epsilon
samples (svm, logreg) keep the input file's splits, not in the code: we take 360 x fraction,
the driver's commented-out repartition of that data.

Data fractions: thread i (1-based) samples `sizes(i % 3)` of sizes (0.1, 0.5, 1.0), so threads
1, 2, 3, 4, ... use 0.5, 1.0, 0.1, 0.5, ...; the driver samples svm, logistic and mlpc data
and trains linreg on its full data set (fraction 1). A job's work per iteration is
W = `cfg.w_max` (core-seconds per iteration on the full data, default 8) x fraction, with
perfect scaling (the measured CPU time per iteration is W whatever the cores); the loss curve
does not change with the fraction (a caveat: a real sample converges differently).
Arrivals: the driver starts a job, then sleeps a Poisson(sleep) integer number of seconds:
arrival_k = sum of the first k gaps, gaps = `rng.poisson(cfg.arrival_mean_s, jobs)` from
`numpy.random.default_rng(cfg.seed)` (theirs: breeze's Poisson on MersenneTwister(0), so the
values differ). Cluster size (`cfg.cores`), threads and sleep are not in their code: parameters.

Scheduler (`authors_allocate`, every epoch of `cfg.epoch_s` = their 3 s):
- quality of c cores: Q_j(c) = (L - L^(iters(c))) / M_j, M_j the largest single-iteration
  drop so far (theirs includes the first window's 0 and is unguarded; ours is 1 when the loss
  never dropped, as in `quality.largest_drop`);
- predictor: "authors" the two-point geometric rule L (L / L_prev)^iters (their only one);
  "authors-fit" our fitted predictor (`cfg.model`, default auto) in its place;
- iters(c) = c T 1000 / avg_ms, avg_ms their mean measured CPU-ms per iteration: the durations
  of windows 2..n summed and divided by n (not n - 1), so iters(c) = (c T / W) n / (n - 1)
  with n loss points (`iters_per_core(..., quirk=True)`, used here; quirk=False: c T / W);
- base: new jobs (<= 1 loss) floor(C / P) cores (P running jobs), the others `cfg.min_cores`
  (their minCore 3), uncapped; then, while cores remain, the marginal-gain heap (policy
  "slaq": `heuristics.greedy_extra`; "maxmin" its water-filling, not in their code). Fair
  (policy "fair"): every pool the same tokens, every epoch.
- enforcement (`cfg.token_model`): "offers" replays their task-offer order task by task
  (`token_offers.py`, whose docstring cites the code); "fluid" (default), its fluid limit:
  their shares are tokens (cores x T x 1000 core-ms per pool and epoch), each task
  launch takes the pool's mean task time off its tokens, and free cores are offered to the pool
  with the most tokens left: shares only order task offers, work-conserving. We run that order's
  fluid limit (`token_shares`): serving the pool with the most tokens left drains the largest
  balances to a common level lambda, so pool j runs on max(0, b_j - lambda) cores with
  sum = C (lambda = 0 when the tokens sum to C; lambda < 0 spreads unallocated cores evenly).
  The same rule is our over-commitment rule (minimums above C, which their code lets happen):
  the largest token balances are served first, pools with at most lambda wait that epoch (a
  new job's floor(C/P) is the smallest, so it waits until a running job ends: no job waits
  forever, since every running job then progresses). What this does not model: task
  granularity and per-family task times (not in the code, and our curves carry no task data),
  tokens carried across a task that straddles an epoch, and a pool's cores freed mid-epoch
  when it finishes (lost until the next epoch here, as in our simulator).
Not emulated: finished logistic pools stay registered in their code (no `done` call), which
dilutes floor(C / P); we treat it as a bug.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from schedlab.experiments.registry import register_workload
from schedlab.experiments.slaq.simulator import (
    ITERATIONS,
    TOKEN_MODELS,
    SimConfig,
    SimJob,
    largest_drop_so_far,
    qualities,
)
from schedlab.experiments.slaq.token_offers import offer_cores
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.curves import normalized_loss, shipped_curve
from schedlab.solvers.slaq.predict import FAMILY_CODES
from schedlab.solvers.slaq.quality import QualityBatch

SUBJECT = "slaq"

#: (family, stand-in shipped curve) in the driver's start order.
FAMILIES: tuple[tuple[str, str], ...] = (
    ("svm", "svm-epsilon"),
    ("logreg", "logreg"),
    ("linreg", "linreg0.1"),
    ("mlpc", "mlpc"),
)
#: Iterations per job in the driver (commit 087e7bc5; see the module docstring).
DRIVER_ITERATIONS = {"svm": 100, "logreg": 1000, "linreg": 100, "mlpc": 60}
#: Partitions (tasks per iteration) on the full data; scaled by the fraction where sampled.
FULL_DATA_TASKS = {"svm": 360, "logreg": 360, "linreg": 100, "mlpc": 1000}
#: The driver's `sizes`, indexed by thread number i (1-based) mod 3.
SIZES = (0.10, 0.5, 1.0)
#: Families trained on a sample of `SIZES` (linreg uses its full data set).
SAMPLED = frozenset({"svm", "logreg", "mlpc"})


def fraction(family: str, thread: int) -> float:
    """The data fraction of the job of `family` started by thread `thread` (1-based)."""
    return SIZES[thread % len(SIZES)] if family in SAMPLED else 1.0


def tasks_per_iter(family: str, frac: float) -> int:
    """Tasks (partitions) per iteration of a job of `family` on `frac` of its data."""
    return max(1, round(FULL_DATA_TASKS[family] * frac))


def job_curve(family: str, curve_name: str, iterations: str) -> np.ndarray:
    """The stand-in curve, cut to the driver's iteration count under `iterations="driver"`."""
    curve = shipped_curve(curve_name)
    return curve[: DRIVER_ITERATIONS[family]] if iterations == "driver" else curve


def arrivals_s(cfg: SimConfig) -> np.ndarray:
    """Start times: job k starts after the first k integer Poisson gaps of mean `sleep`."""
    gaps = np.random.default_rng(cfg.seed).poisson(cfg.arrival_mean_s, cfg.jobs)
    return np.concatenate([[0], np.cumsum(gaps)[:-1]]).astype(float)


def authors_jobs(cfg: SimConfig) -> list[SimJob]:
    """The driver's jobs (see the module docstring), in start order."""
    starts = arrivals_s(cfg)
    jobs = []
    for k in range(cfg.jobs):
        family, curve_name = FAMILIES[k % len(FAMILIES)]
        curve = job_curve(family, curve_name, cfg.iterations)
        frac = fraction(family, k // len(FAMILIES) + 1)
        j = SimJob(k, float(starts[k]), curve, cfg.w_max * frac, family=family)
        j.tasks = tasks_per_iter(family, frac)
        j.norm = normalized_loss(curve)
        j.drops = np.maximum.accumulate(-np.diff(curve))
        jobs.append(j)
    return jobs


def iters_per_core(epoch_s: float, w: float, n: int, quirk: bool = True) -> float:
    """Their iterations per core and epoch, T 1000 / avg_ms: with the quirk avg_ms sums the
    n - 1 measured windows and divides by n, so (T / W) n / (n - 1); without it T / W."""
    if not quirk:
        return epoch_s / w
    if n < 2:
        return math.inf  # no measured window: their avg_ms is 0
    return epoch_s * 1000.0 / ((n - 1) * w * 1000.0 / n)


def geometric_batch(jobs: list[SimJob], cfg: SimConfig, quirk: bool = True) -> QualityBatch:
    """Q_j of the old jobs with their predictor L (L / L_prev)^iters (one geometric fit each)."""
    n = len(jobs)
    params, k_now, l_now, ipc, norm = np.zeros((n, 5)), *(np.zeros(n) for _ in range(4))
    for i, j in enumerate(jobs):
        pts = j.points()
        last, prev = float(j.curve[pts - 1]), float(j.curve[pts - 2])
        params[i, 0] = last / prev if prev != 0 else 1.0
        k_now[i], l_now[i] = pts - 1, last
        ipc[i] = iters_per_core(cfg.epoch_s, j.w, pts, quirk)
        norm[i] = largest_drop_so_far(j, pts)
    code = np.full(n, FAMILY_CODES["geometric"], dtype=np.int64)
    return QualityBatch(code, params, k_now, l_now, ipc, norm)


def fitted_batch(jobs: list[SimJob], cfg: SimConfig, quirk: bool = True) -> QualityBatch:
    """Q_j of the old jobs with our fitted predictor (`simulator.qualities`) and their
    iteration estimate."""
    q = qualities(jobs, cfg)
    ipc = np.array([iters_per_core(cfg.epoch_s, j.w, j.points(), quirk) for j in jobs])
    return QualityBatch(q.code, q.params, q.k_now, q.l_now, ipc, q.norm)


def token_shares(tokens: list[float] | np.ndarray, capacity: float) -> np.ndarray:
    """Cores per pool when the pool with the most tokens left is always served first (the fluid
    limit of their task order): max(0, b_j - lambda), summing to `capacity`."""
    b = np.asarray(tokens, dtype=float)
    if len(b) == 0:
        return b
    s = np.sort(b)[::-1]
    total = np.cumsum(s)
    lam = (total[-1] - capacity) / len(s)
    for k in range(1, len(s)):
        lam_k = (total[k - 1] - capacity) / k
        if s[k] <= lam_k:
            lam = lam_k
            break
    return np.maximum(b - lam, 0.0)


def authors_base(running: list[SimJob], cfg: SimConfig) -> list[int]:
    """Their base cores: new jobs (<= 1 loss) floor(C / P), the others the minimum, uncapped."""
    fair = cfg.cores // len(running)
    return [fair if j.points() <= 1 else cfg.min_cores for j in running]


def run_tokens(tokens: list[float], running: list[SimJob], cfg: SimConfig) -> list[float]:
    """Cores per job from its tokens (in cores) under `cfg.token_model`: the fluid limit
    (`token_shares`) or the task-offer order (`token_offers.offer_cores`)."""
    if cfg.token_model == "fluid":
        return [float(x) for x in token_shares(tokens, cfg.cores)]
    left = [j.last - j.progress for j in running]
    w, n = [j.w for j in running], [j.tasks for j in running]
    return [float(x) for x in offer_cores(tokens, w, n, left, cfg.cores, cfg.epoch_s)]


def authors_allocate(
    running: list[SimJob], cfg: SimConfig, policy: Any, *, predictor: str, quirk: bool = True
) -> list[float]:
    """Cores per running job this epoch: their tokens (base + heap, or equal for fair), run
    under the token model (`run_tokens`)."""
    if policy.name == "fair":  # isFair: every pool the same tokens
        return run_tokens([1.0] * len(running), running, cfg)
    base = authors_base(running, cfg)
    tokens = [float(b) for b in base]
    old = [i for i, j in enumerate(running) if j.points() > 1]
    free = cfg.cores - sum(base)
    if old and free > 0:
        jobs = [running[i] for i in old]
        batch = geometric_batch if predictor == "geometric" else fitted_batch
        qs = batch(jobs, cfg, quirk) if policy.meta["needs_quality"] else []
        extra = policy.obj(qs, [base[i] for i in old], free, cfg.cores // len(running))
        for i, e in zip(old, extra, strict=True):
            tokens[i] += int(e)
    return run_tokens(tokens, running, cfg)


#: `simulate --predictor`: the authors' workload under each predictor.
PREDICTOR_WORKLOADS = {"geometric": "authors", "fit": "authors-fit"}


def with_predictor(workload: str, predictor: str | None) -> str:
    """The workload `--workload W --predictor P` names: P picks between "authors" (their
    geometric rule) and "authors-fit" (our fit); refused for other workloads."""
    if predictor is None:
        return workload
    if workload not in PREDICTOR_WORKLOADS.values():
        raise InvalidInput(
            f"slaq simulate: --predictor applies to the authors' workloads "
            f"({', '.join(PREDICTOR_WORKLOADS.values())}), not --workload {workload}; "
            "drop --predictor (our workload always fits) or pass --workload authors"
        )
    return PREDICTOR_WORKLOADS[predictor]


def check_authors_options(workload: str, token_model: str | None, iterations: str | None) -> None:
    """`--token-model` and `--iterations` shape the authors' workloads only: refused (exit 2,
    naming the flag) for any other workload."""
    for flag, value, allowed in (
        ("--token-model", token_model, TOKEN_MODELS),
        ("--iterations", iterations, ITERATIONS),
    ):
        if value is not None and workload not in PREDICTOR_WORKLOADS.values():
            raise InvalidInput(
                f"slaq simulate: {flag} applies to the authors' workloads "
                f"({', '.join(PREDICTOR_WORKLOADS.values())}), not --workload {workload}; "
                f"drop {flag} or pass --workload authors (one of {', '.join(allowed)})"
            )


register_workload(
    SUBJECT,
    "authors",
    summary="the authors' driver: svm/logreg/linreg/mlpc, integer Poisson gaps, their "
    "geometric predictor and base cores, token order as fluid shares",
    allocate=partial(authors_allocate, predictor="geometric"),
)(authors_jobs)
register_workload(
    SUBJECT,
    "authors-fit",
    summary="the authors' workload and scheduler with our fitted predictor in place of theirs",
    allocate=partial(authors_allocate, predictor="fit"),
)(authors_jobs)
