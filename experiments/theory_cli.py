"""`schedlab verify`: run the claim checks of `theory/` and print their verdicts.

Rows of long checks are journaled under results/theory/journal/ (experiments.store.RowStore),
so an interrupted full-size run resumes; verdicts are merged into
results/theory/verify-<size>-s<seed>.json, with the verdict table beside it (.csv). Cells run
on the sweep runner (`experiments.sweep`: --workers N local processes or a Dask --scheduler). A
claim that "fails" is a finding: exit code 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cliflags import seed_option
from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.registry import register_command
from schedlab.experiments.store import RowStore, results_dir, write_csv, write_json
from schedlab.experiments.sweep import engine_options, using
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


def run_verify(
    specs: Sequence[ClaimSpec], size: str, seed: int, outdir: Path, *, fresh: bool = False
) -> tuple[Path, list[Verdict]]:
    """Run the claims on the current sweep engine; merge their verdicts into the verdict file
    (JSON) and write the verdict table next to it (CSV, same stem)."""
    from tqdm import tqdm

    runner = journal_runner(outdir, fresh=fresh)
    verdicts: list[Verdict] = []
    bar = tqdm(specs, desc="claims", file=sys.stderr, disable=None)
    for spec in bar:
        bar.set_postfix_str(f"claim {spec.id}")
        verdicts.append(run_claim(spec, size, seed, outdir=outdir, runner=runner))
    bar.close()
    path = verdict_file(outdir, size, seed)
    merged = _merge_and_write(path, size, seed, verdicts)
    table = [
        {"claim": c["id"], "verdict": c["verdict"], "instances": c["instances"],
         "worst": _worst_text(c["worst"]),
         "evidence": c["summary"], "title": c["title"]}
        for c in merged
    ]  # fmt: skip
    write_csv(path.with_suffix(".csv"), table, VERDICT_FIELDS)
    return path, verdicts


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
