"""The online claim as a study: the paper's approach paired against each existing technique.

The abstract says that with many servers and arrivals an online approach built on the
single-server policy gives a better mean sojourn of successful jobs than existing techniques
(simulation with real-world traces). Neither the policy's formula nor the baselines are
stated in the sources read, so the approach is our reading: the single-server index, Smith's
rule pi / E[X] (optimal for A, TK and DK, asymptotically optimal for B), applied at each
decision to the jobs waiting, without preemption (`smith`) and with checkpoint preemption
(`gamma`: the same index of the remaining job at its age, pi / E[(X - a)^+]). The existing
techniques are those the short paper and the design name: FCFS, SEPT, SERPT, Gittins and
Sevcik's rank (`BASELINES`).

Settings: synthetic Poisson arrivals (the generator's own per-job success probabilities) at
several server counts and loads; the Philly trace's arrivals at several server counts and
loads under each success model (`success_models`), the uniform one and every feature model
at a strong heterogeneity, plus a sweep of the heterogeneity. Every policy sees the same jobs
and outcomes per replication (common random numbers), so each comparison is paired by
replication: the relative difference approach / baseline - 1 per replication, its mean and
Student-t 95% interval; verdict `better` when the interval lies below 0, `worse` above,
`no difference` otherwise. Metrics: the mean sojourn of successful jobs (the paper's), its
p90 and p99 (each replication's own percentiles), and the mean over all jobs (what the
baselines optimize).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from schedlab.experiments.sojourn.metrics import mean_ci
from schedlab.experiments.sojourn.policies import get_policy
from schedlab.experiments.sojourn.runner import evaluate_policy
from schedlab.experiments.sojourn.success_models import SUCCESS_MODELS
from schedlab.experiments.sojourn.workloads import philly_source, synthetic_source
from schedlab.experiments.store import RowStore, results_dir
from schedlab.solvers.errors import InvalidInput

APPROACHES = ("gamma", "smith")  # the paper's approach (our reading): with / without preemption
BASELINES = ("fcfs", "sept", "serpt", "gittins", "sevcik")
POLICIES = APPROACHES + BASELINES
#: metric suffix -> (per-replication list of a row, what it is)
METRICS: dict[str, tuple[str, str]] = {
    "": ("rep_mean_successful", "mean sojourn of successful jobs"),
    "_p90": ("rep_p90_successful", "p90 sojourn of successful jobs"),
    "_p99": ("rep_p99_successful", "p99 sojourn of successful jobs"),
    "_all": ("rep_mean_all", "mean sojourn of all jobs"),
}
SYNTHETIC_OUTCOMES = "generator"  # the synthetic jobs' own Dirichlet outcome probabilities
KEY_FIELDS = ["workload", "outcome_model", "heterogeneity", "servers", "load", "policy"]
SETTING_FIELDS = KEY_FIELDS[:-1]


@dataclass(frozen=True)
class StudyConfig:
    """One online study's grid. Philly settings: the uniform model and every feature model at
    `philly_strong`, at each of `philly_loads`; plus each feature model at each of `sweep_h`
    at each of `sweep_loads`; all at every `philly_servers`. `philly_trace` None = sample."""

    synthetic_servers: tuple[int, ...]
    synthetic_loads: tuple[float, ...]
    synthetic_jobs: int
    synthetic_replications: int
    philly_trace: str | None
    philly_servers: tuple[int, ...]
    philly_loads: tuple[float, ...]
    philly_replications: int
    philly_strong: float = 2.0
    sweep_h: tuple[float, ...] = ()
    sweep_loads: tuple[float, ...] = ()
    max_checkpoints: int = 3
    policies: tuple[str, ...] = POLICIES

    def __post_init__(self) -> None:
        if min(self.synthetic_replications, self.philly_replications) < 2:
            raise InvalidInput("replications: a paired interval needs at least 2 per setting")
        missing = [p for p in APPROACHES + BASELINES if p not in self.policies]
        if missing:
            raise InvalidInput(f"policies: the study pairs {missing} too; keep them")

    def philly_settings(self) -> list[tuple[str, float]]:
        """(success model, heterogeneity) pairs at the paired loads, uniform first."""
        models = [m for m in SUCCESS_MODELS if m != "uniform"]
        return [("uniform", 0.0)] + [(m, self.philly_strong) for m in models]

    def keys(self) -> list[dict[str, Any]]:
        """Every cell, setting by setting (a worker's workload cache then hits)."""
        out: list[dict[str, Any]] = []
        for m in self.synthetic_servers:
            for ld in self.synthetic_loads:
                out += _cells("synthetic", SYNTHETIC_OUTCOMES, None, m, ld, self.policies)
        models = [m for m in SUCCESS_MODELS if m != "uniform"]
        seen: set[tuple[Any, ...]] = set()
        for m in self.philly_servers:
            combos = [(om, h, ld) for ld in self.philly_loads for om, h in self.philly_settings()]
            combos += [
                (om, h, ld) for ld in self.sweep_loads for om in models for h in self.sweep_h
            ]
            if self.sweep_h:  # the sweep's h = 0 end: the uniform model at the sweep loads
                combos += [("uniform", 0.0, ld) for ld in self.sweep_loads]
            for om, h, ld in combos:
                if (om, h, ld, m) not in seen:
                    seen.add((om, h, ld, m))
                    out += _cells("philly", om, h, m, ld, self.policies)
        return out


def _cells(
    workload: str, om: str, h: float | None, servers: int, load: float, policies: tuple[str, ...]
) -> list[dict[str, Any]]:
    return [
        {"workload": workload, "outcome_model": om, "heterogeneity": h, "servers": servers,
         "load": load, "policy": p}
        for p in policies
    ]  # fmt: skip


@functools.lru_cache(maxsize=8)
def _philly(trace: str | None, servers: int, load: float, model: str, h: float) -> Any:
    """The Philly workload of one setting (built once per process and setting)."""
    return philly_source(
        Path(trace) if trace else None, servers, load=load, success_model=model, heterogeneity=h
    )


def cell_row(key: dict[str, Any], *, cfg: StudyConfig, seed: int) -> dict[str, Any]:
    """One (setting, policy) cell: R replications (module-level, so it pickles to workers)."""
    pol = get_policy(key["policy"])
    m = key["servers"]
    if key["workload"] == "synthetic":
        src: Any = synthetic_source(
            cfg.synthetic_jobs, key["load"], m, max_checkpoints=cfg.max_checkpoints
        )
        reps = cfg.synthetic_replications
    else:
        src = _philly(cfg.philly_trace, m, key["load"], key["outcome_model"], key["heterogeneity"])
        reps = cfg.philly_replications
    return flat(evaluate_policy(src, pol, m, seed=seed, replications=reps))


def flat(res: dict[str, Any]) -> dict[str, Any]:
    """The journal row of one cell: summary values plus the per-replication lists."""
    cs, ca = res["ci95_successful"] or [None, None], res["ci95_all"] or [None, None]
    ps = res["percentiles_successful"]
    return {
        "jobs": res["jobs"],
        "excluded_jobs": res["excluded_jobs"],
        "replications": res["replications"],
        "offered_load": res["offered_load"],
        "mean_sojourn_successful": res["mean_sojourn_successful"],
        "ci95_successful_low": cs[0],
        "ci95_successful_high": cs[1],
        "mean_sojourn_all": res["mean_sojourn_all"],
        "ci95_all_low": ca[0],
        "ci95_all_high": ca[1],
        "p50_successful": ps["p50"],
        "p90_successful": ps["p90"],
        "p99_successful": ps["p99"],
        "successful_jobs": res["successful_jobs"],
        "utilization": res["utilization"],
        "preemptions": res["preemptions"],
        "runtime_s": res["runtime_s"],
        "rep_mean_successful": res["replication_means_successful"],
        "rep_p90_successful": res["replication_p90_successful"],
        "rep_p99_successful": res["replication_p99_successful"],
        "rep_mean_all": res["replication_means_all"],
    }


def compute(
    cfg: StudyConfig, seed: int, outdir: Path, stem: str, size: str
) -> list[dict[str, Any]]:
    """Every cell's row, resuming from the journal results/sojourn/STEM.jsonl."""
    store = RowStore(
        results_dir(outdir, "sojourn") / f"{stem}.jsonl",
        KEY_FIELDS,
        config=json.loads(json.dumps({**asdict(cfg), "seed": seed, "row_format": 3})),
    )
    return store.run(cfg.keys(), partial(cell_row, cfg=cfg, seed=seed), desc=f"{stem} ({size})")


# ---- paired comparisons ---------------------------------------------------------------------
def setting_of(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[f] for f in SETTING_FIELDS)


def verdict_of(ci: list[float] | None) -> str:
    """better (interval below 0: the approach is lower), worse (above), no difference."""
    if ci is None:
        return "no interval"
    return "better" if ci[1] < 0 else "worse" if ci[0] > 0 else "no difference"


def compare(
    a: dict[str, Any], b: dict[str, Any], field: str
) -> tuple[float, list[float] | None, int]:
    """Mean of a / b - 1 over paired replications of `field`, its 95% interval, the count."""
    rel = [
        x / y - 1.0
        for x, y in zip(a[field], b[field], strict=True)
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y) and y > 0
    ]
    m, ci = mean_ci(rel)
    return m, ci, len(rel)


def paired(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (setting, approach, baseline): the relative difference of every metric.

    `diff`, `ci_low`, `ci_high`, `verdict` are the mean sojourn of successful jobs; the same
    columns with suffix _p90, _p99 (successful jobs) and _all (every job) follow.
    """
    by = {(*setting_of(r), r["policy"]): r for r in rows}
    settings = list(dict.fromkeys(setting_of(r) for r in rows))
    out = []
    for s in settings:
        for ap in APPROACHES:
            for bl in BASELINES:
                a, b = by.get((*s, ap)), by.get((*s, bl))
                if a is None or b is None:
                    continue
                row: dict[str, Any] = dict(zip(SETTING_FIELDS, s, strict=True))
                row.update(approach=ap, baseline=bl, replications=a["replications"],
                           approach_mean_s=a["mean_sojourn_successful"],
                           baseline_mean_s=b["mean_sojourn_successful"])  # fmt: skip
                for suffix, (field, _) in METRICS.items():
                    m, ci, _n = compare(a, b, field)
                    row[f"diff{suffix}"] = m
                    row[f"ci_low{suffix}"] = ci[0] if ci else None
                    row[f"ci_high{suffix}"] = ci[1] if ci else None
                    row[f"verdict{suffix}"] = verdict_of(ci)
                out.append(row)
    return out


PAIRED_FIELDS = [
    *SETTING_FIELDS,
    "approach",
    "baseline",
    "replications",
    "approach_mean_s",
    "baseline_mean_s",
    *[f"{c}{s}" for s in METRICS for c in ("diff", "ci_low", "ci_high", "verdict")],
]
