"""`schedlab report --diff OLD_DIR`: what changed between an older report's report.json and
this one, row by row (docs/claims.md, "The report").

A row is the pair (subject, claim id). A row present in both reports has changed when any of:

- **verdict**: the verdict word differs (an older report's words, such as "consistent in
  magnitude", never equal a current one), or both reports record a reading and it differs;
- **decided**: one report has a deciding point and the other none, the point is another swept
  point (`at`), or the new decided value lies outside the old decided 95% interval or the old
  value outside the new one (a point without an interval is its own interval: any move counts);
- **reference**: the paper's number, the authors' number, which of them is the reference, or
  the reference's source differs;
- **paper point**: the point named in advance (`paper_point`) differs.

A field that one of the two reports does not record (an older report has no reading, deciding
point, paper point or source) is not compared: "not recorded" is no change. Rows only in the
new report are added, rows only in the old one removed.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from schedlab.experiments.report.load import require_folder
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.validate import load_json_file

ASPECTS = ("verdict", "decided", "reference", "paper point")


@dataclass
class Change:
    """One aspect of one row that changed, with its old and new text."""

    aspect: str
    old: str
    new: str


@dataclass
class RowDiff:
    row: str  # subject/claim_id
    changes: list[Change] = field(default_factory=list)


@dataclass
class ReportDiff:
    """The rows of the new report that changed since the old one, and those added or removed."""

    old: str  # the old report's folder
    old_commit: str
    changed: list[RowDiff]
    added: list[str]
    removed: list[str]
    unchanged: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def empty(self) -> bool:
        return not (self.changed or self.added or self.removed)


# ---- reading the old report ----------------------------------------------------------------
def read_report(folder: Path, flag: str = "--diff") -> dict[str, Any]:
    """The report.json of `folder`, checked enough to compare: an object whose `rows` is a list
    of objects, each with a text `subject`, `claim_id` and `verdict`, and no two rows of the
    same subject and claim id. Anything else is an InvalidInput naming `flag`, the file and the
    field; a special file (a FIFO) is refused before it is opened (`validate.read_text_file`)."""
    folder = Path(folder)
    path = folder / "report.json"
    fix = "give the folder of a report that `schedlab report` wrote"
    require_folder(folder, flag, fix)
    try:
        data = load_json_file(path, "report.json")
    except InvalidInput as exc:
        raise InvalidInput([f"{flag}: {path}: {p}; {fix}" for p in exc.problems]) from None
    problems = _shape_problems(data)
    if problems:
        raise InvalidInput([f"{flag}: {path}: {p}" for p in problems])
    return data  # type: ignore[no-any-return]


def _shape_problems(data: Any) -> list[str]:
    """What keeps `data` from being compared (the first problems), or []."""
    if not isinstance(data, dict):
        return ["top level: must be a JSON object (is this a report.json?)"]
    rows = data.get("rows")
    if not isinstance(rows, list):
        return ["rows: must be a list of rows (is this a report.json?)"]
    problems, seen = [], set()
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            problems.append(f"rows[{i}]: must be an object")
            continue
        bad = [k for k in ("subject", "claim_id", "verdict") if not isinstance(row.get(k), str)]
        problems += [f"rows[{i}].{k}: must be a string" for k in bad]
        key = (row.get("subject"), row.get("claim_id"))
        if not bad and key in seen:
            problems.append(f"rows[{i}]: a second row {key[0]}/{key[1]}")
        seen.add(key)
        if len(problems) >= 10:
            break
    return problems[:10]


def commit_of(report: dict[str, Any]) -> str:
    """The commit a report was generated at ("" when it does not say)."""
    env = report.get("environment")
    commit = env.get("commit") if isinstance(env, dict) else None
    return commit if isinstance(commit, str) else ""


# ---- comparing -----------------------------------------------------------------------------
def _fmt(x: Any) -> str:
    return f"{x:.4g}" if isinstance(x, int | float) and not isinstance(x, bool) else "-"


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        return None
    return float(x)


def decided_text(d: Any) -> str:
    """A deciding point as the diff shows it: value [low, high] at where."""
    if not isinstance(d, dict) or _num(d.get("value")) is None:
        return "none"
    ci = f" [{_fmt(d.get('low'))}, {_fmt(d.get('high'))}]" if d.get("low") is not None else ""
    at = f" at {d['at']}" if d.get("at") not in (None, "") else ""
    return f"{_fmt(d['value'])}{ci}{at}"


def _interval(d: dict[str, Any]) -> tuple[float, float]:
    v = float(d["value"])
    lo, hi = _num(d.get("low")), _num(d.get("high"))
    return min(v, v if lo is None else lo), max(v, v if hi is None else hi)


def decided_moved(old: Any, new: Any) -> bool:
    """Whether the deciding point changed: one side has none, it is another swept point, or
    either value lies outside the other's 95% interval."""
    o = old if isinstance(old, dict) and _num(old.get("value")) is not None else None
    n = new if isinstance(new, dict) and _num(new.get("value")) is not None else None
    if o is None or n is None:
        return (o is None) != (n is None)
    if o.get("at") != n.get("at"):
        return True
    (olo, ohi), (nlo, nhi) = _interval(o), _interval(n)
    return not (olo <= n["value"] <= ohi) or not (nlo <= o["value"] <= nhi)


def verdict_text(row: dict[str, Any]) -> str:
    reading = row.get("reading")
    return f"{row['verdict']} under our reading" if reading == "our reading" else row["verdict"]


def reference_text(row: dict[str, Any]) -> str:
    """The numbers as the diff shows them: the paper's, the authors' (when there is one), which
    one is the reference, and its source."""
    text = f"paper {row.get('paper_number', '-')}"
    if row.get("authors_number") not in (None, "", "-"):
        text += f"; authors' {row['authors_number']}"
    source = f" ({row['source']})" if row.get("source") else ""
    return f"{text}; reference: {row.get('reference', 'none')}{source}"


def paper_point_text(pp: Any) -> str:
    """The point named in advance in words (or why none is)."""
    if not isinstance(pp, dict) or not pp:
        return "none named"
    if pp.get("none"):
        return f"none: {pp['none']}"
    return f"{pp.get('at') or 'the only point'}" + (f" ({pp['why']})" if pp.get("why") else "")


def row_changes(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """The aspects of one row that changed (the module's rule)."""
    out = []
    both = set(old) & set(new)
    if old["verdict"] != new["verdict"] or (
        "reading" in both and old.get("reading") != new.get("reading")
    ):
        out.append(Change("verdict", verdict_text(old), verdict_text(new)))
    if "decided" in both and decided_moved(old["decided"], new["decided"]):
        out.append(Change("decided", decided_text(old["decided"]), decided_text(new["decided"])))
    keys = [k for k in ("paper_number", "authors_number", "reference", "source") if k in both]
    if any(old[k] != new[k] for k in keys):
        out.append(Change("reference", reference_text(old), reference_text(new)))
    if "paper_point" in both and (old["paper_point"] or {}) != (new["paper_point"] or {}):
        out.append(
            Change(
                "paper point",
                paper_point_text(old["paper_point"]),
                paper_point_text(new["paper_point"]),
            )
        )
    return out


def _by_key(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{r['subject']}/{r['claim_id']}": r for r in report["rows"]}


def diff_reports(old: dict[str, Any], new: dict[str, Any], old_name: str = "") -> ReportDiff:
    """Every row of `new` that changed since `old` (both report.json objects), in the new
    report's order, and the rows added or removed."""
    o, n = _by_key(old), _by_key(new)
    changed, unchanged = [], 0
    for key, row in n.items():
        if key not in o:
            continue
        changes = row_changes(o[key], row)
        if changes:
            changed.append(RowDiff(key, changes))
        else:
            unchanged += 1
    return ReportDiff(
        old=old_name,
        old_commit=commit_of(old),
        changed=changed,
        added=[k for k in n if k not in o],
        removed=[k for k in o if k not in n],
        unchanged=unchanged,
    )


def diff_lines(d: ReportDiff) -> list[list[str]]:
    """The diff as table rows: row, what changed, old, new (added and removed rows too)."""
    rows = [[r.row, c.aspect, c.old, c.new] for r in d.changed for c in r.changes]
    rows += [[k, "added", "-", "in the new report only"] for k in d.added]
    rows += [[k, "removed", "in the old report only", "-"] for k in d.removed]
    return rows


def summary_line(d: ReportDiff) -> str:
    since = d.old_commit[:12] or "an undated report"
    return (
        f"{len(d.changed)} rows changed, {len(d.added)} added, {len(d.removed)} removed, "
        f"{d.unchanged} unchanged since {since} ({d.old})"
    )


def diff_text(d: ReportDiff) -> str:
    """The diff as `schedlab report --diff` prints it: one line per change (row, what changed,
    old -> new; rows added or removed), then a line of counts."""
    lines = [f"{r.row}  {c.aspect}: {c.old} -> {c.new}" for r in d.changed for c in r.changes]
    lines += [f"{k}  added (in the new report only)" for k in d.added]
    lines += [f"{k}  removed (in the old report only)" for k in d.removed]
    return "\n".join([*lines, summary_line(d)])


def diff_of_folder(old: dict[str, Any], old_name: str, new_dir: Path) -> ReportDiff:
    """The diff of the report just written in `new_dir` against `old`."""
    return diff_reports(old, load_json_file(Path(new_dir) / "report.json"), old_name)
