"""Cross-cutting commands: `schedlab figure NAME` and `schedlab reproduce`.

Both run their studies' cells on the sweep runner (`experiments.sweep`): `--workers N` local
processes (default: all cores) or a Dask cluster with `--scheduler ADDRESS`.
"""

from __future__ import annotations

import inspect
import time
from functools import partial
from pathlib import Path

import click

from schedlab.experiments.cliflags import seed_option
from schedlab.experiments.codeversion import subject_of_module
from schedlab.experiments.registry import SIZES, figures, register_command
from schedlab.experiments.studies import Study, StudyStats, raise_failures, run_studies
from schedlab.experiments.sweep import Engine, SerialEngine, engine_options, using
from schedlab.solvers.errors import InvalidInput


def figure_study(name: str, size: str, seed: int, outdir: Path, family: str | None = None) -> Study:
    """The registered figure `name` as a study (InvalidInput for an unknown name or a family
    the figure does not take)."""
    specs = figures()
    if name not in specs:
        raise InvalidInput(f"figure: unknown name {name!r}; choose one of: {', '.join(specs)}")
    fn = specs[name].obj
    extra = {} if family is None else {"family": family}
    if extra and "family" not in inspect.signature(fn).parameters:
        raise InvalidInput(f"--family: figure {name!r} takes no instance family; leave it out")
    command = f"schedlab figure {name} --size {size} --seed {seed}"
    command += f" --family {family}" if family else ""
    return Study(
        name=name if family is None else f"{name}-{family}",
        kind="figure",
        subject=subject_of_module(fn.__module__),
        size=size,
        seed=seed,
        command=command,
        run=partial(fn, size, seed, outdir, **extra),
        extra_modules=(fn.__module__,),
    )


def run_and_report(studies: list[Study], outdir: Path, engine: Engine) -> list[StudyStats]:
    """Run the studies on `engine` (at once unless it runs cells in this process) and print the
    files they wrote; raise one InvalidInput naming every failed study at the end."""
    stats = run_studies(studies, outdir, parallel=not isinstance(engine, SerialEngine))
    for s in stats:
        for p in s.files:
            click.echo(p)
    return stats


@register_command("figure")
@click.command()
@click.argument("names", nargs=-1)
@click.option("--size", type=click.Choice(SIZES), default="small", show_default=True)
@seed_option(0, help="Study seed (instances and cells derive theirs from it).")
@click.option(
    "--out",
    "outdir",
    type=click.Path(path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Results folder; files go under OUT/<subject>/.",
)
@click.option(
    "--family",
    default=None,
    help="Instance family, for figures that take one (sojourn-gap: default or cyclic).",
)
@click.option("--list", "list_only", is_flag=True, help="List the figures and exit.")
@engine_options
def figure(
    names: tuple[str, ...],
    size: str,
    seed: int,
    outdir: Path,
    family: str | None,
    list_only: bool,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Make figures and tables by name.

    \b
    Example:
      schedlab figure sojourn-heuristics --size small
      schedlab figure synergy-jct --size full --workers 8
      schedlab figure sojourn-gap --family cyclic
      schedlab figure --list
    """
    specs = figures()
    if list_only or not names:
        for s in specs.values():
            click.echo(f"{s.name:24s} {s.summary}")
        return
    with using(workers, scheduler) as engine:
        studies = [figure_study(name, size, seed, outdir, family) for name in names]
        raise_failures(run_and_report(studies, outdir, engine))


@register_command("reproduce")
@click.command()
@click.option("--size", type=click.Choice(SIZES), default="small", show_default=True)
@seed_option(0, help="Study seed (instances and cells derive theirs from it).")
@click.option(
    "--out", "outdir", type=click.Path(path_type=Path), default=Path("results"), show_default=True
)
@engine_options
def reproduce(
    size: str, seed: int, outdir: Path, workers: int | None, scheduler: str | None
) -> None:
    """Run the default reproduction: every figure and table marked for it, then `verify`.

    Finished rows are kept on disk, so an interrupted run resumes where it stopped. The claim
    verdicts go to OUT/theory/verify-SIZE-sSEED.{json,csv}.

    \b
    Example:
      schedlab reproduce --size small
      schedlab reproduce --size full --workers 16
      schedlab reproduce --size full --scheduler tcp://10.0.0.5:8786
    """
    from schedlab.experiments.theory_cli import claim_studies
    from schedlab.theory.claims import resolve

    t0 = time.perf_counter()
    with using(workers, scheduler) as engine:
        studies = [
            figure_study(spec.name, size, seed, outdir)
            for spec in figures().values()
            if spec.meta.get("in_reproduce")
        ]
        studies += claim_studies(resolve([]), size, seed, outdir)
        stats = run_and_report(studies, outdir, engine)
        record_run(outdir, size, seed, engine, stats, time.perf_counter() - t0)
        stats += run_and_report([report_study(outdir, size, seed)], outdir, engine)
    wall = time.perf_counter() - t0
    click.echo(f"[reproduce] {len(stats)} studies in {wall:.1f} s", err=True)
    raise_failures(stats)


def report_study(outdir: Path, size: str, seed: int) -> Study:
    """The report of `outdir` as the reproduction's last study (it reads the others' files)."""
    from schedlab.experiments.report.cli import make_report

    return Study(
        name="report",
        kind="report",
        subject="",
        size=size,
        seed=seed,
        command=f"schedlab report --results {outdir}",
        run=partial(make_report, outdir, None, size),
        extra_modules=("schedlab.experiments.report.cli",),
    )


def record_run(
    outdir: Path, size: str, seed: int, engine: Engine, stats: list[StudyStats], wall_s: float
) -> Path:
    """results/manifests/run.json: what this reproduction ran, on what, in how long."""
    from schedlab.experiments.store import write_json
    from schedlab.experiments.studies import MANIFEST_DIR
    from schedlab.solvers.util import ensure_output_dir

    workers = getattr(engine, "workers", 1 if isinstance(engine, SerialEngine) else None)
    record = {
        "command": f"schedlab reproduce --size {size} --seed {seed}",
        "size": size,
        "seed": seed,
        "engine": engine.name,
        "workers": workers,
        "studies": len(stats),
        "failed": sum(s.status != "ok" for s in stats),
        "wall_s": round(wall_s, 2),
        "cpu_s": round(sum(s.cpu_s for s in stats), 2),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    return write_json(ensure_output_dir(Path(outdir) / MANIFEST_DIR) / "run.json", record)
