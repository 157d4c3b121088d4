"""`schedlab gap SUBJECT`: every registered heuristic of a subject against the proven optimum."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import click

from schedlab.experiments.cli_registry import LazyChoice
from schedlab.experiments.cliflags import bounded_int, seed_option
from schedlab.experiments.registry import register_command
from schedlab.experiments.studies import Study
from schedlab.experiments.sweep import engine_options, using

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
    from schedlab.experiments.gap.spec import GAP_FAMILIES, default_families, family, split_methods
    from schedlab.experiments.studies import raise_failures

    if list_only:
        for e in GAP_FAMILIES.entries(scope=subject):
            mark = "*" if e.meta["default"] else " "
            click.echo(f"{mark} {e.name:12s} {e.summary}")
        return
    names = split_methods(families) if families else default_families(subject)
    for name in names:
        family(subject, name)  # every unknown family is refused before any work
    chosen = split_methods(methods) if methods else None
    with using(workers, scheduler) as engine:
        studies = [
            gap_study(subject, name, size, seed, outdir, chosen, exact, seeds) for name in names
        ]
        raise_failures(run_and_report(studies, outdir, engine))


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
