"""`schedlab synergy simulate`: one round-based cluster simulation, summary or JSON.

Light at import (click and registries only): `--workload`, `--policy` and `--alloc` choices
come from the registries when click first needs them; the simulator loads in the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from schedlab.experiments.cli_registry import LazyChoice, RegistryChoice
from schedlab.experiments.cli_simulate import (
    Outcome,
    SimulateVerb,
    load_flag,
    policy_flag,
    seed_flag,
    simulate_command,
    trace_flag,
    workload_flag,
)
from schedlab.experiments.cliflags import (
    TIME_LIMIT,
    WORK_CAP,
    FiniteFloat,
    bounded_int,
    positive_float,
)
from schedlab.experiments.registry import WORKLOADS
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.solve import METHODS

if TYPE_CHECKING:
    from schedlab.experiments.synergy.simulator import SimResult
    from schedlab.experiments.synergy.workloads import Workload

SUBJECT = "synergy"
DEFAULT_WORKLOAD = "philly-derived"


def _rule(name: str) -> LazyChoice:
    """The choices of one rule switch, from `fidelity.CHOICES` (read on first use)."""

    def source() -> tuple[str, ...]:
        from schedlab.experiments.synergy.fidelity import CHOICES

        return CHOICES[name]

    return LazyChoice(source)


def _streams() -> tuple[str, ...]:
    from schedlab.experiments.synergy.workloads import STREAMS

    return STREAMS


def _ratios() -> list[str]:
    from schedlab.solvers.synergy.profiles import CPU_RATIOS

    return list(CPU_RATIOS)


TRACE_WORKLOAD = "trace"  # what --trace alone means: a Synergy-format trace file


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


def workload_entry(workload: str | None, trace: Path | None, static: bool) -> Any:
    """The registered workload the options name (`--trace` alone: a trace file), checked
    against what it takes (a trace file, --static)."""
    name = workload or (TRACE_WORKLOAD if trace is not None else DEFAULT_WORKLOAD)
    entry = WORKLOADS.get(name, scope=SUBJECT)
    takes_trace = entry.meta.get("trace", "none")
    if trace is not None and takes_trace == "none":
        readers = WORKLOADS.names(scope=SUBJECT, trace="optional")
        raise InvalidInput(
            f"--trace: give either a trace file or --workload {name}, not both "
            f"(with --workload {' or '.join(readers)}, --trace names that job file)"
        )
    if trace is None and takes_trace == "required":
        raise InvalidInput(f"--trace: workload {name} needs a trace file")
    if static and not entry.meta.get("static_ok"):
        raise InvalidInput("--static: applies to --trace files and the 100-job traces only")
    return entry


def build_workload(
    workload: str | None,
    trace: Path | None,
    static: bool,
    load: float,
    seed: int,
    jobs: int | None,
    total_gpus: int,
    stream: str = "numpy",
    split: tuple[float, float, float] | None = None,
) -> Workload:
    """The workload the options describe, built by its registered builder."""
    from schedlab.experiments.synergy.workloads import DEFAULT_CLASS_SPLIT, WorkloadRequest

    if jobs is not None and jobs < 1:
        raise InvalidInput(f"--jobs: must be a positive number of jobs (got {jobs})")
    entry = workload_entry(workload, trace, static)
    if "synthetic" not in entry.tags and (stream != "numpy" or split is not None):
        raise InvalidInput(
            "--stream/--class-split: apply to the synthetic workloads (philly-derived, "
            f"multi-gpu), not to {entry.name}"
        )
    req = WorkloadRequest(
        load, seed, jobs, total_gpus, trace, static, stream, split or DEFAULT_CLASS_SPLIT
    )
    built: Workload = entry.obj(req)
    return built


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


def _write_jobs_csv(path: Path, res: SimResult) -> None:
    from schedlab.experiments.store import write_csv
    from schedlab.solvers.synergy.profiles import default_profiles

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
    write_csv(path, rows)


def _write_util_csv(path: Path, res: SimResult) -> None:
    from schedlab.experiments.store import write_csv

    u = res.utilization
    rows = [
        {
            "round_start_s": float(u.round_start_s[i]),
            "gpu_util": float(u.gpu[i]),
            "cpu_util": float(u.cpu[i]),
            "mem_util": float(u.mem[i]),
            "running_jobs": int(u.running_jobs[i]),
            "queued_jobs": int(u.queued_jobs[i]),
        }
        for i in range(u.round_start_s.size)
    ]
    write_csv(path, rows)


def _report(res: SimResult, policy: str, alloc: str) -> None:
    from schedlab.experiments.output import format_table

    click.echo(f"{res.description}; {policy} + {alloc}; {res.cluster.servers} servers")
    click.echo(f"measured: {res.window_note}")
    for note in res.notes:
        click.echo(f"note: {note}")
    click.echo(format_table(["metric", "value"], _summary_rows(res)))


def _split(text: str | None) -> tuple[float, float, float] | None:
    if text is None:
        return None
    try:
        a, b, c = (float(x) for x in text.split(","))
    except ValueError:
        raise InvalidInput(
            f"--class-split: expected three shares image,language,speech, e.g. 20,70,10 "
            f"(got {text!r})"
        ) from None
    if min(a, b, c) < 0 or a + b + c <= 0 or not all(x < 1e9 for x in (a, b, c)):
        raise InvalidInput(f"--class-split: shares must be >= 0 with a positive sum ({text!r})")
    return a, b, c


def fidelity_of(
    as_authors: bool,
    completion: str | None,
    speed: str | None,
    iterations: str | None,
    policy_rules: str | None,
    opt_mode: str | None,
) -> Any:
    """The simulator rules the flags ask for: schedlab's, or the authors' (`--as-authors`),
    each switch overridable."""
    from schedlab.experiments.synergy.fidelity import Fidelity

    base = Fidelity.as_authors() if as_authors else Fidelity()
    given = {
        "completion": completion,
        "speed": speed,
        "iterations": iterations,
        "policy": policy_rules,
        "opt": opt_mode,
    }
    return Fidelity(**{**base.to_dict(), **{k: v for k, v in given.items() if v is not None}})


#: The rule switches of the simulator (flag, its `fidelity.CHOICES` key, help), each overriding
#: what `--as-authors` sets.
RULES = (
    ("--completion", "completion",
     "When a job completes: the moment its work ends, or at the round's end (authors)."),
    ("--speed", "speed",
     "Speed: profiled throughput of the configuration, or the ideal speedup / 1 (authors)."),
    ("--iterations", "iterations",
     "Work as continuous seconds, or whole iterations floored per round (authors)."),
    ("--policy-rules", "policy",
     "Policy details: ours, or the authors' (SRTF speedup after TUNE, LAS/DRF/TETRIS "
     "admission, FTF order, bump timing)."),
    ("--opt-mode", "opt",
     "OPT: phase 1 + server packing (ours), or phase 1 only with the unweighted objective "
     "(authors)."),
)  # fmt: skip


def _check_numbers(servers: int | None, time_limit: float | None) -> None:
    if servers is not None and servers < 1:
        raise InvalidInput(f"--servers: must be a positive integer (got {servers})")
    if time_limit is not None and not time_limit > 0:
        raise InvalidInput(f"--time-limit: must be positive seconds (got {time_limit})")


HELP = """Simulate a GPU cluster round by round: a policy orders jobs, an allocator places them.

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
      schedlab synergy simulate --as-authors --seed 42 --policy fifo --alloc tune  # 21.88 h
    """


FLAGS = (
    workload_flag(
        SUBJECT,
        help="Synthetic stream, the Philly job file, or a shipped 100-job trace "
        f"[default: {DEFAULT_WORKLOAD}; with --trace alone: {TRACE_WORKLOAD}].",
    ),
    trace_flag(
        "Trace file job_id,model_name,arrival_s,num_iterations,gpu_demand "
        "(with --workload philly: a Philly CSV timestamp,duration,num_gpus,...; "
        "default there: the shipped 2,000-job sample).",
    ),
    click.option("--static", is_flag=True, help="All trace jobs arrive at time 0 (makespan)."),
    policy_flag(SUBJECT),
    click.option(
        "--alloc",
        type=RegistryChoice(METHODS, scope=SUBJECT),
        required=True,
        help="Allocation algorithm of solvers.synergy, called every round.",
    ),
    load_flag(FiniteFloat(1e-6, 1e6), 9.0, "Arrival rate of the synthetic workloads (jobs/hour)."),
    click.option(
        "--servers",
        type=bounded_int(1, 100_000),
        default=None,
        help="Servers of 8 GPUs, 24 CPUs, 500 GB [default: 16; 4 for the 100-job traces].",
    ),
    click.option(
        "--jobs",
        type=bounded_int(1, 10**7),
        default=None,
        help="At most N jobs (synthetic: window [0.4N, 0.8N) when N < 5000; traces: first N).",
    ),
    click.option(
        "--window",
        default=None,
        help="Measured job ids START:END (end exclusive) [default: 4000:5000; traces: all].",
    ),
    seed_flag("Workload seed, "),
    click.option(
        "--round-s",
        type=positive_float(604_800.0),
        default=300.0,
        show_default=True,
        help="Round length (s).",
    ),
    click.option(
        "--time-limit", type=TIME_LIMIT, default=None, help="Per-round limit (s) for opt."
    ),
    click.option(
        "--max-rounds",
        type=WORK_CAP,
        default=1_000_000,
        show_default=True,
        help="Work cap: simulated rounds (a run also stops past 10^6 simulated hours); exit 2.",
    ),
    click.option(
        "--jobs-csv",
        type=click.Path(path_type=Path),
        default=None,
        help="Also write per-job results (arrival, completion, JCT) to this CSV.",
    ),
    click.option(
        "--util-csv",
        type=click.Path(path_type=Path),
        default=None,
        help="Also write the GPU/CPU/memory utilization per round to this CSV.",
    ),
    click.option(
        "--stream",
        type=LazyChoice(_streams),
        default=None,
        help="Random stream of the synthetic workloads: ours (numpy PCG64) or the Synergy authors' "
        "draws (Python random; single-GPU philly-derived) [default: numpy; authors with "
        "--as-authors].",
    ),
    click.option(
        "--class-split",
        default=None,
        help="Task-class shares image,language,speech of the synthetic workloads "
        "[default: 20,70,10].",
    ),
    click.option(
        "--cpu-ratio",
        type=LazyChoice(_ratios),
        default="3",
        show_default=True,
        help="CPUs per GPU: servers of 8 GPUs and 8x this many CPUs, with the authors' profiles "
        "for that ratio.",
    ),
    click.option(
        "--as-authors",
        is_flag=True,
        help="Every rule of the authors' simulator (each overridable by its own flag below) and "
        "their job stream.",
    ),
    *(click.option(flag, type=_rule(key), default=None, help=text) for flag, key, text in RULES),
)


def _check_outputs(f: dict[str, Any]) -> None:
    """Before the run (a bad target must not cost a simulation): numbers and output paths."""
    from schedlab.solvers.util import check_output_path

    _check_numbers(f["servers"], f["time_limit"])
    for out_path, flag in ((f["jobs_csv"], "--jobs-csv"), (f["util_csv"], "--util-csv")):
        if out_path is not None:
            check_output_path(out_path, flag)


def sim_config(f: dict[str, Any], n_servers: int, fid: Any) -> Any:
    """The simulator's configuration the flags describe."""
    from schedlab.experiments.synergy.simulator import SimConfig
    from schedlab.solvers.synergy.profiles import CPU_RATIOS

    return SimConfig(
        policy=f["policy"],
        alloc=f["alloc"],
        servers=n_servers,
        cpus_per_server=8.0 * int(f["cpu_ratio"]),
        round_s=f["round_s"],
        window=_window(f["window"]),
        alloc_time_limit_s=f["time_limit"],
        max_rounds=f["max_rounds"],
        fidelity=fid,
        profile_set=CPU_RATIOS[f["cpu_ratio"]],
    )


def simulate_synergy(ctx: click.Context, f: dict[str, Any]) -> Outcome:
    """Build the workload, run the simulator (a progress bar on stderr), write the CSVs."""
    from schedlab.experiments.synergy.simulator import SimConfig
    from schedlab.experiments.synergy.simulator import simulate as run_simulation
    from schedlab.experiments.synergy.workloads import DEFAULT_SERVERS

    _check_outputs(f)
    trace, as_authors = f["trace"], f["as_authors"]
    entry = workload_entry(f["workload"], trace, f["static"])
    n_servers = f["servers"] or entry.meta.get("default_servers", DEFAULT_SERVERS)
    total_gpus = n_servers * SimConfig().gpus_per_server
    fid = fidelity_of(as_authors, *(f[flag[2:].replace("-", "_")] for flag, _, _ in RULES))
    synthetic = "synthetic" in entry.tags
    default_stream = "authors" if as_authors and entry.name == DEFAULT_WORKLOAD else "numpy"
    the_stream = f["stream"] or default_stream
    wl = build_workload(entry.name, trace, f["static"], f["load"], f["seed"], f["jobs"],
                        total_gpus, the_stream, _split(f["class_split"]))  # fmt: skip
    try:
        res = run_simulation(wl, sim_config(f, n_servers, fid), progress=True)
    except InvalidInput as exc:  # name the trace file the problem comes from
        raise (
            exc.with_source(str(trace)) if trace is not None and not exc.source else exc
        ) from None
    if f["jobs_csv"] is not None:
        _write_jobs_csv(f["jobs_csv"], res)
    if f["util_csv"] is not None:
        _write_util_csv(f["util_csv"], res)
    out = res.to_dict()
    out["seed"] = f["seed"]
    out["load_jobs_per_h"] = f["load"] if synthetic else None
    out["stream"] = the_stream if synthetic else None
    out["fidelity"] = fid.to_dict()
    return Outcome(out, lambda: _report(res, f["policy"], f["alloc"]))


VERB = SimulateVerb(HELP, FLAGS, simulate_synergy)
simulate = simulate_command(VERB)
