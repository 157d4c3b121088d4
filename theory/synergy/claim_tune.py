"""Claim 13: Synergy-TUNE never leaves a job worse off than GPU-proportional allocation.

Synergy (Mohan et al., OSDI 2022) gives DNN training jobs CPUs and memory by their measured
sensitivity. Its online allocator, Synergy-TUNE, is stated to be near-optimal and to never make
a job worse off than the GPU-proportional allocation it replaces: TUNE runs every job that
GPU-proportional would run in the round, each at no less than its proportional throughput
(docs/synergy.md, the `tune` row). schedlab's TUNE is a reconstruction (solvers/synergy/
heuristics.py); this check tests the guarantee on it, with the shipped profiles.

Check, on random round snapshots (1..S servers, single- and multi-GPU jobs, several task
mixes, more jobs than GPUs so that TUNE must take resources back from jobs placed earlier):

- the proportional set is recomputed here from the snapshot (policy order, each job whose GPUs
  still fit cluster-wide), and each job's proportional throughput is gpus x tput(model, the
  cluster's CPUs and GB per GPU) read from the profiles; TUNE must run every job of that set at
  no less throughput (relative tolerance 1e-9), and its allocation must be valid
  (`check_allocation`: capacities, exact GPU counts, one per-GPU configuration per job);
- the exact oracle: the optimum over allocations that satisfy the guarantee (MILP with HiGHS,
  run set "proportional", proven optimal; CP-SAT on every k-th snapshot as a second oracle).
  an allocation that keeps the guarantee lies in that problem's feasible set, so its total
  throughput can never exceed it (if it did, the evidence would be inconsistent: verdict
  inconclusive); the gap (opt - TUNE) / opt is reported as the measure of "near-optimal".

The verdict is `holds` when no job of any snapshot is below its proportional throughput and
every allocation is valid; `fails` otherwise, with the worst snapshot saved as
results/theory/claim13-worst.json. Inject `allocate_fn` (e.g. Synergy-GREEDY, which skips jobs
that do not fit at their ideal demand) to see the check fail.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.solvers.result import PROOF_TOL, Status
from schedlab.solvers.solve import solve
from schedlab.solvers.synergy.allocation import Allocation, check_allocation, total_tput
from schedlab.solvers.synergy.generate import generate_snapshot
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.theory.claims import register_claim
from schedlab.theory.verdict import (
    RunnerFactory,
    Verdict,
    instance_seed,
    rows_for,
    settings,
    theory_dir,
    verdict_from,
)

CLAIM_ID = "13"
TITLE = "Synergy-TUNE runs every job GPU-proportional runs, none below its proportional throughput"
REL_TOL = 1e-9
TASK_MIXES = ((0.2, 0.7, 0.1), (0.6, 0.2, 0.2), (1 / 3, 1 / 3, 1 / 3))
DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {"servers": [1, 2, 3], "per_servers": 8, "time_limit": 20.0, "cpsat_every": 4},
    "full": {"servers": [1, 2, 4, 8], "per_servers": 100, "time_limit": 60.0, "cpsat_every": 10},
}
AllocateFn = Callable[[Snapshot], Allocation]


def tune_allocation(snap: Snapshot) -> Allocation:
    """Synergy-TUNE's allocation of the round (the method under test)."""
    res = solve(snap, "tune")
    assert isinstance(res.solution, Allocation), "tune returns an allocation"
    return res.solution


def draw_snapshot(servers: int, seed: int) -> Snapshot:
    """A random round: between half and twice as many GPUs demanded as the cluster has."""
    rng = np.random.default_rng(seed)
    gpus = 8 * servers
    jobs = int(rng.integers(max(2, gpus // 2), 2 * gpus + 1))
    mix = TASK_MIXES[int(rng.integers(len(TASK_MIXES)))]
    gpu_mix = "multi" if rng.random() < 0.5 else "single"
    return generate_snapshot(servers, jobs, seed, gpu_mix=gpu_mix, task_mix=mix)


def proportional_floor(snap: Snapshot) -> dict[str, float]:
    """Job id -> its throughput under GPU-proportional allocation, for the jobs it runs."""
    cl, prof = snap.cluster, snap.profiles
    free, out = cl.total_gpus, {}
    for job in snap.jobs:
        if job.gpus <= free:
            free -= job.gpus
            k = prof.index(job.model)
            out[job.id] = job.gpus * prof.tput(k, cl.prop_cpus_per_gpu, cl.prop_mem_gb_per_gpu)
    return out


def shortfalls(snap: Snapshot, alloc: Allocation) -> dict[str, float]:
    """Job id -> relative shortfall below its proportional throughput (1: it does not run)."""
    prof, got = snap.profiles, alloc.by_id()
    models = {j.id: prof.index(j.model) for j in snap.jobs}
    out = {}
    for jid, floor in proportional_floor(snap).items():
        a = got.get(jid)
        tput = 0.0 if a is None or not a.parts else a.gpus * prof.tput(
            models[jid], a.cpus_per_gpu, a.mem_gb_per_gpu
        )  # fmt: skip
        short = (floor - tput) / floor
        if short > REL_TOL:
            out[jid] = short
    return out


def tune_row(
    snap: Snapshot, allocate_fn: AllocateFn, time_limit: float, cpsat: bool
) -> dict[str, Any]:
    """One snapshot: the guarantee's violations, validity, and TUNE against the exact optimum."""
    alloc = allocate_fn(snap)
    short = shortfalls(snap, alloc)
    invalid = check_allocation(snap, alloc)
    value = total_tput(snap, alloc)
    res = solve(snap, "milp", time_limit=time_limit, options={"run_set": "proportional"})
    opt = res.value if res.status == Status.OPTIMAL else None
    row: dict[str, Any] = {
        "jobs": snap.n,
        "gpu_mix": snap.meta.get("gpu_mix"),
        "proportional_set": len(proportional_floor(snap)),
        "violations": len(short),
        "worst_shortfall": max(short.values(), default=0.0),
        "worst_jobs": sorted(short, key=lambda j: -short[j])[:5],
        "invalid": invalid[:5],
        "value": value,
        "opt_status": res.status.value,
        "opt": opt,
        "gap": (opt - value) / opt if opt else None,
        # an allocation inside the exact problem's feasible set cannot beat its proven optimum
        "above_opt": bool(
            opt is not None and not short and not invalid and value > opt * (1 + PROOF_TOL)
        ),
        "oracle_diff": None,
    }
    if cpsat and opt is not None:
        cp = solve(snap, "cpsat", time_limit=time_limit, options={"run_set": "proportional"})
        if cp.status == Status.OPTIMAL and cp.value is not None:
            row["oracle_diff"] = abs(cp.value - opt) / max(1.0, abs(opt))
    return row


def _tune_cell(
    key: dict[str, Any], *, seed: int, allocate_fn: AllocateFn, time_limit: float, every: int
) -> dict[str, Any]:
    """The row of cell (servers, i) (module-level, so a sweep can send it to workers)."""
    s = instance_seed(seed, key["servers"], key["i"])
    snap = draw_snapshot(key["servers"], s)
    return {"instance_seed": s, **tune_row(snap, allocate_fn, time_limit, key["i"] % every == 0)}


@register_claim(CLAIM_ID, "synergy-tune-no-worse-than-proportional", TITLE)
def claim_tune_guarantee(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    allocate_fn: AllocateFn = tune_allocation,
    **overrides: Any,
) -> Verdict:
    """Claim 13. `allocate_fn` is the allocator under test (inject another to see it fail)."""
    cfg = settings(DEFAULTS, size, overrides)
    name = getattr(allocate_fn, "__name__", "custom")
    config = {"check": "synergy-tune", "seed": seed, **cfg, "allocator": name}
    compute = partial(_tune_cell, seed=seed, allocate_fn=allocate_fn,
                      time_limit=cfg["time_limit"], every=cfg["cpsat_every"])  # fmt: skip
    keys = [{"servers": s, "i": i} for s in cfg["servers"] for i in range(cfg["per_servers"])]
    rows = rows_for(runner, "synergy-tune", ["servers", "i"], config, keys, compute)
    failing = [r for r in rows if r["violations"] or r["invalid"]]
    above = [r for r in rows if r["above_opt"]]
    disagree = [r for r in rows if r["oracle_diff"] is not None and r["oracle_diff"] > 1e-6]
    gaps = [r["gap"] for r in rows if r["gap"] is not None]
    w = max(rows, key=lambda r: (r["worst_shortfall"], len(r["invalid"]), r["gap"] or 0.0))
    worst: dict[str, Any] = {
        "value": w["worst_shortfall"],
        "measure": "largest relative shortfall of a job below its proportional throughput "
        "(1 = a job proportional runs does not run)",
        "servers": w["servers"],
        "instance_seed": w["instance_seed"],
        "jobs": w["worst_jobs"],
        "invalid": w["invalid"],
        "instance": None,
    }
    files = []
    if failing:
        path = theory_dir(outdir) / f"claim{CLAIM_ID}-worst.json"
        draw_snapshot(w["servers"], w["instance_seed"]).save(path)
        worst["instance"] = str(path)
        files.append(str(path))
    evidence = {
        "snapshots": len(rows),
        "jobs_in_proportional_sets": sum(r["proportional_set"] for r in rows),
        "snapshots_with_violations": len(failing),
        "exact_proven": len(gaps),
        "exact_unproven": len(rows) - len(gaps),
        "gap_to_exact_optimum": {
            "mean": float(np.mean(gaps)) if gaps else None,
            "max": max(gaps, default=None),
        },
        "above_exact_optimum": len(above),
        "cpsat_checked": sum(r["oracle_diff"] is not None for r in rows),
        "milp_cpsat_disagreements": len(disagree),
        "allocator": name,
        "settings": cfg,
    }
    gap_txt = f"{100 * max(gaps):.3g}%" if gaps else "n/a"
    summary = (
        f"{len(rows) - len(failing)}/{len(rows)} snapshots where every job of the proportional "
        f"set runs at >= its proportional throughput ({evidence['jobs_in_proportional_sets']} "
        f"jobs); worst shortfall {worst['value']:.3g}; gap to the exact optimum (MILP, "
        f"{len(gaps)} proven) mean {100 * (evidence['gap_to_exact_optimum']['mean'] or 0):.3g}%"
        f", max {gap_txt}"
    )
    return Verdict(
        CLAIM_ID,
        TITLE,
        verdict_from(not failing, bool(above or disagree), enough=bool(rows)),
        len(rows),
        worst,
        {"rel_tol": REL_TOL, "proof_tol": PROOF_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )
