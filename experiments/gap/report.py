"""A gap study's files: the cells (CSV with a `gap` column), the summary (CSV, Markdown), the plot.

`write_study(study, outdir)` writes, under `OUT/<subject>/`, `gap-<subject>[-<family>].csv`
(one row per cell), `...-summary.csv`, `....md` and `....{png,pdf}`; the family "default" has
no suffix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.gap.plot import plot
from schedlab.experiments.gap.study import Study
from schedlab.experiments.gap.summary import markdown, summarize
from schedlab.experiments.store import results_dir, write_csv
from schedlab.solvers.util import atomic_write_text

#: The tag of the figures that are gap studies (their .md is the heuristic-vs-optimum table).
GAP_TAG = "gap"


def stem(study: Study) -> str:
    return f"gap-{study.subject}" + ("" if study.family == "default" else f"-{study.family}")


def caption(study: Study, workload: str = "") -> str:
    """Workload, size, seed, instances per rung and exact methods, for figures and tables."""
    per = {(g.group, g.label): 0 for g in study.rungs}
    seen: set[tuple[str, str, int]] = set()
    for r in study.rows:
        if (r["group"], r["rung"], r["i"]) not in seen:
            seen.add((r["group"], r["rung"], r["i"]))
            per[(r["group"], r["rung"])] += 1
    n = sorted(set(per.values()))
    exact = sorted({m for g in study.rungs for m in g.exact})
    limits = sorted({g.time_limit_s for g in study.rungs if g.time_limit_s is not None})
    limit = f" ({', '.join(f'{x:g}' for x in limits)} s limit)" if limits else ""
    unproven = len(seen) - len(
        {(r["group"], r["rung"], r["i"]) for r in study.rows if r["proven"] or r["infeasible"]}
    )
    text = (
        f"{study.subject}/{study.family} ({workload or study.summary}); size {study.size}; "
        f"seed {study.seed}; {'/'.join(map(str, n))} instances per size; exact: "
        f"{', '.join(exact)}{limit}; {unproven} instance(s) without a proven optimum left out "
        "of the gap statistics"
    )
    return text


def write_study(
    study: Study,
    outdir: Path,
    *,
    name: str | None = None,
    rows_suffix: str = "",
    summary_suffix: str = "-summary",
    summary: list[dict[str, Any]] | None = None,
    xlabel: str = "instance size",
    workload: str = "",
    note: str = "",
) -> list[Path]:
    """Write NAME{rows_suffix}.csv (the cells), NAME{summary_suffix}.csv, NAME.md and the plot
    NAME.{png,pdf} under OUT/<subject>/ (NAME: `stem(study)` unless given); the paths. A
    figure passes its own name and suffixes, a summary with extra columns and a caption note."""
    d = results_dir(outdir, study.subject)
    name = name or stem(study)
    summary = summary if summary is not None else summarize(study)
    cap = caption(study, workload) + (f". {note}" if note else "")
    md = d / f"{name}.md"
    atomic_write_text(md, markdown(study, summary, cap))
    paths = [
        write_csv(d / f"{name}{rows_suffix}.csv", study.rows, fields=row_fields(study.rows)),
        write_csv(d / f"{name}{summary_suffix}.csv", summary),
        md,
    ]
    return paths + plot(study, summary, d / name, cap, xlabel=xlabel)


def row_fields(rows: list[dict[str, Any]]) -> list[str]:
    """Every column that occurs, in first-seen order (extras differ between methods)."""
    return list(dict.fromkeys(k for r in rows for k in r))
