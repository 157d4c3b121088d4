"""The settings of ESG's evaluation studies per size (`evaluation.Study`), in one place.

- `main_study` (figure `esg`): each generated app alone on 4 invokers, Poisson, the MIG grid
  with 60 GPU + 30 CPU-only configurations per function; ESG, the four baselines, ESG with
  each factor off (whole GPUs, batch 1, plan once, the paper's pruning) and with each
  mechanism changed (no locality, 10 ms cold starts, no SLO split);
- `measured_study` (figure `esg-measured`): the measured A100 MIG apps (ParvaGPU) and the
  secondary-source apps (six summary latencies); GPU-only baselines (BATCH-like needs CPU-only
  profiles), the factor ablations and the old late-head rule;
- `contention_study` (figure `esg-contention`): the four generated apps sharing one pool of 4
  invokers under Poisson, bursty and Azure-trace arrivals, loads up to saturation;
- `mps_study` (figure `esg-mps`, outside `reproduce`): the main study on the MPS grid.

Sizes: "small" fits `schedlab reproduce --size small` (seconds), "full" the full run's
budget (HELPERS.md: ESG's studies and claim 14 together <= 6 CPU-minutes); "tiny" is for
tests and the notebook.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedlab.experiments.esg.evaluation import ARMS, Study, scenario
from schedlab.experiments.ladder import pick

#: Arms of ESG's own factors and mechanisms, the columns of the factor table.
FACTOR_TABLE_ARMS = ("no-gpu-sharing", "no-batching", "no-replan", "paper-pruning",
                     "no-locality", "cold-start", "no-split", "late-cheapest")  # fmt: skip
POLICY_ARMS = ("esg", "greedy", "batch", "infless", "static")
#: ESG's mechanisms that are not the paper's factors (dispatch locality, warm starts, the split).
MECHANISM_ARMS = ("no-locality", "cold-start", "no-split")
MAIN_ARMS = POLICY_ARMS + FACTOR_TABLE_ARMS[:7]
MEASURED_ARMS = ("esg", "greedy", "infless", "static", "batch", "no-gpu-sharing", "no-batching",
                 "no-replan", "late-cheapest")  # fmt: skip
CONTENTION_ARMS = POLICY_ARMS + ("no-locality", "no-replan")
GENERATED = ("chain3", "chain6", "dag-wide", "dag-deep")
SEQ = {  # sequential seeds: (start, step, cap) per size
    "tiny": (2, 1, 3),
    "small": (3, 1, 4),
    "full": (5, 5, 10),
    "long": (5, 5, 20),
}
#: Requests per run (all apps of a scenario together; the first 20 % of arrivals are warm-up).
REQUESTS = {"tiny": 150, "small": 200, "full": 800, "long": 2400}


def _seq(size: str) -> dict[str, Any]:
    s0, step, cap = pick(size, SEQ)
    return {"seeds0": s0, "seed_step": step, "seed_cap": cap}


def main_study(size: str, grid: str = "mig", name: str = "esg") -> Study:
    """Each generated app alone (the figure `esg`)."""
    apps = GENERATED if size in ("full", "long") else ("chain3", "dag-wide")
    loads = (0.3,) if size in ("tiny", "small") else (0.1, 0.3, 0.5)
    arms = POLICY_ARMS + FACTOR_TABLE_ARMS[:4] if size == "tiny" else MAIN_ARMS
    # the mechanisms (not the paper's factors) at the middle load only (the full budget)
    one: dict[str, tuple[float, ...]] = (
        {a: (0.3,) for a in MECHANISM_ARMS} if size == "full" else {}
    )
    return Study(name, {a: scenario([a], grid=grid) for a in apps}, loads, arms,
                 requests=pick(size, REQUESTS), arm_loads=one, **_seq(size))  # fmt: skip


def measured_study(size: str) -> Study:
    """The sourced apps (measured MIG profiles, the secondary-source family)."""
    big = size in ("full", "long")
    apps = (
        ("mig-chain4", "mig-diamond", "s6-chain", "s6-dag") if big else ("mig-chain4", "s6-chain")
    )
    fam = {"mig-chain4": "measured", "mig-diamond": "measured", "s6-chain": "secondary",
           "s6-dag": "secondary"}  # fmt: skip
    loads = (0.2, 0.5, 0.8) if big else (0.5,)
    req = 600 if size == "full" else pick(size, REQUESTS)
    return Study("esg-measured", {a: scenario([a], family=fam[a]) for a in apps}, loads,
                 MEASURED_ARMS, requests=req, **_seq(size))  # fmt: skip


def contention_study(size: str, name: str = "esg-contention") -> Study:
    """The generated apps sharing one pool under three arrival processes. At full size 600
    requests per run (150 per app) and loads to 0.9; size "long" (figure
    `esg-contention-long`, outside reproduce) 2,400 requests and loads to 1.2."""
    big = size in ("full", "long")
    apps = list(GENERATED) if big else ["chain3", "dag-wide"]
    kinds = ("poisson", "bursty", "azure")
    loads = pick(size, {"tiny": (0.6,), "small": (0.6,), "full": (0.3, 0.6, 0.9),
                        "long": (0.3, 0.6, 0.9, 1.2)})  # fmt: skip
    arms = CONTENTION_ARMS if big else ("esg", "batch", "infless")
    seq = {"seeds0": 3, "seed_step": 3, "seed_cap": 6} if size == "full" else _seq(size)
    if size in ("tiny", "small"):
        seq = {"seeds0": 3, "seed_step": 1, "seed_cap": 3}
    req = pick(size, {"tiny": 200, "small": 300, "full": 600, "long": 2400})
    scen = {f"shared-{k}": scenario(apps, arrivals=k) for k in kinds}
    one: dict[str, tuple[float, ...]] = {"no-locality": (0.6,)} if size == "full" else {}
    return Study(name, scen, loads, arms, requests=req, arm_loads=one, **seq)


def mps_study(size: str) -> Study:
    """The main study on the MPS share grid (5 % steps)."""
    return main_study(size, grid="mps", name="esg-mps")


def config_space(study: Study, seed: int) -> list[dict[str, Any]]:
    """Per scenario and arm: configurations per function the arm may use (mean over the
    scenario's functions at the study's first seed) out of all."""
    from schedlab.experiments.esg.policies import Factors
    from schedlab.experiments.esg.workloads import build_app
    from schedlab.solvers.esg.heuristics import MASKS

    out = []
    for name, sc in study.scenarios.items():
        apps = [build_app(a, seed, sc["configs"], shares=sc["grid"], cpu_configs=sc["cpu_configs"])
                for a in sc["apps"]]  # fmt: skip
        fs = [f for app in apps for f in app.functions]
        for arm in study.arms_of(name):
            spec = ARMS[arm]
            if arm != "esg" and "factors" not in spec and spec["policy"] == "esg":
                continue  # the same configurations as esg
            mask = MASKS.get(spec["policy"], MASKS["greedy"])
            fac = Factors(**spec.get("factors", {}))
            n = float(np.mean([(mask(f) & fac.allowed(f)).sum() for f in fs]))
            out.append({"scenario": name, "arm": arm, "configs_per_function": n,
                        "of": float(np.mean([len(f.configs) for f in fs]))})  # fmt: skip
    return out
