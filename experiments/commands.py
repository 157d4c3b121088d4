"""Cross-cutting commands: `schedlab figure NAME` and `schedlab reproduce`.

Both run their studies' cells on the sweep runner (`experiments.sweep`): `--workers N` local
processes (default: all cores) or a Dask cluster with `--scheduler ADDRESS`.

`schedlab reproduce --size S` runs every study the report of size S reads: the figures marked
`in_reproduce`, every figure a claims catalogue row computed at size S names (its `study`),
and every claim check; then the report. Each study's cells are planned from its last manifest
at that size and seed (or the last reproduction's record of it), so the run's progress bar has
its total before the first cell; `--list` prints that plan without running anything.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cliflags import seed_option
from schedlab.experiments.codeversion import subject_of_module
from schedlab.experiments.registry import SIZES, figures, register_command
from schedlab.experiments.studies import (
    MANIFEST_DIR,
    Planned,
    Study,
    StudyStats,
    raise_failures,
    read_manifests,
    run_studies,
)
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
    """Run the studies on `engine` (at once unless it runs cells in this process), their cells
    planned from their last manifests (`plan_of`), and print the files they wrote; the caller
    raises one InvalidInput naming every failed study at the end (`raise_failures`)."""
    stats = run_studies(
        studies,
        outdir,
        parallel=not isinstance(engine, SerialEngine),
        plan=plan_of(studies, outdir),
        workers=engine_workers(engine),
    )
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
@click.option(
    "--list",
    "list_only",
    is_flag=True,
    help="Print the studies the run would run (cells, CPU, wall and peak memory of each one's "
    "last manifest in OUT) and exit; runs nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="With --list: print one JSON object.")
@engine_options
def reproduce(
    size: str,
    seed: int,
    outdir: Path,
    list_only: bool,
    as_json: bool,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Run the reproduction: every study the report reads, then the report.

    That is every figure marked for it, every figure a claims catalogue row computed at this
    size reads, and every claim check (`schedlab verify`); the claim verdicts go to
    OUT/theory/verify-SIZE-sSEED.{json,csv}, the run's record to OUT/manifests/run.json.
    Finished rows are kept on disk, so an interrupted run resumes where it stopped.

    \b
    Example:
      schedlab reproduce --size small
      schedlab reproduce --size full --list
      schedlab reproduce --size full --workers 16
      schedlab reproduce --size full --scheduler tcp://10.0.0.5:8786
    """
    if as_json and not list_only:
        raise InvalidInput("--json: only with --list (a run prints its files and progress)")
    picked = reproduce_studies(size, seed, outdir)
    if list_only:
        print_plan(picked, outdir, size, seed, as_json)
        return
    t0 = time.perf_counter()
    with using(workers, scheduler) as engine:
        stats = run_and_report([s for s, _ in picked], outdir, engine)
        record_run(outdir, size, seed, engine, stats, time.perf_counter() - t0)
        stats += run_and_report([report_study(outdir, size, seed)], outdir, engine)
    wall = time.perf_counter() - t0
    click.echo(f"[reproduce] {len(stats)} studies in {wall:.1f} s", err=True)
    raise_failures(stats)


# ---- which studies a reproduction runs -----------------------------------------------------
def catalogue_studies(size: str) -> dict[str, list[str]]:
    """The figure studies that claims catalogue rows computed at `size` read, each with those
    rows (`subject/claim`); InvalidInput naming the row whose study is no registered figure."""
    from schedlab.theory.catalogue import catalogues

    specs = figures()
    out: dict[str, list[str]] = {}
    bad = []
    for subject, cat in catalogues().items():
        for c in cat.claims:
            if not c.ours.study or size not in c.sizes:
                continue
            if c.ours.study not in specs:
                bad.append(f"theory/{subject}/claims.toml: claim {c.id}: study {c.ours.study!r}")
            out.setdefault(c.ours.study, []).append(f"{subject}/{c.id}")
    if bad:
        raise InvalidInput(
            ["a catalogue row reads a study that is no registered figure:", *bad]
            + ["fix its `study` or register the figure (`schedlab figure --list`)"]
        )
    return out


def reproduce_studies(size: str, seed: int, outdir: Path) -> list[tuple[Study, str]]:
    """The studies `schedlab reproduce` runs at `size`, each with why: the figures marked
    `in_reproduce`, then the figures only catalogue rows read, then every claim check."""
    from schedlab.experiments.theory_cli import claim_studies
    from schedlab.theory.claims import resolve

    specs = figures()
    why = {name: "marked for reproduce" for name, e in specs.items() if e.meta.get("in_reproduce")}
    for name, rows in sorted(catalogue_studies(size).items()):
        n = f"{len(rows)} report row{'s' if len(rows) > 1 else ''}"
        why[name] = f"{why[name]}; read by {n}" if name in why else f"read by {n}"
    picked = [(figure_study(name, size, seed, outdir), w) for name, w in why.items()]
    picked += [(s, "claim check") for s in claim_studies(resolve([]), size, seed, outdir)]
    return picked


# ---- the plan: each study's cells and cost from its last run -------------------------------
RUNS_DIR = "runs"  # OUT/runs/reproduce-SIZE-sSEED.json: each reproduction's record per study


def run_history(outdir: Path, size: str, seed: int) -> Path:
    return Path(outdir) / RUNS_DIR / f"reproduce-{size}-s{seed}.json"


def last_measured(outdir: Path, size: str, seed: int) -> dict[str, dict[str, Any]]:
    """What each study cost when it last ran at `size` and `seed` into `outdir`: its manifest
    (if of that size and seed and finished), else the last reproduction's record of it."""
    out: dict[str, dict[str, Any]] = {}
    try:
        record = json.loads(run_history(outdir, size, seed).read_text())
        out.update({k: v for k, v in record.get("per_study", {}).items() if isinstance(v, dict)})
    except (OSError, ValueError, AttributeError):
        pass
    for name, m in read_manifests(outdir).items():
        if m.get("size") == size and m.get("seed") == seed and m.get("status") == "ok":
            out[name] = m
    return out


def _measured(m: Mapping[str, Any], key: str) -> float:
    value = m.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def plan_of(studies: Sequence[Study], outdir: Path) -> dict[str, Planned]:
    """Each study's expected cells and their CPU, from `last_measured` (a study never run at
    its size and seed is left out: the bar adds its cells when it starts)."""
    plan = {}
    for s in studies:
        m = last_measured(outdir, s.size, s.seed).get(s.name)
        if m is not None and isinstance(m.get("cells"), int):
            plan[s.name] = Planned(int(m["cells"]), _measured(m, "cell_cpu_s"))
    return plan


def engine_workers(engine: Engine) -> int | None:
    """The processes that run cells (1 in this process; None when not known, as on Dask)."""
    if isinstance(engine, SerialEngine):
        return 1
    workers = getattr(engine, "workers", None)
    return workers if isinstance(workers, int) else None


def plan_rows(
    picked: Sequence[tuple[Study, str]], outdir: Path, size: str, seed: int
) -> list[dict[str, Any]]:
    """One row per study of the run: its name, kind, why it runs, and its last measurement
    (cells, cell CPU, total CPU, wall, peak memory; None where it never ran here)."""
    measured = last_measured(outdir, size, seed)
    rows = []
    for study, why in picked:
        m = measured.get(study.name)
        rows.append(
            {
                "study": study.name,
                "kind": study.kind,
                "why": why,
                "cells": m.get("cells") if m else None,
                "cell_cpu_s": _measured(m, "cell_cpu_s") if m else None,
                "cpu_s": _measured(m, "cpu_s") if m else None,
                "wall_s": _measured(m, "wall_s") if m else None,
                "peak_mb": _measured(m, "peak_mb") if m else None,
                "longest_cell_cpu_s": _measured(m, "longest_cell_cpu_s") if m else None,  # 0: old
                "measured_at": str(m.get("finished_at", "")) if m else "",
            }
        )
    return rows


def print_plan(
    picked: Sequence[tuple[Study, str]], outdir: Path, size: str, seed: int, as_json: bool
) -> None:
    """`reproduce --list`: the studies of the run, each with its last measurement, and totals."""
    from schedlab.experiments.output import emit_json, format_table

    rows = plan_rows(picked, outdir, size, seed)
    known = [r for r in rows if r["cells"] is not None]
    totals = {
        "studies": len(rows),
        "measured": len(known),
        "cells": sum(r["cells"] for r in known),
        "cell_cpu_s": round(sum(r["cell_cpu_s"] for r in known), 2),
        "cpu_s": round(sum(r["cpu_s"] for r in known), 2),
    }
    command = f"schedlab reproduce --size {size} --seed {seed}"
    if as_json:
        emit_json({"command": command, "results": str(outdir), "studies": rows, "total": totals})
        return
    click.echo(
        format_table(
            [
                "study",
                "kind",
                "cells",
                "cell CPU s",
                "longest cell s",
                "CPU s",
                "wall s",
                "peak MB",
                "why",
            ],
            [
                [
                    r["study"],
                    r["kind"],
                    *(_dash(r[k]) for k in PLAN_COLUMNS),
                    r["why"],
                ]
                for r in rows
            ],
        )
    )
    unmeasured = [r["study"] for r in rows if r["cells"] is None]
    click.echo(
        f"{command}: {totals['studies']} studies, then the report; last measured in {outdir}: "
        f"{totals['cells']:,} cells, {totals['cell_cpu_s']:,.0f} CPU-s in cells "
        f"({totals['cpu_s']:,.0f} with the main process)"
        + (f"; never run here at this size and seed: {', '.join(unmeasured)}" if unmeasured else "")
    )
    for line in critical_path_lines(known):
        click.echo(line)


#: The measured columns of `reproduce --list`, in order.
PLAN_COLUMNS = ("cells", "cell_cpu_s", "longest_cell_cpu_s", "cpu_s", "wall_s", "peak_mb")
#: Worker counts `reproduce --list` bounds the run's wall time for.
BOUND_WORKERS = (2, 16, 64)


def critical_path_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """What no number of workers beats, from the last manifests: the longest cell (a cell runs
    on one worker), and for N workers the lower bound max(cells' CPU / N, longest cell) on the
    wall time of the cells (the main process's plots and tables not counted)."""
    longest = [(r["longest_cell_cpu_s"], r["study"]) for r in rows if r["longest_cell_cpu_s"]]
    if not longest:
        return ["critical path: not measured (the manifests predate longest_cell_cpu_s)"]
    top, study = max(longest)
    cpu = sum(r["cell_cpu_s"] for r in rows)
    bounds = ", ".join(f"{n} workers >= {_bound(cpu, top, n)}" for n in BOUND_WORKERS)
    return [
        f"critical path: the longest cell, {top:,.1f} CPU-s ({study}); wall of the cells: {bounds}"
    ]


def _bound(cpu: float, longest: float, n: int) -> str:
    limit = "the longest cell" if longest >= cpu / n else "CPU / workers"
    return f"{max(cpu / n, longest):,.0f} s ({limit})"


def _dash(x: Any) -> Any:
    if x is None or x == 0.0:
        return "-"
    return round(x, 1) if isinstance(x, float) else x


def report_study(outdir: Path, size: str, seed: int) -> Study:
    """The report of `outdir` as the reproduction's last study (it reads the others' files)."""
    from schedlab.experiments.report.make import make_report

    return Study(
        name="report",
        kind="report",
        subject="",
        size=size,
        seed=seed,
        command=f"schedlab report --results {outdir}",
        run=partial(make_report, outdir, None, size),
        extra_modules=("schedlab.experiments.report.make",),
    )


def record_run(
    outdir: Path, size: str, seed: int, engine: Engine, stats: list[StudyStats], wall_s: float
) -> Path:
    """results/manifests/run.json: what this reproduction ran (each study by name: the report
    shows no number of a study outside it), at which commit, on what, in how long; and
    OUT/runs/reproduce-SIZE-sSEED.json: the same with each study's cells and cost, which plans
    the next run at this size and seed (`last_measured`)."""
    from schedlab.experiments.report.environment import run_commit
    from schedlab.experiments.store import write_json
    from schedlab.solvers.util import ensure_output_dir

    record = {
        "command": f"schedlab reproduce --size {size} --seed {seed}",
        "commit": run_commit(),
        "size": size,
        "seed": seed,
        "engine": engine.name,
        "workers": engine_workers(engine),
        "studies": len(stats),
        "failed": sum(s.status != "ok" for s in stats),
        "cells": sum(s.cells for s in stats),
        "wall_s": round(wall_s, 2),
        "cpu_s": round(sum(s.cpu_s for s in stats), 2),
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "study_names": [s.study for s in stats] + ["report"],
    }
    keep = (
        "cells", "cell_cpu_s", "longest_cell_cpu_s", "cpu_s", "wall_s", "peak_mb", "status",
        "finished_at",
    )  # fmt: skip
    per_study = {s.study: {k: v for k, v in s.to_dict().items() if k in keep} for s in stats}
    history = ensure_output_dir(Path(outdir) / RUNS_DIR) / run_history(outdir, size, seed).name
    write_json(history, {**record, "per_study": per_study})
    return write_json(ensure_output_dir(Path(outdir) / MANIFEST_DIR) / "run.json", record)
