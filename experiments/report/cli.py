"""`schedlab report`: the reproduction report (HTML, Markdown, JSON) from a results folder;
`--check DIR`: the rows of a committed report whose study code has changed since; `--diff DIR`:
the report, and the rows changed since the older report in DIR (`report.diff`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.registry import SIZES, register_command
from schedlab.experiments.report.make import make_report
from schedlab.solvers.errors import InvalidInput


def stale_rows(report_dir: Path) -> tuple[list[dict[str, Any]], int]:
    """(rows whose study's code version differs from the current code, rows checked) of the
    committed report in `report_dir`."""
    from schedlab.experiments.report.collect import current_versions
    from schedlab.experiments.report.shape import read_report

    rows = read_report(Path(report_dir) / "report.json")  # shape checked: no KeyError below
    current = current_versions({r["study"] for r in rows if r.get("study")})
    stale = []
    for r in rows:
        now = current.get(r.get("study", ""), "")
        if r.get("code_version") and now and r["code_version"] != now:
            stale.append(
                {
                    "row": f"{r['subject']}/{r['claim_id']}",
                    "study": r["study"],
                    "was": r["code_version"],
                    "now": now,
                    "command": r["command"],
                }
            )
    return stale, len(rows)


@register_command("report")
@click.command("report")
@click.option(
    "--results",
    type=click.Path(path_type=Path),
    default=Path("results"),
    show_default=True,
    help="The results folder to report on.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Where to write the report (default: RESULTS/report).",
)
@click.option(
    "--size",
    type=click.Choice(SIZES),
    default=None,
    help="Which size's verdicts to read (default: the last reproduction's).",
)
@click.option(
    "--check",
    "check_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="List the rows of the committed report in DIR whose study code changed.",
)
@click.option(
    "--diff",
    "diff_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Also list the rows changed since the older report in DIR (its report.json): a "
    "verdict or reading, the decided point (another point, or a value outside the other's 95% "
    "interval), the reference number or source, the named point; rows added or removed. The "
    "new page shows the list too.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def report(
    results: Path,
    out: Path | None,
    size: str | None,
    check_dir: Path | None,
    diff_dir: Path | None,
    as_json: bool,
) -> None:
    """Write the reproduction report: every paper claim beside our number, with its verdict.

    \b
    Examples:
      schedlab report                                  # results/ -> results/report/
      schedlab report --results results --out docs/reproduction
      schedlab report --check docs/reproduction        # stale rows of a committed report
      schedlab report --out /tmp/report --diff docs/reproduction   # and what changed since
    """
    if check_dir is not None and diff_dir is not None:
        raise InvalidInput("--diff and --check: give one of them")
    if check_dir is not None:
        stale, n = stale_rows(check_dir)
        if as_json:
            emit_json({"report": str(check_dir), "rows": n, "stale": stale})
            return
        if stale:
            click.echo(
                format_table(
                    ["row", "study", "was", "now", "regenerate"],
                    [[s["row"], s["study"], s["was"], s["now"], s["command"]] for s in stale],
                )
            )
        click.echo(f"{len(stale)} of {n} rows of {check_dir} are stale")
        return
    if diff_dir is not None:
        _report_and_diff(results, out, size, diff_dir, as_json)
        return
    paths = make_report(results, out, size)
    if as_json:
        emit_json({"files": [str(p) for p in paths]})
        return
    for p in paths:
        click.echo(str(p))


def _report_and_diff(
    results: Path, out: Path | None, size: str | None, diff_dir: Path, as_json: bool
) -> None:
    """`--diff DIR`: the old report is read first (a bad one exits 2 before anything is
    written), then the report is written with the changes on its page, and they are printed."""
    from schedlab.experiments.report.diff import diff_of_folder, diff_text, read_report

    old = read_report(diff_dir)
    paths = make_report(results, out, size, old, str(diff_dir))
    d = diff_of_folder(old, str(diff_dir), paths[0].parent)
    if as_json:
        emit_json({"files": [str(p) for p in paths], "diff": d.to_dict()})
        return
    click.echo(diff_text(d))
    for p in paths:
        click.echo(str(p))
