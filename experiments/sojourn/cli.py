"""`schedlab sojourn ...`: generate, evaluate and solve single-server sojourn instances.

Light at import (click and the registries only): `schedlab --help` imports this module, so
the solvers (numpy, numba, OR-Tools, PuLP) load inside the commands. `solve` is the shared
solve verb (`experiments.cli_solve`): method choices and flags come from `METHODS` (scope
"sojourn").
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from schedlab.experiments.cli_registry import LazyChoice, constant
from schedlab.experiments.cli_solve import SolveVerb, add_solve, read_problem
from schedlab.experiments.cliflags import SEED, bounded_int
from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.registry import register_command
from schedlab.experiments.sojourn.cli_simulate import simulate
from schedlab.solvers.errors import InvalidInput

if TYPE_CHECKING:
    from schedlab.solvers.result import SolveResult
    from schedlab.solvers.sojourn.objectives import Objective
    from schedlab.solvers.sojourn.problem import Instance, SojournProblem

SUBJECT = "sojourn"


_objectives = constant("schedlab.solvers.sojourn.objectives", "OBJECTIVES")
_families = constant("schedlab.solvers.sojourn.generate", "FAMILIES")
_evaluations = constant("schedlab.solvers.sojourn.outcomes", "EVALUATIONS")


OBJECTIVE_CHOICE = LazyChoice(_objectives, case_sensitive=False)


def _objective(kind: str, k: int | None) -> Objective:
    from schedlab.solvers.sojourn.objectives import Objective

    return Objective.parse(kind, k)


def load_instance(path: Path) -> Instance:
    """Load and validate an instance file ('-' reads standard input)."""
    return read_problem(_instance_type(), path)


@register_command("sojourn")
@click.group()
def sojourn() -> None:
    """Successful-job sojourn scheduling on one server (cancellation checkpoints).

    \b
    Example:
      schedlab sojourn generate --n 6 --seed 1 > inst.json
      schedlab sojourn solve inst.json --objective B --method dp --json
    """


@sojourn.command("generate")
@click.option("--n", "n", type=bounded_int(1, 1_000_000), required=True, help="Number of jobs.")
@click.option("--seed", type=SEED, required=True, help="Random seed, 0..2^63-1.")
@click.option(
    "--max-checkpoints",
    type=bounded_int(0, 999),
    default=3,
    show_default=True,
    help="Checkpoints per job are uniform on 0..C (family default).",
)
@click.option(
    "--family",
    type=LazyChoice(_families),
    default="default",
    show_default=True,
    help="default: random jobs; cyclic: B preferences in one large strong component.",
)
def generate_cmd(n: int, seed: int, max_checkpoints: int, family: str) -> None:
    """Print a random instance (JSON) from a documented, seeded distribution.

    default: per job c ~ U{0..C} checkpoints; success size m log-uniform on [1, 100];
    checkpoint sizes m * sorted U(0.05, 0.95); outcome probabilities Dirichlet(1, ..., 1).
    cyclic: one checkpoint per job, about 2 expected successes, success sizes log-uniform on
    [50, 100], all index lines e/pi + m u through one point, so B's pairwise preferences form
    one strong component of >= 80% of the jobs for n >= 10 (hard for exact B; claim 11).

    \b
    Example:
      schedlab sojourn generate --n 8 --seed 3 --max-checkpoints 2 > inst.json
      schedlab sojourn generate --n 100 --seed 1 --family cyclic > hard.json
    """
    from schedlab.solvers.sojourn.generate import generate

    click.echo(generate(n, seed, max_checkpoints=max_checkpoints, family=family).to_json())


@sojourn.command("evaluate")
@click.argument("instance", type=click.Path(path_type=Path))
@click.option("--order", required=True, help="Comma-separated job ids, e.g. a,c,b.")
@click.option("--objective", type=OBJECTIVE_CHOICE, required=True)
@click.option("--k", type=bounded_int(1, 1_000_000), default=None, help="K for TK and DK.")
@click.option(
    "--how",
    type=LazyChoice(_evaluations),
    default="closed",
    show_default=True,
)
@click.option(
    "--samples",
    type=bounded_int(2, 10**9),
    default=100_000,
    show_default=True,
    help="Monte Carlo samples (refused above the memory budget, SCHEDLAB_MEMORY_BUDGET_GB).",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Monte Carlo seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def evaluate_cmd(
    instance: Path,
    order: str,
    objective: str,
    k: int | None,
    how: str,
    samples: int,
    seed: int,
    as_json: bool,
) -> None:
    """Value of a given non-preemptive order.

    \b
    Example:
      schedlab sojourn evaluate inst.json --order j0,j2,j1 --objective TK --k 2 --how enumerate
    """
    from schedlab.solvers.sojourn.objectives import evaluate
    from schedlab.solvers.sojourn.outcomes import enumerate_value, monte_carlo_value

    inst = load_instance(instance)
    obj = _objective(objective, k)
    ids = [s.strip() for s in order.split(",") if s.strip()]
    try:
        pos = inst.order_from_ids(ids)
    except InvalidInput as exc:
        raise exc.with_source(str(instance)) from None
    out: dict[str, object] = {"objective": obj.label, "order": ids, "how": how}
    if how == "closed":
        out["value"] = evaluate(inst, pos, obj)
    elif how == "enumerate":
        out["value"] = enumerate_value(inst, pos, obj)
    else:
        est = monte_carlo_value(inst, pos, obj, samples=samples, seed=seed)
        out.update(
            value=est.mean,
            stderr=est.stderr,
            ci95=[est.ci_low, est.ci_high],
            samples=samples,
            seed=seed,
        )
    if as_json:
        emit_json(out)
    else:
        for key, v in out.items():
            click.echo(f"{key:10s} {v}")


def _problem(inst: Instance, flags: dict[str, Any]) -> SojournProblem:
    from schedlab.solvers.sojourn.problem import SojournProblem

    return SojournProblem(inst, _objective(flags["objective"], flags["k"]))


def _describe(problem: SojournProblem) -> dict[str, Any]:
    inst = problem.instance
    return {"objective": problem.objective.label, "jobs": inst.n, "name": inst.name}


def _render(problem: SojournProblem, res: SolveResult[Any]) -> None:
    d = res.to_dict()
    label = problem.objective.label
    click.echo(
        format_table(
            ["status", "objective", "value", "bound", "method", "runtime_s"],
            [[d["status"], label, d["value"], d["bound"], res.method, res.runtime_s]],
        )
    )
    click.echo("order: " + ",".join(res.solution or []))


def _instance_type() -> type[Instance]:
    from schedlab.solvers.sojourn.problem import Instance

    return Instance


SOLVE = SolveVerb(
    subject=SUBJECT,
    file_type=_instance_type,
    kinds=_objectives,
    build=_problem,
    describe=_describe,
    render=_render,
    warnings=lambda problem: problem.instance.warnings(),
    params=[
        click.Option(["--objective"], type=OBJECTIVE_CHOICE, required=True),
        click.Option(["--k"], type=bounded_int(1, 1_000_000), default=None, help="K for TK, DK."),
    ],
    help="""Best non-preemptive order of INSTANCE ('-': standard input) by a method.

    Exact methods (brute, dp, milp, cpsat, lpcut) prove their value or give a sound bound;
    heuristics (the rest, and any plugin's) give an order. Method options are flags (e.g.
    --solver for milp, --backend for batchlocal); a flag of another method is refused.

    \b
    Example:
      schedlab sojourn solve inst.json --objective B --method cpsat --time-limit 30 --json
      schedlab sojourn generate --n 6 --seed 1 | schedlab sojourn solve - --objective A --method dp
    """,
)
add_solve(sojourn, SOLVE)

sojourn.add_command(simulate)
