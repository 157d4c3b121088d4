"""`schedlab synergy solve` (alias `allocate`: one round, any method; the shared solve verb of
`experiments.cli_solve`) and `schedlab synergy snapshot`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from schedlab.experiments.cli_registry import LazyChoice, constant
from schedlab.experiments.cli_solve import SolveVerb, read_problem
from schedlab.experiments.cliflags import SEED, bounded_int
from schedlab.solvers.errors import InvalidInput

if TYPE_CHECKING:
    from schedlab.solvers.result import SolveResult
    from schedlab.solvers.synergy.problem import Snapshot

SUBJECT = "synergy"

SNAPSHOT_FORMAT = """\b
Snapshot format (JSON; jobs in policy order; only "jobs" is required):
  {"name": "example",
   "cluster": {"servers": 16, "gpus_per_server": 8, "cpus_per_server": 24,
               "mem_gb_per_server": 500},
   "jobs": [{"id": "j0", "model": "res18", "gpus": 1, "remaining_s": 3600},
            {"id": "j1", "model": "gnmt", "gpus": 4}],
   "profiles": {... profiles.json layout, default: the 10 shipped models ...}}
Models: alexnet res18 res50 mobilenet shufflenet gnmt transformer lstm m5 deepspeech."""


def _snapshot_type() -> type[Snapshot]:
    from schedlab.solvers.synergy.problem import Snapshot

    return Snapshot


def load_snapshot(path: Path) -> Snapshot:
    """Load and validate a snapshot file ('-' reads standard input)."""
    return read_problem(_snapshot_type(), path)


def _table(snap: Snapshot, res: SolveResult[Any]) -> None:
    """Human output: the result line, then each running job's servers and configuration."""
    from schedlab.experiments.output import format_table

    d = res.to_dict()
    jobs_run = res.stats.get("jobs_run")
    click.echo(
        format_table(
            ["method", "status", "total_tput", "bound", "jobs_run", "jobs", "runtime_s"],
            [[res.method, d["status"], d["value"], d["bound"], jobs_run, snap.n, res.runtime_s]],
        )
    )
    sol = d["solution"]
    if sol is None:
        return
    rows = []
    for a in sol["jobs"]:
        servers = " ".join(f"s{p['server']}x{p['gpus']}" for p in a["parts"])
        rows.append([a["id"], servers, a["cpus_per_gpu"], a["mem_gb_per_gpu"], a["tput_per_gpu"]])
    click.echo("")
    click.echo(format_table(["job", "servers", "cpus/gpu", "gb/gpu", "tput/gpu"], rows))
    if sol["not_run"]:
        click.echo("not run: " + ",".join(sol["not_run"]))


def _describe(snap: Snapshot) -> dict[str, Any]:
    cl = snap.cluster
    return {"name": snap.name, "jobs": snap.n, "servers": cl.servers,
            "gpus_per_server": cl.gpus_per_server}  # fmt: skip


SOLVE = SolveVerb(
    subject=SUBJECT,
    file_type=_snapshot_type,
    kinds=lambda: ("throughput",),
    build=lambda snap, _flags: snap,
    describe=_describe,
    render=_table,
    epilog=SNAPSHOT_FORMAT,
    help="""Allocate one scheduling round of SNAPSHOT ('-': standard input): GPUs, CPUs and
    memory per job and server.

    Prints the status, the total throughput (sum of gpus x normalized per-GPU throughput),
    a proven upper bound when known, and each running job's servers and configuration.
    Method options (e.g. --solver, --run-set, --num-workers) are flags; each says which methods
    take it, and a flag the chosen method does not take is an error. `allocate` is the same.

    \b
    Example:
      schedlab synergy snapshot --servers 4 --jobs 40 --seed 1 > snap.json
      schedlab synergy solve snap.json --method tune
      schedlab synergy solve snap.json --method cpsat --time-limit 30 --json
      schedlab synergy allocate snap.json --method milp --solver cbc --run-set any
    """,
)


_gpu_mixes = constant("schedlab.solvers.synergy.generate", "GPU_MIXES")


@click.command("snapshot")
@click.option("--servers", type=bounded_int(1, 100_000), default=16, show_default=True)
@click.option(
    "--jobs", "jobs", type=bounded_int(0, 1_000_000), required=True, help="Runnable jobs."
)
@click.option("--seed", type=SEED, required=True, help="0..2^63-1.")
@click.option(
    "--gpu-mix",
    type=LazyChoice(_gpu_mixes),
    default="single",
    show_default=True,
    help="single: every job 1 GPU; multi: 1/2/4/8 GPUs w.p. 0.70/0.10/0.15/0.05.",
)
@click.option(
    "--task-mix",
    default="0.2,0.7,0.1",
    show_default=True,
    help="Weights of image,language,speech models.",
)
def snapshot_cmd(servers: int, jobs: int, seed: int, gpu_mix: str, task_mix: str) -> None:
    """Print a seeded random round snapshot (JSON) on default servers (8 GPUs, 24 CPUs, 500 GB).

    \b
    Example:
      schedlab synergy snapshot --servers 16 --jobs 128 --seed 3 --gpu-mix multi > snap.json
    """
    import math

    from schedlab.solvers.synergy.generate import generate_snapshot

    try:
        mix = tuple(float(x) for x in task_mix.split(","))
    except ValueError:
        raise InvalidInput(
            f"--task-mix: give three numbers like 0.2,0.7,0.1 (got {task_mix[:60]!r})"
        ) from None
    if len(mix) != 3 or not all(math.isfinite(x) and 0 <= x <= 1e6 for x in mix) or sum(mix) <= 0:
        raise InvalidInput(
            f"--task-mix: give three finite weights in [0, 1e6], not all 0 (got {task_mix[:60]!r})"
        )
    click.echo(generate_snapshot(servers, jobs, seed, gpu_mix=gpu_mix, task_mix=mix).to_json())
