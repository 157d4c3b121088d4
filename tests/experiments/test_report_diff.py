"""`schedlab report --diff OLD_DIR`: exactly the rows whose verdict, decided number, reference or
named point changed, old beside new; rows added or removed; an older report's vocabulary and
missing fields; a bad OLD_DIR refused with exit 2 naming --diff before anything is written."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.report.diff import decided_moved, diff_reports
from tests.experiments.report_fixtures import results_folder


def decided(value: float, low: float, high: float, at: str = "x=2") -> dict:
    return {"value": value, "low": low, "high": high, "at": at, "seeds": 5}


def new_row(claim_id: str, **change: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject": "s", "claim_id": claim_id, "verdict": "reproduced", "reading": "like for like",
        "decided": decided(10.0, 9.0, 11.0), "band": [8.0, 12.0], "paper_number": "10 %",
        "authors_number": "-", "reference": "paper", "source": "abstract",
        "paper_point": {"at": "x=2"},
    }  # fmt: skip
    base.update(change)
    return base


def reports() -> tuple[dict, dict]:
    """An old and a new report.json, by hand: one row per kind of change."""
    old = {"environment": {"commit": "abc123def4567890"}, "rows": [
        new_row("same"),
        new_row("verdict", verdict="inconclusive"),
        new_row("moved"),
        new_row("wobble"),
        new_row("source", source="summary"),
        new_row("authors"),
        new_row("gone"),
        # an older report: the old words, no reading, decided point, paper point or source
        {"subject": "s", "claim_id": "old-words", "verdict": "consistent in magnitude",
         "paper_number": "10 %", "authors_number": "-", "reference": "paper"},
        {"subject": "s", "claim_id": "old-same", "verdict": "reproduced",
         "paper_number": "10 %", "authors_number": "-", "reference": "paper"},
    ]}  # fmt: skip
    new = {"environment": {"commit": "fff"}, "rows": [
        new_row("same"),
        new_row("verdict", verdict="refuted"),
        new_row("moved", decided=decided(11.5, 11.2, 11.8)),  # outside the old [9, 11]
        new_row("wobble", decided=decided(10.5, 9.8, 11.2)),  # inside it, and 10 inside its own
        new_row("source"),
        new_row("authors", authors_number="1.09 x"),
        new_row("old-words"),
        new_row("old-same"),
        new_row("born"),
    ]}  # fmt: skip
    return old, new


def test_diff_lists_exactly_the_changed_rows():
    old, new = reports()
    d = diff_reports(old, new, "OLD")
    got = {r.row: [(c.aspect, c.old, c.new) for c in r.changes] for r in d.changed}
    assert got == {
        "s/verdict": [("verdict", "inconclusive", "refuted")],
        "s/moved": [("decided", "10 [9, 11] at x=2", "11.5 [11.2, 11.8] at x=2")],
        "s/source": [
            (
                "reference",
                "paper 10 %; reference: paper (summary)",
                "paper 10 %; reference: paper (abstract)",
            )
        ],
        "s/authors": [
            (
                "reference",
                "paper 10 %; reference: paper (abstract)",
                "paper 10 %; authors' 1.09 x; reference: paper (abstract)",
            )
        ],
        "s/old-words": [("verdict", "consistent in magnitude", "reproduced")],
    }
    assert (d.added, d.removed, d.unchanged) == (["s/born"], ["s/gone"], 3)
    assert d.old_commit == "abc123def4567890"


def test_reading_and_paper_point_changes_count():
    old, new = reports()
    new["rows"][0] = new_row("same", reading="our reading", paper_point={"at": "max"})
    d = diff_reports(old, new)
    aspects = [c.aspect for r in d.changed if r.row == "s/same" for c in r.changes]
    assert aspects == ["verdict", "paper point"]
    assert d.changed[0].changes[0].new == "reproduced under our reading"


@pytest.mark.parametrize(
    ("old", "new", "moved"),
    [
        (decided(10, 9, 11), decided(10.5, 9.8, 11.2), False),  # each inside the other's
        (decided(10, 9, 11), decided(11.1, 10.5, 11.5), True),  # new beyond the old interval
        (decided(10, 8, 12), decided(11, 10.8, 11.2), True),  # old beyond the new (narrower)
        (decided(10, 9, 11), decided(10, 9, 11, at="x=3"), True),  # another point
        (decided(10, 9, 11), None, True),  # no longer decided
        ({"value": 10, "low": None, "high": None, "at": ""}, {"value": 10.0, "at": ""}, False),
        ({"value": 10, "low": None, "high": None, "at": ""}, {"value": 10.01, "at": ""}, True),
    ],
)
def test_decided_moved(old, new, moved):
    assert decided_moved(old, new) is moved


# ---- the command ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """A results folder, and its report written once (the "old" report to edit)."""
    tmp = tmp_path_factory.mktemp("diff")
    res = results_folder(tmp)
    run = CliRunner().invoke(cli, ["report", "--results", str(res), "--out", str(tmp / "old")])
    assert run.exit_code == 0, run.output
    return tmp, res, json.loads((tmp / "old" / "report.json").read_text())


def test_command_lists_the_changed_row_on_stdout_and_the_page(built, tmp_path):
    _, res, report = built
    old = copy.deepcopy(report)
    row = next(r for r in old["rows"] if r["claim_id"] == "prediction-logreg-fit")
    assert row["verdict"] == "reproduced"
    row["verdict"] = "refuted"
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "report.json").write_text(json.dumps(old))
    args = ["report", "--results", str(res), "--out", str(tmp_path / "new")]
    run = CliRunner().invoke(cli, [*args, "--diff", str(tmp_path / "old"), "--json"])
    assert run.exit_code == 0, run.output
    d = json.loads(run.output)["diff"]
    assert [r["row"] for r in d["changed"]] == ["slaq/prediction-logreg-fit"]
    assert d["changed"][0]["changes"] == [
        {"aspect": "verdict", "old": "refuted", "new": "reproduced"}
    ]
    assert (d["added"], d["removed"], d["unchanged"]) == ([], [], len(report["rows"]) - 1)
    page = (tmp_path / "new" / "index.html").read_text()
    assert (
        "Changed since" in page and "slaq/prediction-logreg-fit" in page.split("Changed since")[1]
    )
    text = CliRunner().invoke(cli, [*args, "--diff", str(tmp_path / "old")])
    assert text.exit_code == 0 and "1 rows changed, 0 added, 0 removed" in text.output


def bad_dirs(tmp: Path) -> dict[str, Path]:
    out = {"missing": tmp / "nowhere", "no report.json": tmp / "empty"}
    out["no report.json"].mkdir()
    for name, body in {
        "not JSON": b"{not json",
        "not UTF-8": '{"rows": []}'.encode("utf-16"),
        "a list": b"[]",
        "rows not a list": b'{"rows": {}}',
        "row without claim_id": b'{"rows": [{"subject": "s", "verdict": "refuted"}]}',
        "row a number": b'{"rows": [3]}',
    }.items():
        (tmp / name).mkdir()
        (tmp / name / "report.json").write_bytes(body)
    (tmp / "fifo").mkdir()
    os.mkfifo(tmp / "fifo" / "report.json")
    out["a FIFO"] = tmp / "fifo"
    out.update({n: tmp / n for n in ("not JSON", "not UTF-8", "a list", "rows not a list",
                                     "row without claim_id", "row a number")})  # fmt: skip
    return out


def test_bad_diff_folder_exits_2_naming_the_flag_and_writes_nothing(built, tmp_path):
    _, res, _ = built
    for what, folder in bad_dirs(tmp_path).items():
        out = tmp_path / f"out-{what}"
        run = CliRunner().invoke(
            cli, ["report", "--results", str(res), "--out", str(out), "--diff", str(folder)]
        )
        assert run.exit_code == 2, (what, run.output)
        assert "--diff" in run.output and "Traceback" not in run.output, (what, run.output)
        assert not out.exists(), what


def test_diff_with_check_is_refused(built):
    tmp, res, _ = built
    run = CliRunner().invoke(
        cli, ["report", "--check", str(tmp / "old"), "--diff", str(tmp / "old")]
    )
    assert run.exit_code == 2 and "--diff and --check" in run.output
