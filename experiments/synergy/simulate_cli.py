"""`schedlab synergy simulate`: one round-based cluster simulation, summary or JSON."""

from __future__ import annotations

from pathlib import Path

import click

from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.store import write_csv
from schedlab.experiments.synergy.policies import POLICIES
from schedlab.experiments.synergy.simulator import SimConfig, SimResult
from schedlab.experiments.synergy.simulator import simulate as run_simulation
from schedlab.experiments.synergy.traces import (
    BUILTIN_TRACES,
    TRACE_SERVERS,
    builtin_trace,
    load_philly,
    load_synergy_trace,
)
from schedlab.experiments.synergy.workloads import Workload, multi_gpu, philly_derived
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.synergy.methods import load_methods
from schedlab.solvers.synergy.profiles import default_profiles

WORKLOADS = ("philly-derived", "multi-gpu", "philly", *BUILTIN_TRACES)


def _window(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        a, b = (int(x) for x in text.split(":"))
    except ValueError:
        raise InvalidInput(
            f"--window: expected START:END job ids, e.g. 4000:5000 (got {text!r})"
        ) from None
    if not 0 <= a < b:
        raise InvalidInput(f"--window: need 0 <= START < END (got {text!r})")
    return a, b


def build_workload(
    workload: str,
    trace: Path | None,
    static: bool,
    load: float,
    seed: int,
    jobs: int | None,
    total_gpus: int,
) -> Workload:
    """The workload the options describe (`trace` with workload 'philly' is the Philly file)."""
    if jobs is not None and jobs < 1:
        raise InvalidInput(f"--jobs: must be a positive number of jobs (got {jobs})")
    if static and not (trace is not None or workload in BUILTIN_TRACES):
        raise InvalidInput("--static: applies to --trace files and the 100-job traces only")
    if workload == "philly":
        return load_philly(trace, max_gpus=total_gpus, max_jobs=jobs)
    if trace is not None:
        if workload != "philly-derived":
            raise InvalidInput(
                f"--trace: give either a trace file or --workload {workload}, not both "
                "(with --workload philly, --trace names the Philly job file)"
            )
        wl = load_synergy_trace(trace, static=static, max_gpus=total_gpus)
    elif workload in BUILTIN_TRACES:
        wl = builtin_trace(workload, static=True if static else None, max_gpus=total_gpus)
    else:
        if not load > 0:
            raise InvalidInput(f"--load: must be a positive number of jobs per hour (got {load})")
        make = philly_derived if workload == "philly-derived" else multi_gpu
        return make(load, seed, max_jobs=jobs)
    if jobs is not None:
        wl.jobs = list(wl.jobs)[:jobs]  # type: ignore[arg-type]
    return wl


def _summary_rows(res: SimResult) -> list[list[object]]:
    d = res.to_dict()
    keys = [
        "mean_jct_h",
        "median_jct_h",
        "p99_jct_h",
        "p999_jct_h",
        "jobs_measured",
        "makespan_h",
        "sim_time_h",
        "gpu_util",
        "cpu_util",
        "mem_util",
        "rounds",
        "runtime_s",
    ]
    return [[k, d[k]] for k in keys]


@click.command("simulate")
@click.option(
    "--workload",
    type=click.Choice(WORKLOADS),
    default="philly-derived",
    show_default=True,
    help="Synthetic stream, the Philly job file, or a shipped 100-job trace.",
)
@click.option(
    "--trace",
    type=click.Path(path_type=Path),
    default=None,
    help="Trace file job_id,model_name,arrival_s,num_iterations,gpu_demand "
    "(with --workload philly: a Philly CSV timestamp,duration,num_gpus,...; "
    "default there: the shipped 2,000-job sample).",
)
@click.option("--static", is_flag=True, help="All trace jobs arrive at time 0 (makespan).")
@click.option("--policy", type=click.Choice(list(POLICIES)), required=True)
@click.option(
    "--alloc",
    type=click.Choice(load_methods().names()),
    required=True,
    help="Allocation algorithm of solvers.synergy, called every round.",
)
@click.option(
    "--load",
    type=float,
    default=9.0,
    show_default=True,
    help="Arrival rate of the synthetic workloads (jobs/hour).",
)
@click.option(
    "--servers",
    type=int,
    default=None,
    help="Servers of 8 GPUs, 24 CPUs, 500 GB [default: 16; 4 for the 100-job traces].",
)
@click.option(
    "--jobs",
    type=int,
    default=None,
    help="At most N jobs (synthetic: window [0.4N, 0.8N) when N < 5000; traces: first N).",
)
@click.option(
    "--window",
    default=None,
    help="Measured job ids START:END (end exclusive) [default: 4000:5000; traces: all].",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Workload seed.")
@click.option("--round-s", type=float, default=300.0, show_default=True, help="Round length.")
@click.option("--time-limit", type=float, default=None, help="Per-round limit (s) for opt.")
@click.option(
    "--jobs-csv",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write per-job results (arrival, completion, JCT) to this CSV.",
)
@click.option(
    "--util-csv",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write the GPU/CPU/memory utilization per round to this CSV.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def simulate(
    workload: str,
    trace: Path | None,
    static: bool,
    policy: str,
    alloc: str,
    load: float,
    servers: int | None,
    jobs: int | None,
    window: str | None,
    seed: int,
    round_s: float,
    time_limit: float | None,
    jobs_csv: Path | None,
    util_csv: Path | None,
    as_json: bool,
) -> None:
    """Simulate a GPU cluster round by round: a policy orders jobs, an allocator places them.

    Reports mean, median, p99 and p99.9 JCT over the measurement window, the makespan of
    trace replays, and the mean GPU/CPU/memory utilization. A progress bar goes to stderr.

    \b
    Examples:
      schedlab synergy simulate --policy fifo --alloc tune --load 9 --json
      schedlab synergy simulate --workload multi-gpu --policy srtf --alloc greedy --jobs 2000
      schedlab synergy simulate --workload static-100job --policy fifo --alloc tune
      schedlab synergy simulate --trace my_trace.csv --static --policy srtf --alloc opt
      schedlab synergy simulate --workload philly --trace philly_jobs.csv --jobs 3000 \\
          --policy las --alloc tune
    """
    if servers is not None and servers < 1:
        raise InvalidInput(f"--servers: must be a positive integer (got {servers})")
    if time_limit is not None and not time_limit > 0:
        raise InvalidInput(f"--time-limit: must be positive seconds (got {time_limit})")
    base = SimConfig()
    replay = workload in BUILTIN_TRACES or (trace is not None and workload != "philly")
    n_servers = servers if servers is not None else (TRACE_SERVERS if replay else 16)
    wl = build_workload(workload, trace, static, load, seed, jobs, n_servers * base.gpus_per_server)
    cfg = SimConfig(
        policy=policy,
        alloc=alloc,
        servers=n_servers,
        round_s=round_s,
        window=_window(window),
        alloc_time_limit_s=time_limit,
    )
    res = run_simulation(wl, cfg, progress=True)
    if jobs_csv is not None:
        jct = res.jct_s
        names = default_profiles().names
        rows = [
            {
                "job_id": int(res.job_id[i]),
                "model": names[int(res.model[i])],
                "gpus": int(res.gpus[i]),
                "arrival_s": float(res.arrival_s[i]),
                "work_s": float(res.work_s[i]),
                "completion_s": float(res.completion_s[i]),
                "jct_s": float(jct[i]),
            }
            for i in range(res.job_id.size)
        ]
        write_csv(jobs_csv, rows)
    if util_csv is not None:
        u = res.utilization
        write_csv(
            util_csv,
            [
                {
                    "round_start_s": float(u.round_start_s[i]),
                    "gpu_util": float(u.gpu[i]),
                    "cpu_util": float(u.cpu[i]),
                    "mem_util": float(u.mem[i]),
                    "running_jobs": int(u.running_jobs[i]),
                    "queued_jobs": int(u.queued_jobs[i]),
                }
                for i in range(u.round_start_s.size)
            ],
        )
    out = res.to_dict()
    out["seed"] = seed
    out["load_jobs_per_h"] = load if workload in ("philly-derived", "multi-gpu") else None
    if as_json:
        emit_json(out)
        return
    click.echo(f"{res.description}; {policy} + {alloc}; {res.cluster.servers} servers")
    click.echo(f"measured: {res.window_note}")
    for note in res.notes:
        click.echo(f"note: {note}")
    click.echo(format_table(["metric", "value"], _summary_rows(res)))
