"""`schedlab report` on a damaged results folder and `--check` on a tampered report.json.

Every file the report cannot use (not UTF-8, nested too deep, wrong-typed or missing fields,
a FIFO, an unreadable image, a CSV field over the csv module's limit) is skipped and listed
with its reason, never an internal error or a hang; a folder with nothing usable and a
report.json of the wrong shape exit 2 naming the file and field.
"""

from __future__ import annotations

import csv
import json
import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.studies import StudyStats
from tests.experiments.report_fixtures import SMALL_RUN, manifest, results_folder

HANG_S = 120  # a FIFO opened for reading blocks forever: fail instead of hanging


class Blocked(BaseException):
    """Raised by the alarm: not an Exception, so that no `except` in the report swallows it."""


@pytest.fixture(autouse=True)
def no_hang():
    """Turn a blocked read (a FIFO opened for reading) into a test failure."""

    def boom(*_):
        raise Blocked("blocked: the report opened a special file")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(HANG_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture(autouse=True)
def only_slaq(monkeypatch):
    """One paper's catalogue: the report is drawn once per paper, and one is enough here."""
    from schedlab.experiments.report import collect
    from schedlab.theory.catalogue import catalogues

    slaq = {"slaq": catalogues()["slaq"]}
    monkeypatch.setattr(collect, "catalogues", lambda: slaq)


def folder(tmp_path: Path) -> Path:
    """A usable results folder: a slaq-prediction table, its manifest and a run record."""
    return results_folder(tmp_path, run=SMALL_RUN)


def report(res: Path, out: Path):
    """`schedlab report --results RES --out OUT --json`: (result, report.json or None)."""
    got = CliRunner().invoke(cli, ["report", "--results", str(res), "--out", str(out), "--json"])
    data = json.loads((out / "report.json").read_text()) if got.exit_code == 0 else None
    return got, data


def skipped(data) -> dict[str, str]:
    return {Path(s["path"]).name: s["reason"] for s in data["skipped"]}


def row(data, claim_id):
    return next(r for r in data["rows"] if r["claim_id"] == claim_id)


def fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


# ---- manifests -----------------------------------------------------------------------------
BAD_MANIFESTS = {
    "not-utf8": (b'{"study": "x\xff\xfe"}', "not UTF-8"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    "kind-int": (json.dumps(manifest(study="slaq-quality", kind=3)).encode(), "kind"),
    "finished-int": (
        json.dumps(manifest(study="slaq-quality", finished_at=5)).encode(),
        "finished_at",
    ),
    "no-kind": (
        json.dumps(
            {k: v for k, v in manifest(study="slaq-quality").items() if k != "kind"}
        ).encode(),
        "kind: missing",
    ),
    "files-str": (json.dumps(manifest(study="slaq-quality", files="a.png")).encode(), "files"),
    "study-path": (json.dumps(manifest(study="../../evil")).encode(), "study"),
    "not-object": (b"[1, 2]", "not a JSON object"),
}


@pytest.mark.parametrize("case", sorted(BAD_MANIFESTS))
def test_a_bad_manifest_is_skipped_and_listed(tmp_path, case):
    content, why = BAD_MANIFESTS[case]
    res = folder(tmp_path)
    (res / "manifests" / f"{case}.json").write_bytes(content)
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert why in skipped(data)[f"{case}.json"]
    assert row(data, "prediction-logreg-fit")["verdict"] == "reproduced"  # the rest is read
    md = (tmp_path / "out" / "report.md").read_text()
    html = (tmp_path / "out" / "index.html").read_text()
    assert f"{case}.json" in md and f"{case}.json" in html


def test_a_fifo_manifest_is_skipped_not_opened(tmp_path):
    res = folder(tmp_path)
    fifo(res / "manifests" / "fifo.json")
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "not a regular file" in skipped(data)["fifo.json"]


def test_manifest_fields_cover_the_study_record():
    """Every field a study writes into its manifest is validated by type."""
    from schedlab.experiments.report.shape import MANIFEST_FIELDS

    stats = StudyStats("s", "figure", "slaq", "small", 0, "v", "t", "cmd")
    assert set(stats.to_dict()) <= set(MANIFEST_FIELDS)


def test_a_folder_with_nothing_usable_exits_2(tmp_path):
    res = tmp_path / "results"
    (res / "manifests").mkdir(parents=True)
    (res / "manifests" / "a.json").write_bytes(b"\xff\xfe")
    fifo(res / "manifests" / "b.json")
    got, _ = report(res, tmp_path / "out")
    assert got.exit_code == 2, got.output
    assert "no usable study manifest" in got.output and "a.json" in got.output
    assert "Traceback" not in got.output


# ---- run record ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "record",
    [
        '{"size": "small", "seed": "abc"}',
        '{"size": "small", "seed": null}',
        '{"size": "small", "seed": 1e400}',
        '{"size": "small", "seed": -1}',
        '{"size": "small", "seed": true}',
        '{"size": "../../x", "seed": 0}',
        '{"size": "small"}',
        '"run"',
    ],
)
def test_a_bad_run_record_is_skipped(tmp_path, record):
    res = folder(tmp_path)
    (res / "manifests" / "run.json").write_text(record)
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "run.json" in skipped(data)
    assert data["environment"]["run"] == {}
    assert row(data, "prediction-logreg-fit")["verdict"] == "reproduced"


def test_a_fifo_run_record_is_skipped_not_opened(tmp_path):
    res = folder(tmp_path)
    fifo(res / "manifests" / "run.json")
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "not a regular file" in skipped(data)["run.json"]


# ---- result files --------------------------------------------------------------------------
def test_a_csv_field_over_the_limit_is_skipped(tmp_path):
    res = folder(tmp_path)
    with (res / "slaq" / "slaq-prediction.csv").open("a", newline="") as fh:
        csv.writer(fh).writerow(["svm-poly-mnist", "x" * 200_000, ""])
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "field" in skipped(data)["slaq-prediction.csv"]
    fit = row(data, "prediction-logreg-fit")
    assert fit["verdict"] == "missing" and "slaq-prediction.csv" in fit["reason"]


def test_a_non_utf8_csv_is_skipped(tmp_path):
    res = folder(tmp_path)
    (res / "slaq" / "slaq-prediction.csv").write_bytes(b"curve,authors_fit_pct\n\xff,1\n")
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "not UTF-8" in skipped(data)["slaq-prediction.csv"]


def verify_file(res: Path, claims) -> None:
    """theory/verify-small-s0.json holding `claims` (claim 9 is slaq's greedy-concave row)."""
    (res / "theory").mkdir()
    path = res / "theory" / "verify-small-s0.json"
    path.write_text(json.dumps({"size": "small", "seed": 0, "claims": claims}))
    check = manifest(study="claim-9", kind="claim", files=[], code_version="0" * 16)
    (res / "manifests" / "claim-9.json").write_text(json.dumps(check))  # the run checked it


@pytest.mark.parametrize(
    "claims",
    [
        [{"id": "9", "verdict": "holds", "instances": "many"}],
        [{"id": "9", "verdict": "maybe", "instances": 3}],
        [{"id": ["9"], "verdict": "holds"}],
        "x",
        [3],
    ],
)
def test_a_bad_verify_file_is_skipped(tmp_path, claims):
    res = folder(tmp_path)
    verify_file(res, claims)
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "claims" in skipped(data)["verify-small-s0.json"]
    assert row(data, "greedy-concave")["verdict"] == "missing"


def test_a_good_verify_file_is_read(tmp_path):
    res = folder(tmp_path)
    verify_file(res, [{"id": "9", "verdict": "holds", "instances": 1200, "summary": "worst 0"}])
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "1,200 instances: worst 0" in row(data, "greedy-concave")["ours"]


@pytest.mark.parametrize("content", [b"", b"\x89PNG\r\n\x1a\nnot a png", b"GIF89a"])
def test_an_unreadable_figure_is_skipped(tmp_path, content):
    from PIL import Image

    res = folder(tmp_path)
    good, bad = res / "slaq" / "good.png", res / "slaq" / "bad.png"
    Image.new("RGB", (8, 8), "white").save(good)
    bad.write_bytes(content)
    m = manifest(study="slaq-quality", files=[str(bad), str(good)])
    (res / "manifests" / "slaq-quality.json").write_text(json.dumps(m))
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "image" in skipped(data)["bad.png"]
    names = {p.name for p in (tmp_path / "out" / "figures").iterdir()}
    assert "slaq-quality--good.png" in names and "slaq-quality--bad.png" not in names


def test_a_fifo_figure_or_table_is_skipped(tmp_path):
    res = folder(tmp_path)
    png, md = res / "slaq" / "f.png", res / "slaq" / "slaq-gap.md"
    fifo(png)
    md.write_bytes(b"| a |\n|---|\n| \xff |\n")  # not UTF-8; slaq-gap's tables are shown
    for study, f in (("slaq-quality", png), ("slaq-gap", md)):
        m = manifest(study=study, files=[str(f)])
        (res / "manifests" / f"{study}.json").write_text(json.dumps(m))
    got, data = report(res, tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert "not a regular file" in skipped(data)["f.png"]
    assert "not UTF-8" in skipped(data)["slaq-gap.md"]


def test_a_clean_folder_skips_nothing(tmp_path):
    got, data = report(folder(tmp_path), tmp_path / "out")
    assert got.exit_code == 0, got.output
    assert data["skipped"] == []


# ---- report --check ------------------------------------------------------------------------
def good_report(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    got, _ = report(folder(tmp_path), out)
    assert got.exit_code == 0, got.output
    return out / "report.json"


def tamper(data, case):
    if case == "rows-null":
        data["rows"] = None
    elif case == "rows-str":
        data["rows"] = "rows"
    elif case == "no-subject":
        del data["rows"][3]["subject"]
    elif case == "study-int":
        data["rows"][3]["study"] = 7
    elif case == "row-list":
        data["rows"][3] = [1]
    elif case == "top-list":
        return [data]
    elif case == "no-rows":
        del data["rows"]
    return data


CHECK_CASES = {
    "rows-null": "rows: must be a list",
    "rows-str": "rows: must be a list",
    "no-subject": "rows[3].subject: missing",
    "study-int": "rows[3].study: must be a string",
    "row-list": "rows[3]: must be an object",
    "top-list": "must be a JSON object",
    "no-rows": "rows: missing",
}


@pytest.mark.parametrize("case", sorted(CHECK_CASES))
def test_check_of_a_tampered_report_names_the_field(tmp_path, case):
    path = good_report(tmp_path)
    path.write_text(json.dumps(tamper(json.loads(path.read_text()), case)))
    got = CliRunner().invoke(cli, ["report", "--check", str(path.parent)])
    assert got.exit_code == 2, got.output
    assert "report.json" in got.output and CHECK_CASES[case] in got.output
    assert "Traceback" not in got.output


def test_check_quotes_a_short_excerpt_of_a_bad_value(tmp_path):
    path = good_report(tmp_path)
    data = json.loads(path.read_text())
    data["rows"][0]["subject"] = ["x" * 100_000]
    path.write_text(json.dumps(data))
    got = CliRunner().invoke(cli, ["report", "--check", str(path.parent)])
    assert got.exit_code == 2 and "rows[0].subject" in got.output
    assert len(got.output) < 400


@pytest.mark.parametrize("content", [b"\xff\xfe\x00", b"[" * 100_000])
def test_check_of_an_unreadable_report_exits_2(tmp_path, content):
    path = good_report(tmp_path)
    path.write_bytes(content)
    got = CliRunner().invoke(cli, ["report", "--check", str(path.parent)])
    assert got.exit_code == 2, got.output
    assert "Traceback" not in got.output


def test_check_of_a_fifo_report_exits_2_without_opening_it(tmp_path):
    path = good_report(tmp_path)
    fifo(path)
    got = CliRunner().invoke(cli, ["report", "--check", str(path.parent)])
    assert got.exit_code == 2 and "not a regular file" in got.output


def test_check_of_a_good_report_passes(tmp_path):
    path = good_report(tmp_path)
    got = CliRunner().invoke(cli, ["report", "--check", str(path.parent), "--json"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.output)["stale"] == []


def test_check_accepts_a_direction_rows_open_band(tmp_path):
    """A claim of improvement with no number is held against an open band ([0, None]): a report
    the current code writes must pass its own shape check."""
    path = good_report(tmp_path)
    data = json.loads(path.read_text())
    data["rows"][0]["band"] = [0.0, None]
    path.write_text(json.dumps(data))
    got = CliRunner().invoke(cli, ["report", "--check", str(path.parent), "--json"])
    assert got.exit_code == 0, got.output
