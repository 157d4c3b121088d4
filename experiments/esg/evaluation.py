"""ESG's evaluation engine: studies of scenarios x loads x arms, run seed by seed until each
paired comparison with ESG is decided.

A *scenario* is what shares one invoker pool: one or several registered apps
(`workloads.build_app`, drawn per seed when generated, fixed when measured), an arrival process
(`--arrivals`), a share grid and the invoker count. An *arm* (`ARMS`) is a policy with its
switches: a baseline, or ESG with one factor switched off (`policies.Factors`: whole GPUs,
batch 1, plan once at arrival, the paper's A* pruning) or one mechanism changed (dispatch
without locality, 10 ms cold starts, no SLO split, the old late-head rule). Every arm of a
(scenario, load) runs on the same seeds, so a seed gives the same apps and the same arrivals to
every arm (the simulator draws arrivals from its own seed, before any policy acts): the
comparison with ESG is paired per seed.

Sequential seeds (`run_study`): every comparison (scenario, load, arm against REFERENCE)
starts with `seeds0` seeds; while the t-interval of the paired hit-rate difference (points)
neither excludes 0 nor is narrower than 5 points (`eval_stats.decided`), `seed_step` seeds are
added, up to `seed_cap` (the cap is reported per comparison). Every run goes through the one
sweep runner, journaled (a rerun recomputes nothing; a stopped run resumes), in rounds: a
round runs every seed any undecided comparison still needs, side by side.

An arm that needs a kind of configuration a scenario lacks is left out there, said in the
study's table: BATCH-like needs CPU-only profiles (`CPU_ARMS`), which the measured and the
secondary-source apps do not have.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from schedlab.experiments.esg.eval_stats import decided, paired_points
from schedlab.experiments.store import RowStore

#: The policy every arm is compared with (ESG's paper: a baseline's hit rate and cost against
#: ESG's).
REFERENCE = "esg"
#: Arm name -> what it runs: `policy`, `factors` (policies.Factors fields), `split`, `late`,
#: `sim` (SimConfig fields). Registration order is the tables' order.
ARMS: dict[str, dict[str, Any]] = {
    "esg": {"policy": "esg"},
    "greedy": {"policy": "greedy"},
    "batch": {"policy": "batch"},
    "infless": {"policy": "infless"},
    "static": {"policy": "static"},
    "no-gpu-sharing": {"policy": "esg", "factors": {"gpu_sharing": False}},
    "no-batching": {"policy": "esg", "factors": {"batching": False}},
    "no-replan": {"policy": "esg", "factors": {"replan": False}},
    "paper-pruning": {"policy": "esg", "factors": {"pruning": "paper"}},
    "no-locality": {"policy": "esg", "sim": {"dispatch": "no-locality"}},
    "cold-start": {"policy": "esg", "sim": {"cold_start_ms": 10.0}},
    "no-split": {"policy": "esg", "split": "critical_path"},
    "late-cheapest": {"policy": "esg", "late": "cheapest"},
}
BASELINES = ("greedy", "batch", "infless", "static")
#: ESG's own factors as the paper names them, and its pruning setting.
FACTOR_ARMS = ("no-gpu-sharing", "no-batching", "no-replan", "paper-pruning")
#: Arms that need CPU-only configurations (BATCH-like runs on Lambda-like CPU functions).
CPU_ARMS = ("batch",)
#: Metrics kept per run (the simulator's names), besides per-app hit rates.
KEEP = ("slo_hit_rate", "slo_hits", "measured_requests", "cost", "p50_latency_ms",
        "p99_latency_ms", "decision_ms_p50", "decision_ms_p99", "decision_cpu_ms_p50",
        "decision_cpu_ms_p99", "cold_starts", "local_transfer_share")  # fmt: skip


@dataclass(frozen=True)
class Study:
    """One study's settings (JSON-able: they key its journal)."""

    name: str
    scenarios: dict[str, dict[str, Any]]
    loads: tuple[float, ...]
    arms: tuple[str, ...]
    requests: int = 1000
    warmup_frac: float = 0.2
    seeds0: int = 5
    seed_step: int = 5
    seed_cap: int = 20
    #: arms that run at some loads only (arm -> loads); the others run at every load
    arm_loads: dict[str, tuple[float, ...]] = field(default_factory=dict)

    def arms_of(self, scenario: str, load: float | None = None) -> list[str]:
        """The arms that can run on the scenario (CPU_ARMS need CPU-only configurations),
        at `load` (None: at any)."""
        sc = self.scenarios[scenario]
        cpu = sc.get("cpu_configs", 0) > 0 and sc.get("family", "generated") == "generated"
        return [a for a in self.arms if (cpu or a not in CPU_ARMS)
                and (load is None or load in self.arm_loads.get(a, (load,)))]  # fmt: skip

    def left_out(self) -> dict[str, list[str]]:
        """Per scenario, the study's arms it cannot run."""
        return {s: [a for a in self.arms if a not in self.arms_of(s)] for s in self.scenarios}


def scenario(
    apps: list[str],
    *,
    arrivals: str = "poisson",
    grid: str = "mig",
    configs: int = 60,
    cpu_configs: int = 30,
    invokers: int = 4,
    family: str = "generated",
) -> dict[str, Any]:
    """A scenario's settings (apps sharing one pool of `invokers`)."""
    return {"apps": list(apps), "arrivals": arrivals, "grid": grid, "configs": configs,
            "cpu_configs": cpu_configs if family == "generated" else 0,
            "invokers": invokers, "family": family}  # fmt: skip


def run_cell(key: dict[str, Any], spec: dict[str, Any], seed: int) -> dict[str, Any]:
    """One simulation: the key's scenario at its load under its arm, for seed + key seed."""
    from schedlab.experiments.esg.policies import Factors, make_policy
    from schedlab.experiments.esg.simulator import SimConfig, simulate
    from schedlab.experiments.esg.workloads import build_app

    sc = spec["scenarios"][key["scenario"]]
    arm = ARMS[key["arm"]]
    s = seed + key["seed"]
    apps = [
        build_app(a, s, sc["configs"], shares=sc["grid"], cpu_configs=sc["cpu_configs"])
        for a in sc["apps"]
    ]
    factors = Factors(**arm["factors"]) if "factors" in arm else None
    policy = make_policy(arm["policy"], arm.get("split"), factors, arm.get("late"))
    cfg = SimConfig(
        load=key["load"], arrivals=sc["arrivals"], requests=spec["requests"],
        invokers=sc["invokers"], seed=s, warmup_frac=spec["warmup_frac"], **arm.get("sim", {}),
    )  # fmt: skip
    m = simulate(apps, policy, cfg)
    row = {k: m[k] for k in KEEP}
    row["per_app_hit"] = [p["slo_hit_rate"] for p in m["per_app"]]
    row["per_app_cost"] = [p["cost"] for p in m["per_app"]]
    return row


Comparison = tuple[str, float, str]  # (scenario, load, arm)


def _keys(study: Study, need: dict[Comparison, int]) -> list[dict[str, Any]]:
    """Every run the seed counts imply (REFERENCE on the most seeds of its cell)."""
    ref: dict[tuple[str, float], int] = defaultdict(int)
    for (sc, x, _), n in need.items():
        ref[(sc, x)] = max(ref[(sc, x)], n)
    keys = []
    for sc in study.scenarios:
        for x in study.loads:
            for arm in study.arms_of(sc, x):
                n = ref[(sc, x)] if arm == REFERENCE else need[(sc, x, arm)]
                keys += [{"scenario": sc, "load": x, "arm": arm, "seed": i} for i in range(n)]
    return keys


def comparisons(study: Study) -> list[Comparison]:
    """Every (scenario, load, arm) compared with REFERENCE."""
    return [(sc, x, a) for sc in study.scenarios for x in study.loads
            for a in study.arms_of(sc, x) if a != REFERENCE]  # fmt: skip


def by_cell(rows: list[dict[str, Any]]) -> dict[tuple[str, float, str], dict[int, dict[str, Any]]]:
    """Rows by (scenario, load, arm) and seed."""
    out: dict[tuple[str, float, str], dict[int, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        out[(r["scenario"], r["load"], r["arm"])][r["seed"]] = r
    return out


def paired(
    cells: dict[tuple[str, float, str], dict[int, dict[str, Any]]], c: Comparison, n: int,
    metric: str = "slo_hit_rate",
) -> tuple[list[float], list[float]]:  # fmt: skip
    """REFERENCE's and the arm's `metric` on the arm's first n seeds (same seeds)."""
    sc, x, arm = c
    ref, other = cells[(sc, x, REFERENCE)], cells[(sc, x, arm)]
    seeds = [i for i in range(n) if i in ref and i in other]
    return [ref[i][metric] for i in seeds], [other[i][metric] for i in seeds]


def run_study(
    study: Study, seed: int, journal: Path, *, config: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], dict[Comparison, dict[str, Any]]]:
    """All runs of the study, seeds added per comparison until decided or capped; returns
    the rows and, per comparison, its seed count and whether the cap stopped it."""
    spec = asdict(study)
    header = json.loads(json.dumps(config or {**spec, "seed": seed}))  # as the journal holds it
    store = RowStore(journal, ["scenario", "load", "arm", "seed"], config=header)
    fn = partial(run_cell, spec=spec, seed=seed)
    need = {c: study.seeds0 for c in comparisons(study)}
    status: dict[Comparison, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    while True:
        rows = store.run(_keys(study, need), fn, desc=f"{study.name} ({max(need.values())} seeds)")
        cells = by_cell(rows)
        grow = False
        for c, n in need.items():
            _, lo, hi = paired_points(*paired(cells, c, n))
            ok = decided(lo, hi)
            capped = not ok and n >= study.seed_cap
            status[c] = {"seeds": n, "decided": ok, "capped": capped}
            if not ok and n < study.seed_cap:
                need[c] = min(n + study.seed_step, study.seed_cap)
                grow = True
        if not grow:
            for r in rows:  # what each run cost when it was computed (journaled apart)
                r["cpu_s"] = store.cost_of(store.key(r)).get("cpu_s", math.nan)
            return rows, status


def mean_or_nan(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan
