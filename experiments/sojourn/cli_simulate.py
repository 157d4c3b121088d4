"""`schedlab sojourn simulate`: online multi-server simulation of successful-job sojourn.

Policies and workloads come from the registries (`POLICIES`, `WORKLOADS`, scope "sojourn");
a workload's options are flags of this command. Heavy modules load inside the command only.
"""

from __future__ import annotations

from typing import Any

import click

from schedlab.experiments.cli_registry import OptionsCommand, chosen_options
from schedlab.experiments.cli_simulate import (
    Outcome,
    SimulateVerb,
    load_flag,
    policy_flag,
    seed_flag,
    simulate_command,
    workload_flag,
)
from schedlab.experiments.cliflags import WORK_CAP, FiniteFloat, bounded_int
from schedlab.experiments.output import format_table
from schedlab.experiments.registry import WORKLOADS
from schedlab.solvers.errors import InvalidInput, Problems

SUBJECT = "sojourn"
DEFAULT_MAX_EVENTS = 10**9
TABLE_COLUMNS = {
    "policy": "policy",
    "servers": "servers",
    "jobs": "jobs",
    "excluded": "excluded_jobs",
    "load": "offered_load",
    "mean_succ": "mean_sojourn_successful",
    "ci95_succ": "ci95_successful",
    "mean_all": "mean_sojourn_all",
    "util": "utilization",
    "preempt": "preemptions",
    "runtime_s": "runtime_s",
}


def check_arguments(servers: int, replications: int, jobs: int | None, load: float | None) -> None:
    """Every bad number at once (InvalidInput naming each flag)."""
    p = Problems()
    if servers < 1:
        p.add(f"--servers: must be at least 1 (got {servers})")
    if replications < 1:
        p.add(f"--replications: must be at least 1 (got {replications})")
    if jobs is not None and jobs < 1:
        p.add(f"--jobs: must be at least 1 (got {jobs})")
    if load is not None and not load > 0:
        p.add(f"--load: must be positive (got {load})")
    p.raise_if_any()


def check_work(run: Any, jobs: int | None, replications: int, cap: int) -> None:
    """Work cap: events ~ replications x jobs x (checkpoints + 2) (arrival, checkpoints, end)."""
    from schedlab.solvers.validate import check_alloc
    from schedlab.solvers.validate import check_work as _check

    n = getattr(run.source, "n", None) or jobs or 10_000
    per_job = int(run.info.get("max_checkpoints", 3)) + 2
    try:
        _check(float(replications) * n * per_job, cap, "simulate", "--max-events")
        # one replication's jobs, their outcome tables and event records, about 64 B each
        check_alloc(64.0 * n * per_job, f"simulate: {n} jobs of up to {per_job - 1} outcomes")
    except InvalidInput as exc:
        raise exc.with_source(run.trace) if run.trace else exc from None


def load_warnings(load: float | None) -> list[str]:
    if load is not None and load >= 1:
        return [f"load {load} >= 1: the system is overloaded; queues grow with --jobs"]
    return []


def print_table(out: dict[str, Any]) -> None:
    """The human-readable one-row summary."""
    for wmsg in out["warnings"]:
        click.echo(f"warning: {wmsg}", err=True)
    ci = out["ci95_successful"]
    row = {**out, "ci95_successful": f"[{ci[0]:.6g}, {ci[1]:.6g}]" if ci else "n/a (1 replication)"}
    click.echo(format_table(list(TABLE_COLUMNS), [[row[k] for k in TABLE_COLUMNS.values()]]))


HELP = """Simulate an online policy on M servers; report sojourn of successful jobs.

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

FLAGS = (
    workload_flag(SUBJECT, required=True),
    click.option(
        "--servers",
        type=bounded_int(1, 1_000_000),
        required=True,
        help="Identical servers (GPUs), M.",
    ),
    policy_flag(SUBJECT),
    load_flag(
        FiniteFloat(1e-6, 100.0),
        None,
        "Target load sum(g E[X]) / (M span); synthetic default 0.8, "
        "trace default: its own arrival times.",
    ),
    seed_flag(),
    click.option("--replications", type=bounded_int(1, 10_000), default=5, show_default=True),
    click.option(
        "--jobs",
        type=bounded_int(1, 10**8),
        default=None,
        help="Jobs per replication (synthetic default 10000); for a trace its first N jobs "
        "(default all).",
    ),
    click.option(
        "--max-events",
        type=WORK_CAP,
        default=DEFAULT_MAX_EVENTS,
        show_default=True,
        help="Work cap: refuse a run whose replications x jobs x (checkpoints + 2) exceed it.",
    ),
)


def build_run(ctx: click.Context, flags: dict[str, Any]) -> Any:
    """The chosen workload's run (its source, info and warnings), its own flags parsed."""
    from schedlab.solvers.options import NoOptions, parse_options

    entry = WORKLOADS.get(flags.pop("workload"), scope=SUBJECT)
    cmd = ctx.command
    assert isinstance(cmd, OptionsCommand)
    own = {k: flags.pop(k) for k in list(flags) if k not in SHARED}
    given = chosen_options(entry, own, cmd.option_names())
    servers, jobs, load = flags["servers"], flags["jobs"], flags["load"]
    check_arguments(servers, flags["replications"], jobs, load)
    opts: Any = parse_options(entry.options or NoOptions, given, where=f"workload {entry.key}")
    try:
        run = entry.obj(servers, jobs=jobs, load=load, options=opts)
    except InvalidInput as exc:  # name the trace file the problem comes from
        trace = getattr(opts, "trace", None)
        raise (exc.with_source(str(trace)) if trace and not exc.source else exc) from None
    check_work(run, jobs, flags["replications"], flags["max_events"])
    return run


#: The flags of every workload (the rest are the chosen workload's own).
SHARED = {"servers", "policy", "load", "seed", "replications", "jobs", "max_events"}


def simulate_sojourn(ctx: click.Context, flags: dict[str, Any]) -> Outcome:
    """Evaluate the policy on the workload's replications (a progress bar on stderr)."""
    from schedlab.experiments.sojourn.policies import get_policy
    from schedlab.experiments.sojourn.runner import evaluate_policy

    run = build_run(ctx, flags)
    try:
        res = evaluate_policy(
            run.source,
            get_policy(flags["policy"]),
            flags["servers"],
            seed=flags["seed"],
            replications=flags["replications"],
            progress=True,
        )
    except InvalidInput as exc:
        raise exc.with_source(run.trace) if run.trace else exc from None
    warnings = load_warnings(flags["load"]) + run.warnings
    out = {**{"policy": res.pop("policy")}, **run.info, **res, "warnings": warnings}
    return Outcome(out, lambda: print_table(out))


VERB = SimulateVerb(
    HELP,
    FLAGS,
    simulate_sojourn,
    {"cls": OptionsCommand, "options_of": lambda: WORKLOADS.entries(scope=SUBJECT)},
)
simulate = simulate_command(VERB)
