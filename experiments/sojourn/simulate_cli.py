"""`schedlab sojourn simulate`: online multi-server simulation of successful-job sojourn."""

from __future__ import annotations

from pathlib import Path

import click

from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.sojourn.online.philly import OUTCOME_MODEL
from schedlab.experiments.sojourn.online.policies import POLICY_NAMES, get_policy
from schedlab.experiments.sojourn.online.runner import evaluate_policy
from schedlab.experiments.sojourn.online.sources import (
    DEFAULT_SYNTHETIC_JOBS,
    DEFAULT_SYNTHETIC_LOAD,
    WORKLOADS,
    philly_source,
    synthetic_source,
)
from schedlab.experiments.sojourn.online.synthetic import GPU_MIXES
from schedlab.solvers.errors import InvalidInput, Problems


@click.command("simulate")
@click.option("--workload", type=click.Choice(WORKLOADS), required=True)
@click.option(
    "--trace",
    type=click.Path(path_type=Path),
    default=None,
    help="Philly-format CSV (default: the shipped 2,000-job subsample).",
)
@click.option("--servers", type=int, required=True, help="Identical servers (GPUs), M.")
@click.option("--policy", type=click.Choice(POLICY_NAMES), required=True)
@click.option(
    "--load",
    type=float,
    default=None,
    help=f"Target load sum(g E[X]) / (M span); synthetic default {DEFAULT_SYNTHETIC_LOAD}, "
    "trace default: its own arrival times.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--replications", type=int, default=5, show_default=True)
@click.option(
    "--jobs",
    type=int,
    default=None,
    help=f"Jobs per replication (synthetic default {DEFAULT_SYNTHETIC_JOBS}); for a trace "
    "its first N jobs (default all).",
)
@click.option("--max-checkpoints", type=int, default=3, show_default=True, help="Synthetic: C.")
@click.option(
    "--gpu-mix",
    type=click.Choice(GPU_MIXES),
    default="one",
    show_default=True,
    help="Synthetic GPU counts: all 1, or the Philly mix (counts <= M).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def simulate(
    workload: str,
    trace: Path | None,
    servers: int,
    policy: str,
    load: float | None,
    seed: int,
    replications: int,
    jobs: int | None,
    max_checkpoints: int,
    gpu_mix: str,
    as_json: bool,
) -> None:
    """Simulate an online policy on M servers; report sojourn of successful jobs.

    Jobs arrive (Poisson or trace), need g servers at once (greedy backfilling in priority
    order), and leave at their realized size: success at the largest size, cancellation at a
    checkpoint. Preemptive policies (gamma, gittins, serpt, oracle) switch only at
    checkpoints. Replications use seeds spawned from --seed; intervals are Student-t 95%.

    \b
    Examples:
      schedlab sojourn simulate --workload synthetic --servers 4 --policy gamma --load 0.9
      schedlab sojourn simulate --workload philly --trace philly_jobs.csv --servers 256 \\
          --policy gittins --load 0.8 --replications 3 --json
    """
    p = Problems()
    if servers < 1:
        p.add(f"--servers: must be at least 1 (got {servers})")
    if replications < 1:
        p.add(f"--replications: must be at least 1 (got {replications})")
    if jobs is not None and jobs < 1:
        p.add(f"--jobs: must be at least 1 (got {jobs})")
    if load is not None and not load > 0:
        p.add(f"--load: must be positive (got {load})")
    if trace is not None and workload != "philly":
        p.add("--trace: only with --workload philly")
    p.raise_if_any()
    warnings = []
    if load is not None and load >= 1:
        warnings.append(f"load {load} >= 1: the system is overloaded; queues grow with --jobs")
    if workload == "synthetic":
        n = jobs or DEFAULT_SYNTHETIC_JOBS
        rho = DEFAULT_SYNTHETIC_LOAD if load is None else load
        source = synthetic_source(n, rho, servers, max_checkpoints=max_checkpoints, gpu_mix=gpu_mix)
        info = {
            "workload": "synthetic",
            "load": rho,
            "max_checkpoints": max_checkpoints,
            "gpu_mix": gpu_mix,
        }
    else:
        w = philly_source(trace, servers, jobs=jobs, load=load)
        source = w
        info = {
            "workload": "philly",
            "trace": w.meta["trace"],
            "load": load,
            "outcome_model": OUTCOME_MODEL,
        }
        if w.excluded_jobs:
            warnings.append(
                f"{w.excluded_jobs} job(s) need more than {servers} GPUs and were excluded"
            )
    try:
        res = evaluate_policy(
            source,
            get_policy(policy),
            servers,
            seed=seed,
            replications=replications,
            progress=True,
        )
    except InvalidInput as exc:
        raise exc.with_source(str(trace)) if trace else exc from None
    out = {**{"policy": res.pop("policy")}, **info, **res, "warnings": warnings}
    if as_json:
        emit_json(out)
        return
    for wmsg in warnings:
        click.echo(f"warning: {wmsg}", err=True)
    ci = out["ci95_successful"]
    ci_txt = f"[{ci[0]:.6g}, {ci[1]:.6g}]" if ci else "n/a (1 replication)"
    click.echo(
        format_table(
            [
                "policy",
                "servers",
                "jobs",
                "excluded",
                "load",
                "mean_succ",
                "ci95_succ",
                "mean_all",
                "util",
                "preempt",
                "runtime_s",
            ],
            [
                [
                    out["policy"],
                    servers,
                    out["jobs"],
                    out["excluded_jobs"],
                    out["offered_load"],
                    out["mean_sojourn_successful"],
                    ci_txt,
                    out["mean_sojourn_all"],
                    out["utilization"],
                    out["preemptions"],
                    out["runtime_s"],
                ]
            ],
        )
    )
