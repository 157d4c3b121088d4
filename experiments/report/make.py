"""Make the report of a results folder: collect it, then write the page and report.json.

What `schedlab report` runs and what `schedlab reproduce` runs as its last study
(`commands.report_study`), below both commands so that neither imports the other's module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def make_report(
    results: Path,
    out: Path | None = None,
    size: str | None = None,
    old: dict[str, Any] | None = None,
    old_name: str = "",
) -> list[Path]:
    """Collect and write the report of `results` under `out` (default RESULTS/report); `old`:
    an older report's report.json, whose changes the page lists (`--diff`). Imports the
    report's modules when called, so that loading the `report` command stays light."""
    from schedlab.experiments.report.collect import collect
    from schedlab.experiments.report.load import require_folder
    from schedlab.experiments.report.render import write_report

    results = Path(results)
    require_folder(results, "--results", "run `schedlab reproduce` first")
    return write_report(collect(results, size), out or results / "report", old, old_name)
