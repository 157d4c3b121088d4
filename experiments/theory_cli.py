"""`schedlab verify`: run the claim checks of `theory/` and print their verdicts.

Rows of long checks are journaled under results/theory/journal/ (experiments.store.RowStore),
so an interrupted full-size run resumes; verdicts are merged into
results/theory/verify-<size>-s<seed>.json, with the verdict table beside it (.csv). Cells run
on the sweep runner (`experiments.sweep`: --workers N local processes or a Dask --scheduler). A
claim that "fails" is a finding: exit code 0.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cliflags import seed_option
from schedlab.experiments.codeversion import subject_of_module
from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.registry import register_command
from schedlab.experiments.store import RowStore, results_dir, write_csv, write_json
from schedlab.experiments.studies import Study, raise_failures, run_studies
from schedlab.experiments.sweep import SerialEngine, current_engine, engine_options, using
from schedlab.theory.claims import ClaimSpec, resolve, run_claim
from schedlab.theory.claims import claims as all_claims
from schedlab.theory.verdict import SIZES, Runner, RunnerFactory, Verdict


def journal_runner(outdir: Path, *, fresh: bool = False) -> RunnerFactory:
    """A runner factory whose rows persist in results/theory/journal/<name>.jsonl."""

    def factory(name: str, key_fields: Sequence[str], config: dict[str, Any]) -> Runner:
        path = results_dir(outdir, "theory") / "journal" / f"{name}.jsonl"
        if fresh and path.exists():
            path.unlink()
        return RowStore(path, key_fields, config=config)

    return factory


def _worst_text(worst: dict[str, Any]) -> str:
    x = worst.get("value")
    if x is None:
        return "-"
    text = f"{x:.3g}" if isinstance(x, float) else str(x)
    return text + (" (saved)" if worst.get("instance") else "")


def verdict_file(outdir: Path, size: str, seed: int) -> Path:
    return results_dir(outdir, "theory") / f"verify-{size}-s{seed}.json"


def _merge_and_write(
    path: Path, size: str, seed: int, verdicts: list[Verdict]
) -> list[dict[str, Any]]:
    old: dict[str, Any] = {}
    if path.exists():
        try:
            old = {c["id"]: c for c in json.loads(path.read_text()).get("claims", [])}
        except (json.JSONDecodeError, AttributeError, KeyError, TypeError):
            old = {}
    for v in verdicts:
        old[v.id] = v.to_dict()
    order = list(all_claims())
    merged = sorted(old.values(), key=lambda c: order.index(c["id"]) if c["id"] in order else 99)
    write_json(path, {"size": size, "seed": seed, "claims": merged})
    return merged


VERDICT_FIELDS = ["claim", "verdict", "instances", "worst", "evidence", "title"]
_VERDICT_LOCK = threading.Lock()


def record_verdict(outdir: Path, size: str, seed: int, verdict: Verdict) -> Path:
    """Merge one verdict into the verdict file (JSON) and rewrite the table beside it (CSV), as
    each claim finishes, so an interrupted run keeps every finished verdict."""
    path = verdict_file(outdir, size, seed)
    with _VERDICT_LOCK:
        merged = _merge_and_write(path, size, seed, [verdict])
        table = [
            {"claim": c["id"], "verdict": c["verdict"], "instances": c["instances"],
             "worst": _worst_text(c["worst"]),
             "evidence": c["summary"], "title": c["title"]}
            for c in merged
        ]  # fmt: skip
        write_csv(path.with_suffix(".csv"), table, VERDICT_FIELDS)
    return path


def whole_claim_cell(cell: dict[str, Any], outdir: str) -> dict[str, Any]:
    """A check that computes in its own body, run whole as one cell (in a worker)."""
    spec = resolve([cell["claim"]])[0]
    verdict = run_claim(spec, cell["size"], cell["seed"], outdir=Path(outdir))
    return {"verdict": verdict.to_dict()}


def _claim_run(
    spec: ClaimSpec, size: str, seed: int, outdir: Path, runner: RunnerFactory,
    sink: dict[str, Verdict],
) -> list[Path]:  # fmt: skip
    if spec.in_worker:
        key = ["claim", "size", "seed"]
        store = runner(f"claim-{spec.id}-whole", key, {"size": size, "seed": seed})
        cell = {"claim": spec.id, "size": size, "seed": seed}
        row = store.run([cell], partial(whole_claim_cell, outdir=str(outdir)), desc=spec.id)[0]
        verdict = Verdict.from_dict(row["verdict"])
    else:
        verdict = run_claim(spec, size, seed, outdir=outdir, runner=runner)
    sink[spec.id] = verdict
    path = record_verdict(outdir, size, seed, verdict)
    return [path, path.with_suffix(".csv"), *map(Path, verdict.files)]


def claim_studies(
    specs: Sequence[ClaimSpec],
    size: str,
    seed: int,
    outdir: Path,
    *,
    fresh: bool = False,
    sink: dict[str, Verdict] | None = None,
) -> list[Study]:
    """Each claim check as a study (`claim-<id>`), its rows journaled; verdicts go to `sink`."""
    runner = journal_runner(outdir, fresh=fresh)
    sink = {} if sink is None else sink
    return [
        Study(
            name=f"claim-{spec.id}",
            kind="claim",
            subject=subject_of_module(spec.func.__module__),
            size=size,
            seed=seed,
            command=f"schedlab verify {spec.id} --size {size} --seed {seed}",
            run=partial(_claim_run, spec, size, seed, outdir, runner, sink),
            extra_modules=(spec.func.__module__,),
        )
        for spec in specs
    ]


def run_verify(
    specs: Sequence[ClaimSpec], size: str, seed: int, outdir: Path, *, fresh: bool = False
) -> tuple[Path, list[Verdict]]:
    """Run the claims (at once, on the current sweep engine's workers); merge their verdicts
    into the verdict file (JSON) and the verdict table next to it (CSV, same stem)."""
    sink: dict[str, Verdict] = {}
    studies = claim_studies(specs, size, seed, outdir, fresh=fresh, sink=sink)
    stats = run_studies(studies, outdir, parallel=not isinstance(current_engine(), SerialEngine))
    raise_failures(stats)
    return verdict_file(outdir, size, seed), [sink[s.id] for s in specs]


@register_command("verify")
@click.command("verify")
@click.argument("claim_ids", metavar="[CLAIM]...", nargs=-1)
@click.option("--size", type=click.Choice(SIZES), default="small", show_default=True)
@seed_option(0, help="Study seed (instances and cells derive theirs from it).")
@click.option(
    "--out",
    "outdir",
    type=click.Path(path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Results folder; files go under OUT/theory/.",
)
@click.option("--fresh", is_flag=True, help="Recompute rows journaled by earlier runs.")
@click.option("--list", "list_only", is_flag=True, help="List the claims and exit.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@engine_options
def verify(
    claim_ids: tuple[str, ...],
    size: str,
    seed: int,
    outdir: Path,
    fresh: bool,
    list_only: bool,
    as_json: bool,
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Check the registered claims (sojourn, SLAQ, ...); print a verdict table with evidence.

    CLAIM is an id (1, 2, 2a, 3, ...) or a slug (no-preemption-A, ...); default: all.
    Verdicts: holds, fails (a counterexample was found and saved), inconclusive.

    \b
    Examples:
      schedlab verify                      # every claim at small size
      schedlab verify 4 5 --json           # two claims, machine-readable
      schedlab verify --size full --seed 0 # the full study (long; resumable)
      schedlab verify --workers 2          # cells on 2 local processes
      schedlab verify --list
    """
    specs = resolve(list(claim_ids))
    if list_only:
        if as_json:
            emit_json({"claims": [{"id": s.id, "slug": s.slug, "title": s.title} for s in specs]})
        else:
            for s in specs:
                click.echo(f"{s.id:4s} {s.slug:28s} {s.title}")
        return
    with using(workers, scheduler):
        path, verdicts = run_verify(specs, size, seed, outdir, fresh=fresh)
    if as_json:
        emit_json(
            {
                "size": size,
                "seed": seed,
                "file": str(path),
                "claims": [v.to_dict() for v in verdicts],
            }
        )
        return
    rows = [[v.id, v.verdict, v.instances, _worst_text(v.worst), v.summary] for v in verdicts]
    click.echo(format_table(["claim", "verdict", "instances", "worst", "evidence"], rows))
    for v in verdicts:
        click.echo(f"  {v.id}: {v.title}")
    saved = [f for v in verdicts for f in v.files]
    if saved:
        click.echo("saved instances: " + ", ".join(saved))
    click.echo(f"verdicts: {path}")
