"""`schedlab slaq ...`: loss prediction, quality-driven allocation and cluster simulation.

Only click and the registries are imported here (the commands import the rest when run), so
`schedlab --help` stays light.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cli_registry import LazyChoice, constant
from schedlab.experiments.cli_simulate import (
    Outcome,
    SimulateVerb,
    add_simulate,
    policy_flag,
    seed_flag,
    workload_flag,
)
from schedlab.experiments.cli_solve import SolveVerb, add_solve
from schedlab.experiments.cliflags import (
    WORK_CAP,
    FiniteFloat,
    bounded_int,
    positive_float,
    seed_option,
)
from schedlab.experiments.registry import register_command
from schedlab.solvers.slaq.limits import (
    MAX_ARRIVAL_MEAN_S,
    MAX_CORE_S_PER_ITER,
    MAX_CORES,
    MAX_EPOCH_S,
    MAX_EPOCHS,
    MAX_JOBS,
    MAX_LOSSES,
    MIN_CORE_S_PER_ITER,
    SIM_MAX_JOBS,
)

_objectives = constant("schedlab.solvers.slaq.problem", "OBJECTIVES")
_models = constant("schedlab.solvers.slaq.predict", "MODELS")
_scalings = constant("schedlab.experiments.slaq.simulator", "SCALINGS")
_predictors = constant("schedlab.experiments.slaq.workload_authors", "PREDICTOR_WORKLOADS")
_token_models = constant("schedlab.experiments.slaq.simulator", "TOKEN_MODELS")
_iterations = constant("schedlab.experiments.slaq.simulator", "ITERATIONS")


OBJECTIVE_CHOICE = LazyChoice(_objectives)
#: W_j, core-seconds per iteration, of the simulator's workloads.
W_RANGE = FiniteFloat(MIN_CORE_S_PER_ITER, MAX_CORE_S_PER_ITER)


@register_command("slaq")
@click.group()
def slaq() -> None:
    """SLAQ (SoCC 2017): quality-driven allocation of cores to training jobs.

    \b
    Examples:
      schedlab slaq predict logreg --ahead 10 --model auto --json
      schedlab slaq solve snapshot.json --method greedy --json
      schedlab slaq simulate --policy slaq --jobs 30 --cores 64 --seed 1 --json
    """


@slaq.command("snapshot")
@click.option("--jobs", type=bounded_int(1, MAX_JOBS), required=True, help="Number of jobs.")
@click.option("--cores", type=bounded_int(1, MAX_CORES), required=True, help="Total cores C.")
@seed_option(required=True)
@click.option("--objective", type=OBJECTIVE_CHOICE, default="sum", show_default=True)
def snapshot_cmd(jobs: int, cores: int, seed: int, objective: str) -> None:
    """Print a seeded snapshot (JSON) drawn from the shipped loss curves.

    Job i follows curve i mod 9 (scaled by a log-uniform factor in [1/2, 2]) observed for 1..60
    iterations; W_j log-uniform in [1, 20] core-seconds per iteration.

    \b
    Example:
      schedlab slaq snapshot --jobs 8 --cores 64 --seed 1 > snap.json
    """
    import json

    from schedlab.solvers.slaq.generate import generate_snapshot

    snap = generate_snapshot(jobs, cores, seed, objective=objective)
    click.echo(json.dumps(snap.to_dict(), indent=1))


def _snapshot_type() -> Any:
    from schedlab.solvers.slaq.problem import Snapshot

    return Snapshot


def _problem(snap: Any, flags: dict[str, Any]) -> Any:
    objective = flags.get("objective")
    if objective is not None and objective != snap.objective:
        return snap.with_objective(objective)
    return snap


def _render(snap: Any, r: Any) -> None:
    from schedlab.experiments.output import format_table, labelled, shown

    q = f"{snap.objective} of Q = {shown(r.value)} ({labelled('bound', r.bound)})"
    click.echo(f"{r.method}: {r.status.value}, {q}")
    sol = r.to_dict()["solution"]
    if sol and sol["cores"]:
        rows = [(j, c, sol["quality"][j]) for j, c in sol["cores"].items()]
        click.echo(format_table(["job", "cores", "quality"], rows))


SOLVE = SolveVerb(
    subject="slaq",
    file_type=_snapshot_type,
    kinds=_objectives,
    build=_problem,
    describe=lambda snap: {
        "objective": snap.objective,
        "total_cores": snap.total_cores,
        "jobs": len(snap.jobs),
    },  # fmt: skip
    render=_render,
    default_method="greedy",
    params=[
        click.Option(
            ["--objective"],
            type=OBJECTIVE_CHOICE,
            default=None,
            help="Objective (default: the snapshot's own, 'sum' if absent).",
        )
    ],
    help="""Allocate the cores of one SNAPSHOT ('-': standard input) with a method.

    `allocate` is the same. The solution holds the cores and the predicted quality per job.

    \b
    Example:
      schedlab slaq solve snapshot.json --method milp --objective maxmin --json
    """,
)
add_solve(slaq, SOLVE, "allocate")


MAX_AUTHORS_FITS = 10_000  # default work cap of `slaq predict --scoring authors` (scipy fits)


_scorings = constant("schedlab.solvers.slaq.predict", "SCORINGS")


@slaq.command("predict")
@click.argument("lossfile")
@click.option(
    "--ahead",
    type=bounded_int(1, MAX_LOSSES),
    default=10,
    show_default=True,
    help="Iterations ahead to predict.",
)
@click.option(
    "--model",
    type=LazyChoice(_models),
    default="auto",
    show_default=True,
    help="Predictor; auto: strict picks the family with the smaller weighted residual, "
    "authors the family the SLAQ authors fitted to that curve (by its name).",
)
@click.option(
    "--scoring",
    type=LazyChoice(_scorings),
    default="strict",
    show_default=True,
    help="strict: ours (every prefix exactly K ahead, clipped at 0, floor(1%) top errors "
    "dropped); authors: the SLAQ authors' fits and scoring (docs/slaq.md).",
)
@click.option(
    "--decay",
    type=positive_float(1.0),
    default=0.8,
    show_default=True,
    help="Weight decay of the fits, in (0, 1] (authors: their sigma decay; 1 = unweighted).",
)
@click.option(
    "--max-fits",
    type=WORK_CAP,
    default=MAX_AUTHORS_FITS,
    show_default=True,
    help="Work cap of --scoring authors (one scipy fit per iteration): a longer curve is exit 2.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def predict(
    lossfile: str,
    ahead: int,
    model: str,
    scoring: str,
    decay: float,
    max_fits: int,
    as_json: bool,
) -> None:
    """The prediction study on one curve: predict K iterations ahead, in one of two conventions.

    LOSSFILE is a text file (one loss per line) or the name of a shipped curve (logreg, ...).

    \b
    Examples:
      schedlab slaq predict logreg --ahead 10 --model auto --json
      schedlab slaq predict svm-poly-mnist --ahead 10 --scoring authors --decay 1 --json
    Keys: mean_relative_error_pct (top 1% dropped), model, scoring, decay, families (fits per
    family), dropped, unscored, forecast (the next K losses from the whole curve, with the
    family used), predictions; with --scoring authors also authors_family and fit_steps.
    """
    import numpy as np

    from schedlab.experiments.output import emit_json
    from schedlab.solvers.errors import InvalidInput
    from schedlab.solvers.slaq.curves import load_curve, shipped_curve, shipped_names
    from schedlab.solvers.slaq.predict import PredictorConfig, fit, prediction_errors

    p = Path(lossfile)
    shipped = not p.exists() and lossfile in shipped_names()
    curve = shipped_curve(lossfile) if shipped else load_curve(p)
    fits = max(0, len(curve) - 4) if model in ("auto", "inverse-poly", "exponential") else 0
    if scoring == "authors" and fits > max_fits:
        raise InvalidInput(
            f"--max-fits: --scoring authors makes one scipy fit per iteration ({fits:,} for this "
            f"curve), more than the work cap {max_fits:,}; raise --max-fits or pass fewer losses"
        )
    cfg = PredictorConfig(decay=decay)
    name = lossfile if shipped else p.stem
    study = prediction_errors(curve, model, (ahead,), cfg, scoring=scoring, name=name)
    h = np.arange(1, ahead + 1, dtype=float)
    if scoring == "authors":
        last = study["last"]  # their loop's fit at N (None below 5 losses)
        family = None if last is None else last.family
        note = "the authors' loop predicts from 5 losses on" if last is None else last.step
        losses = [] if last is None else [float(x) for x in last.predict(h)]
    else:
        whole = fit(curve, model, cfg)
        family, note = whole.family, whole.note.strip()
        losses = [float(x) for x in whole.predict(h)]
    forecast = {"family": family, "note": note, "losses": losses}
    out = {
        "curve": lossfile,
        "points": len(curve),
        "model": model,
        "scoring": scoring,
        "decay": decay,
        "ahead": ahead,
        "mean_relative_error_pct": study["mean_relative_error_pct"][ahead],
        "families": study["families"],
        "dropped": study["dropped"][ahead],
        "unscored": study["unscored"][ahead],
        "forecast": forecast,
        "predictions": study["predictions"],
    }
    if scoring == "authors":
        out |= {"authors_family": study["family"], "fit_steps": study["fit_steps"]}
    if as_json:
        emit_json(out)
        return
    click.echo(
        f"{lossfile}: {model} predictor, {scoring} scoring, {ahead} ahead: mean relative error "
        f"{out['mean_relative_error_pct']:.4g}% ({out['dropped']} top error(s) dropped) over "
        f"{len(study['predictions'])} predictions; fits by family: {study['families']}"
    )
    click.echo(f"forecast ({family}): " + ", ".join(f"{x:.6g}" for x in losses))


SIMULATE_FLAGS = (
    policy_flag("slaq", default="slaq", show_default=True, help="Scheduling policy."),
    workload_flag(
        "slaq",
        default="shipped-curves",
        show_default=True,
        help="Registered workload (experiments/slaq/workloads.py).",
    ),
    click.option(
        "--predictor",
        type=LazyChoice(_predictors),
        default=None,
        help="Authors' workload only: their geometric rule (= authors) or our fit (= authors-fit).",
    ),
    click.option(
        "--token-model",
        type=LazyChoice(_token_models),
        default=None,
        help="Authors' workload only: their tokens as fluid shares (default) or replayed as task "
        "offers in token order, pools without pending tasks passing cores down (offers).",
    ),
    click.option(
        "--iterations",
        type=LazyChoice(_iterations),
        default=None,
        help="Authors' workload only: their driver's iteration counts (default: svm 100, mlpc 60, "
        "linreg 100, logreg its whole curve) or every point of the stand-in curves (curves).",
    ),
    click.option(
        "--jobs", type=bounded_int(1, SIM_MAX_JOBS), default=30, show_default=True, help="Jobs."
    ),
    click.option(
        "--cores", type=bounded_int(1, MAX_CORES), default=64, show_default=True, help="Cores."
    ),
    click.option(
        "--arrival-mean",
        type=positive_float(MAX_ARRIVAL_MEAN_S),
        default=15.0,
        show_default=True,
        help="Mean inter-arrival time (s), Poisson arrivals.",
    ),
    seed_flag("Random seed. "),
    click.option(
        "--scaling",
        type=LazyChoice(_scalings),
        default="perfect",
        show_default=True,
        help="Iteration time W/c, or alpha W/c + beta.",
    ),
    click.option(
        "--epoch-s", type=positive_float(MAX_EPOCH_S), default=3.0, show_default=True, help="Epoch."
    ),
    click.option(
        "--model",
        type=LazyChoice(_models),
        default="auto",
        show_default=True,
        help="The scheduler's loss predictor (the policies that use predictions).",
    ),
    click.option(
        "--min-cores",
        type=bounded_int(1, MAX_CORES),
        default=3,
        show_default=True,
        help="Minimum cores of a job with a loss history (capped at floor(C/J)).",
    ),
    click.option(
        "--w-min",
        type=W_RANGE,
        default=2.0,
        show_default=True,
        help="Smallest W_j, core-seconds per iteration (log-uniform in [w-min, w-max]).",
    ),
    click.option(
        "--w-max",
        type=W_RANGE,
        default=8.0,
        show_default=True,
        help="Largest W_j, core-seconds per iteration; at least --w-min.",
    ),
    click.option(
        "--max-epochs",
        type=WORK_CAP,
        default=MAX_EPOCHS,
        show_default=True,
        help="Work cap: input implying more epochs (arrivals span / epoch) is exit 2.",
    ),
)


def simulate_slaq(ctx: click.Context, f: dict[str, Any]) -> Outcome:
    """Run the epoch simulator on the workload under the policy; summarize the run."""
    from schedlab.experiments.slaq.simulator import SimConfig, summarize
    from schedlab.experiments.slaq.simulator import simulate as run
    from schedlab.experiments.slaq.workload_authors import check_authors_options, with_predictor

    workload = with_predictor(f["workload"], f["predictor"])
    token_model, iterations = f["token_model"], f["iterations"]
    check_authors_options(workload, token_model, iterations)
    names = ("jobs", "cores", "seed", "scaling", "epoch_s", "model", "min_cores", "w_min")
    cfg = SimConfig(
        **{k: f[k] for k in names},
        arrival_mean_s=f["arrival_mean"],
        w_max=f["w_max"],
        max_epochs=f["max_epochs"],
        token_model=token_model or "fluid",
        iterations=iterations or "driver",
    )
    out = summarize(run(cfg, f["policy"], workload))
    return Outcome(out, lambda: _show_summary(out))


def _show_summary(out: dict[str, Any]) -> None:
    for k, v in out.items():
        if k != "config":
            click.echo(f"{k}: {v}")


SIMULATE_HELP = """
    Simulate a registered workload (default: jobs on the shipped loss curves) under a policy.

    More jobs than cores: at most C jobs run at once, the others wait in arrival order (FIFO
    admission), so every running job holds a core and every job finishes.

    \b
    Example:
      schedlab slaq simulate --policy fair --jobs 30 --cores 64 --arrival-mean 15 --json
    Keys: mean_normalized_loss, mean_time_to_90_s, mean_time_to_95_s,
    scheduler_ms_per_epoch, epochs, makespan_s, mean_completion_s, max_queued_jobs,
    mean_queue_wait_s, idle_job_epochs, job_epochs, idle_share (admitted jobs that got no
    core), starved_jobs, starved_share (first core 30 s or more after arrival),
    mean_first_core_wait_s, fits, fallbacks_too_few_points, fallbacks_failed_fit,
    fallbacks_to, config (with token_model and iterations).
    """
simulate = add_simulate(slaq, SimulateVerb(SIMULATE_HELP, SIMULATE_FLAGS, simulate_slaq))
