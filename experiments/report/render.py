"""Writing the report: `index.html` (one self-contained page, figures inline), `report.md`
(figures beside it under figures/) and `report.json` (one object per claim row), from the
templates in templates/ (Jinja2; no JavaScript, nothing fetched).

Each row shows one number of ours: the decided point's value and 95% interval (where it is and
its seeds), the band it was held against, the verdict with its reading and the reason; every
swept point is folded away (HTML) and drawn as a strip beside the row (`pictures.strip_svg`).
Given an older report (`--diff`), the page lists what changed since (`diff.diff_reports`)."""

from __future__ import annotations

import base64
import html
import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedlab.experiments.report.collect import ClaimRow, ReportData, fmt, of_size
from schedlab.experiments.report.diff import (
    ReportDiff,
    diff_lines,
    diff_reports,
    paper_point_text,
    summary_line,
)
from schedlab.experiments.report.pictures import (
    COLOURS,
    forest,
    no_forest_sentence,
    screen_png,
    strip_svg,
    verdict_label,
)
from schedlab.solvers.util import atomic_write_bytes, atomic_write_text, ensure_output_dir
from schedlab.theory.catalogue import KINDS, Claim, Number
from schedlab.theory.reproduction import DECIDED, OUR_READING, VERDICTS

FIGURES = "figures"
REPORT_FORMAT = 1


def _env() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    def make(autoescape: bool) -> Any:
        return Environment(
            loader=PackageLoader("schedlab.experiments.report", "templates"),
            autoescape=autoescape,
            undefined=StrictUndefined,
            trim_blocks=False,
            keep_trailing_newline=True,
        )

    return make(True), make(False)


LIKE_FOR_LIKE_ITEMS = ("workload", "metric", "baseline", "scale")


def checklist(row: ClaimRow) -> str:
    """The like-for-like checklist spelled out: "workload yes, metric ?, baseline no, scale ?"."""
    short = {"yes": "yes", "no": "no", "unknown": "?"}
    return ", ".join(
        f"{k} {short.get(row.like_for_like.get(k, ''), '?')}" for k in LIKE_FOR_LIKE_ITEMS
    )


def verdict_columns() -> list[tuple[str, str]]:
    """The summary's verdict columns (key, header): each decided word like for like, then under
    our reading, counted apart; then not comparable and missing."""
    out: list[tuple[str, str]] = []
    for v in VERDICTS:
        out.append((v, v))
        if v in DECIDED:
            out.append((f"{v} ({OUR_READING})", f"{v} ({OUR_READING})"))
    return out


def count_key(row: ClaimRow) -> str:
    """The summary column a row counts in."""
    if row.verdict in DECIDED and row.reading == OUR_READING:
        return f"{row.verdict} ({OUR_READING})"
    return row.verdict


def source_tag(source: str, width: int = 34) -> str:
    """A number's source as a short tag: its kind, the part before the first colon ("abstract",
    "authors' data", "summary (secondary)": docs/claims.md), else the source up to its first
    parenthesis, cut at a word past `width` characters (the whole source is the cell's tooltip
    and in the row's details)."""
    head = source.split(":")[0] if ":" in source else source
    if len(head) > width:
        head = head.split(" (")[0] or head
    if len(head) <= width:
        return head.strip()
    cut = head[:width].rsplit(" ", 1)[0]
    return cut.rstrip(" ,:;(") + "…"


def _number(n: Number | None, text: str, default_tag: str) -> dict[str, str]:
    if n is None:
        return {"text": text, "tag": "", "source": ""}
    return {
        "text": text,
        "tag": source_tag(n.source) if n.source else default_tag,
        "source": n.source,
    }


def _estimate_text(d: dict[str, Any], unit: str) -> dict[str, str]:
    lo, hi = d.get("low"), d.get("high")
    ci = f" [{fmt(lo)}, {fmt(hi)}]" if lo is not None and hi is not None else ""
    seeds = f"{d['seeds']} seeds" if d.get("seeds") else ""
    return {
        "value": f"{fmt(d['value'])}{ci}{(' ' + unit) if unit else ''}",
        "at": str(d["at"]) if d.get("at") not in (None, "") else "",
        "seeds": seeds,
    }


def band_text(b: Sequence[float | None] | None) -> str:
    """[low, high] with an open side as -inf / +inf ("-" without a band)."""
    if b is None:
        return "-"
    lo = "-∞" if b[0] is None else fmt(b[0])
    hi = "+∞" if b[1] is None else fmt(b[1])
    return f"[{lo}, {hi}]"


def row_view(row: ClaimRow, claim: Claim | None) -> dict[str, Any]:
    """What the table shows of one row: the decided number, the band, the verdict with its
    reading, the numbers with their source tags, the strip."""
    unit = (claim.reference[1].unit if claim and claim.reference else "") or ""
    decided = _estimate_text(row.decided, unit) if row.decided else None
    if decided is None:  # a claim check shows its result; a swept row says no point decided
        n = len(row.ours_points)
        alone = f"none decides ({n} point{'s' * (n != 1)} of ours)" if n else row.ours
        decided = {"value": alone, "at": "", "seeds": ""}
    return {
        "r": row,
        "verdict": verdict_label(row),
        "decided": decided,
        "band": band_text(
            row.band if row.band or not row.reference_band else row.reference_band[1:]
        ),
        "paper_point": paper_point_text(row.paper_point),
        "paper": _number(claim.paper_number if claim else None, row.paper_number, "paper"),
        "authors": _number(
            claim.authors_number if claim else None, row.authors_number, "authors' code"
        ),
        "strip": strip_svg(row),
        "points": [_estimate_text(p, "") for p in row.ours_points]
        if len(row.ours_points) > 1
        else [],
    }


def num(x: float | None) -> str:
    return fmt(x, 3)


def md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table_html(text: str) -> str:
    """A Markdown pipe table (as the studies write them) as an HTML table."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("|")]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    rows = [r for r in rows if not all(set(c) <= set("-: ") for c in r)]
    if not rows:
        return f"<pre>{html.escape(text)}</pre>"
    head, *body = rows
    out = ["<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in body]
    return "\n".join(out) + "</table>"


def _study_rows(data: ReportData) -> list[dict[str, Any]]:
    out = []
    for name, m in sorted(data.manifests.items(), key=lambda kv: (kv[1].get("kind", ""), kv[0])):
        cur = data.current_versions.get(name)
        fresh = "fresh" if cur and m.get("code_version") == cur else ("stale" if cur else "-")
        out.append({**m, "freshness": fresh if m.get("status") == "ok" else "missing"})
    return out


def _of(data: ReportData, m: dict[str, Any], subject: str) -> bool:
    """Whether manifest `m` is a study of `subject` run at the report's size (a folder may also
    hold another size's run of a study outside `reproduce`: not this report's)."""
    return m.get("subject") == subject and of_size(m, data.size)


def _figures(data: ReportData, subject: str, out: Path) -> list[dict[str, str]]:
    """Screen copies of the PNGs that this subject's studies wrote (written under figures/)."""
    figs = []
    for name, m in sorted(data.manifests.items()):
        if not _of(data, m, subject) or m.get("kind") != "figure":
            continue
        for f in m.get("files", []):
            path = Path(f)
            if path.suffix != ".png" or not path.is_file():
                continue
            png = screen_png(path)
            fname = f"{name}--{path.name}"
            atomic_write_bytes(out / FIGURES / fname, png)
            figs.append(
                {"study": name, "file": f, "name": fname, "data": base64.b64encode(png).decode()}
            )
    return figs


def _gap_studies() -> set[str]:
    """The figures tagged as gap studies (heuristics against the proven optimum)."""
    from schedlab.experiments.gap.report import GAP_TAG
    from schedlab.experiments.registry import figures

    return {name for name, e in figures().items() if GAP_TAG in e.tags}


def _exact_tables(data: ReportData, subject: str) -> list[dict[str, str]]:
    """The Markdown tables written by this subject's gap studies (the figures tagged `gap`):
    the report's heuristic-versus-optimum section."""
    tables, gap = [], _gap_studies()
    for name, m in sorted(data.manifests.items()):
        if not _of(data, m, subject) or name not in gap:
            continue
        for f in m.get("files", []):
            path = Path(f)
            if path.suffix == ".md" and path.is_file():
                text = path.read_text()
                tables.append({"title": name, "file": f, "md": text, "html": md_table_html(text)})
    return tables


def _forest(rows: list[ClaimRow], subject: str, title: str, size: str, out: Path) -> dict[str, str]:
    """The paper's forest plot as a screen copy under figures/ ("forest": base64 PNG, "no_forest"
    empty), or, where no row can be drawn, no picture (a stale one of an earlier report in `out`
    removed) and the sentence saying why ("forest" empty, "no_forest" the sentence)."""
    stem = out / FIGURES / f"forest-{subject}"
    caption = (
        f"{subject}: paper vs ours, size {size}; each claim with a stated number and a "
        "number of ours (reference = the paper's number, else the authors' code's)"
    )
    if not forest(rows, title, stem, caption):
        stem.with_suffix(".png").unlink(missing_ok=True)
        return {"forest": "", "no_forest": no_forest_sentence(rows)}
    screen = screen_png(stem.with_suffix(".png"))  # the report keeps screen copies only
    atomic_write_bytes(stem.with_suffix(".png"), screen)
    stem.with_suffix(".pdf").unlink(missing_ok=True)
    return {"forest": base64.b64encode(screen).decode(), "no_forest": ""}


def _papers(data: ReportData, out: Path) -> list[dict[str, Any]]:
    papers = []
    for subject, cat in data.catalogues.items():
        rows = [r for r in data.rows if r.subject == subject]
        claims = {c.id: c for c in cat.claims}
        papers.append(
            {
                "subject": subject,
                "cat": cat,
                "rows": rows,
                "views": [row_view(r, claims.get(r.claim_id)) for r in rows],
                "by_kind": Counter(r.kind for r in rows),
                "by_verdict": Counter(r.verdict for r in rows),
                "by_column": Counter(count_key(r) for r in rows),
                "stale": sum(r.freshness == "stale" for r in rows),
                **_forest(rows, subject, f"{cat.paper.title} — paper vs ours", data.size, out),
                "figures": _figures(data, subject, out),
                "exact": _exact_tables(data, subject),
                "deviations": sorted({d for r in rows for d in r.deviations}),
            }
        )
    return papers


def report_json(data: ReportData, papers: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": REPORT_FORMAT,
        "size": data.size,
        "results": str(data.results),
        "environment": data.env,
        "papers": {
            p["subject"]: {
                "title": p["cat"].paper.title,
                "citation": p["cat"].paper.citation,
                "status": p["cat"].paper.status,
                "read": [vars(s) for s in p["cat"].paper.read],
                "not_read": list(p["cat"].paper.not_read),
                "by_kind": dict(p["by_kind"]),
                "by_verdict": dict(p["by_verdict"]),
                "by_verdict_and_reading": dict(p["by_column"]),
                "figures": [vars(f) for f in p["cat"].figures],
            }
            for p in papers
        },
        "rows": [r.to_dict() for r in data.rows],
        "studies": {k: {kk: vv for kk, vv in m.items()} for k, m in data.manifests.items()},
        "skipped": data.skipped,
    }


def run_header(run: dict[str, Any], size: str) -> str:
    """The header's sentence on what computed the numbers: the run's command, commit, cells,
    wall and CPU time (from manifests/run.json), or why no one command can be named."""
    if not run.get("command") or run.get("size") != size:
        return (
            f"No run record of size {size} (manifests/run.json): the studies below were run one "
            "by one, not by one reproduction."
        )
    commit = f"commit {run['commit']}" if run.get("commit") else "an unrecorded commit"
    cpu = f", {num_s(run.get('cpu_s'))} CPU" if run.get("cpu_s") is not None else ""
    cells = f", {run['cells']:,} cells" if run.get("cells") is not None else ""
    n = run.get("studies")
    studies = "its studies" if n is None else f"{n} stud{'y' if n == 1 else 'ies'}"
    workers = f" on {run['workers']} workers" if run.get("workers") else ""
    what = (
        f"`{run['command']}` at {commit}: {studies}{cells}, {num_s(run.get('wall_s'))} wall"
        f"{cpu}{workers}, finished {run.get('finished_at') or 'at an unrecorded time'}"
    )
    if "study_names" not in run:  # a record older than the list: other studies may be shown
        return (
            f"The last reproduction recorded here was {what}; its record does not name its "
            "studies, so the numbers of every registered study in the folder are shown, "
            "whichever command wrote them."
        )
    return f"Every number and figure below was written by one command, {what}."


def num_s(x: Any) -> str:
    """Seconds as the header shows them: 1,751 s (29 min)."""
    if not isinstance(x, int | float):
        return "? s"
    return f"{x:,.0f} s" + (f" ({x / 60:.0f} min)" if x >= 120 else "")


def _attention(rows: list[ClaimRow]) -> list[dict[str, Any]]:
    """Stale or missing rows grouped by the command that regenerates them."""
    groups: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        if r.freshness != "fresh":
            groups.setdefault((r.freshness, r.command), []).append(f"{r.subject}/{r.claim_id}")
    return [{"freshness": f, "command": c, "rows": ids} for (f, c), ids in sorted(groups.items())]


def write_report(
    data: ReportData, out: Path, old: dict[str, Any] | None = None, old_name: str = ""
) -> list[Path]:
    """Write index.html, report.md, report.json (and figures/) under `out`; return the paths.
    `old`: an older report's report.json (read by `diff.read_report`): the page then lists
    what changed since it."""
    out = ensure_output_dir(Path(out))
    ensure_output_dir(out / FIGURES)
    papers = _papers(data, out)
    attention = _attention(data.rows)
    new_json = report_json(data, papers)
    changes: ReportDiff | None = diff_reports(old, new_json, old_name) if old else None
    context = {
        "size": data.size,
        "env": data.env,
        "run_header": run_header(data.run, data.size),
        "run_header_html": re.sub(
            r"`([^`]*)`", r"<code>\1</code>", html.escape(run_header(data.run, data.size))
        ),
        "run_fields": {k: v for k, v in data.run.items() if k != "study_names"},
        "results": str(data.results),
        "generated": time.strftime("%Y-%m-%d %H:%M %Z"),
        "papers": papers,
        "kinds": KINDS,
        "verdicts": VERDICTS,
        "verdict_columns": verdict_columns(),
        "colours": COLOURS,
        "attention": attention,
        "studies": _study_rows(data),
        "skipped": data.skipped,
        "checklist": checklist,
        "num": num,
        "md": md,
        "changes": changes,
        "change_lines": diff_lines(changes) if changes else [],
        "change_summary": summary_line(changes) if changes else "",
    }
    html_env, md_env = _env()
    paths = [out / "index.html", out / "report.md", out / "report.json"]
    atomic_write_text(paths[0], html_env.get_template("report.html.j2").render(**context))
    atomic_write_text(paths[1], md_env.get_template("report.md.j2").render(**context))
    atomic_write_text(paths[2], json.dumps(new_json, indent=1, default=str) + "\n")
    return paths
