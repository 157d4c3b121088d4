"""`schedlab gap SUBJECT`: every registered heuristic of a subject against the proven optimum."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from schedlab.experiments.cli_registry import LazyChoice
from schedlab.experiments.cliflags import bounded_int, seed_option
from schedlab.experiments.registry import register_command
from schedlab.experiments.studies import Study
from schedlab.experiments.sweep import engine_options, using
from schedlab.solvers.errors import InvalidInput

if TYPE_CHECKING:
    from schedlab.experiments.gap.spec import Rung

MAX_SEEDS = 10_000


def _sizes() -> tuple[str, ...]:
    from schedlab.experiments.gap.spec import LADDER_SIZES

    return LADDER_SIZES


def _subjects() -> list[str]:
    from schedlab.experiments.gap.spec import subjects

    return subjects()


@register_command("gap")
@click.command()
@click.argument("subject", type=LazyChoice(_subjects))
@click.option(
    "--family",
    "families",
    default=None,
    metavar="NAMES",
    help="Instance families, comma-separated (default: the subject's default ones; --list).",
)
@click.option(
    "--methods",
    default=None,
    metavar="LIST",
    help="Compared methods, comma-separated: NAME, NAME[key=value,...] or tag:TAG (default: "
    "every registered heuristic of the subject).",
)
@click.option(
    "--exact",
    default=None,
    metavar="METHOD",
    help="One exact method instead of each size's own (sizes it cannot solve are left out).",
)
@click.option(
    "--size",
    type=LazyChoice(_sizes),
    default="small",
    show_default=True,
    help="Size ladder (tiny: a few instances, for tests).",
)
@click.option(
    "--seeds",
    type=bounded_int(1, MAX_SEEDS),
    default=None,
    help="Seeded instances per size (default: the ladder's count).",
)
@seed_option(0, help="Study seed (each instance derives its seed from it).")
@click.option(
    "--out",
    "outdir",
    type=click.Path(path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Results folder; files go under OUT/<subject>/.",
)
@click.option("--list", "list_only", is_flag=True, help="List the subject's families and exit.")
@engine_options
def gap(
    subject: str,
    families: str | None,
    methods: str | None,
    exact: str | None,
    size: str,
    seeds: int | None,
    seed: int,
    outdir: Path,
    list_only: bool,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Gap of every registered heuristic to the proven optimum, by size.

    Writes OUT/SUBJECT/gap-SUBJECT[-FAMILY].csv (one row per cell, with a `gap` column),
    -summary.csv, .md (the table) and .png/.pdf (gap vs size per method). Exact optima are
    cached apart from the other methods (OUT/SUBJECT/gap-cache/), so adding a heuristic
    computes only its own cells.

    \b
    Example:
      schedlab gap synergy --size full --workers 2
      schedlab gap sojourn --methods smith,uindex --exact dp --seeds 10
      schedlab gap esg --family split --methods 'split[rule=slack],split_opt'
      schedlab gap sojourn --list
    """
    from schedlab.experiments.commands import run_and_report
    from schedlab.experiments.gap.spec import GAP_FAMILIES
    from schedlab.experiments.studies import raise_failures

    if list_only:
        for e in GAP_FAMILIES.entries(scope=subject):
            mark = "*" if e.meta["default"] else " "
            click.echo(f"{mark} {e.name:12s} {e.summary}")
        return
    names, chosen = check_inputs(subject, families, methods, exact, size)
    with using(workers, scheduler) as engine:
        studies = [
            gap_study(subject, name, size, seed, outdir, chosen, exact, seeds) for name in names
        ]
        raise_failures(run_and_report(studies, outdir, engine))


def check_inputs(
    subject: str, families: str | None, methods: str | None, exact: str | None, size: str
) -> tuple[list[str], list[str] | None]:
    """The families and methods to run, after refusing (InvalidInput, exit 2) any input a study
    would refuse: unknown families, methods, their options or tags, an exact method that is not
    one or solves none of a family's kinds, and empty lists. Each family's study resolves its
    inputs only once it runs, after the run's manifest is started; checking them here, with the
    study's own resolution, means a refused run writes nothing and runs nothing."""
    from schedlab.experiments.gap.spec import default_families, family
    from schedlab.experiments.gap.study import resolve_methods

    names = _listed("--family", families) if families is not None else default_families(subject)
    chosen = _listed("--methods", methods) if methods is not None else None
    if exact is not None and not exact.strip():
        raise InvalidInput("--exact: an empty method name; give one exact method or leave it out")
    for name in names:
        entry = family(subject, name)
        with _naming("--methods"):
            resolve_methods(subject, dict(entry.meta), chosen)
        if exact is not None:
            with _naming("--exact"):
                _check_exact(subject, entry.obj(size), exact)
    return names, chosen


@contextmanager
def _naming(flag: str) -> Iterator[None]:
    """Let every refusal inside name `flag` (the registry's own says only "method")."""
    try:
        yield
    except InvalidInput as exc:
        if flag in str(exc):
            raise
        problems = [p.removeprefix("method: ") for p in exc.problems]
        raise InvalidInput(problems, source=flag) from exc


def _listed(flag: str, text: str) -> list[str]:
    """The comma-separated names of `flag` (outside brackets), once each; an empty list is
    refused naming the flag rather than read as the default or as nothing to run."""
    from schedlab.experiments.gap.spec import split_methods

    names = list(dict.fromkeys(split_methods(text)))
    if not names:
        raise InvalidInput(f"{flag}: no names in {text!r}; give names separated by commas")
    return names


def _check_exact(subject: str, rungs: list[Rung], exact: str) -> None:
    """Refuse `exact` as the study's `with_exact` would: an unknown name, a method that is not
    exact, or one that solves none of the rungs' kinds. Only the rungs it solves are passed (all
    of them when it solves none), so the check itself never prints the study's note on the
    rungs it leaves out."""
    from schedlab.experiments.gap.study import accepts, with_exact

    solved = [r for r in rungs if accepts(subject, exact, r.kind)]
    with_exact(subject, solved or rungs, exact)


def gap_study(
    subject: str,
    name: str,
    size: str,
    seed: int,
    outdir: Path,
    methods: list[str] | None,
    exact: str | None,
    seeds: int | None,
) -> Study:
    """One family's gap study as a study of the run (its manifest, the one progress bar)."""
    stem = f"gap-{subject}" + ("" if name == "default" else f"-{name}")
    command = f"schedlab gap {subject} --family {name} --size {size} --seed {seed}"
    command += f" --methods {','.join(methods)}" if methods else ""
    command += f" --exact {exact}" if exact else ""
    command += f" --seeds {seeds}" if seeds else ""
    run = partial(_run_family, subject, name, size, seed, outdir, methods, exact, seeds)
    return Study(stem, "figure", subject, size, seed, command, run, (__name__,))


def _run_family(
    subject: str,
    name: str,
    size: str,
    seed: int,
    outdir: Path,
    methods: list[str] | None,
    exact: str | None,
    seeds: int | None,
) -> list[Path]:
    from schedlab.experiments.gap.report import write_study
    from schedlab.experiments.gap.study import run_study

    study = run_study(subject, name, size, seed, outdir, methods=methods, exact=exact, count=seeds)
    return write_study(study, outdir)
