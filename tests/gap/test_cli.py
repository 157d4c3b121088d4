"""`schedlab gap`: files with a `gap` column, the table, the cache counts; exit 2 on bad input."""

from __future__ import annotations

import csv

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli


def _gap(tmp_path, *args):
    return CliRunner().invoke(cli, ["gap", *args, "--out", str(tmp_path), "--workers", "1"])


def test_gap_writes_cells_summary_table_and_figure(tmp_path):
    res = _gap(tmp_path, "slaq", "--size", "tiny", "--seeds", "1")
    assert res.exit_code == 0, res.output
    d = tmp_path / "slaq"
    for name in ("gap-slaq.csv", "gap-slaq-summary.csv", "gap-slaq.md", "gap-slaq.png"):
        assert (d / name).stat().st_size > 0, name
    rows = list(csv.DictReader(open(d / "gap-slaq.csv")))
    assert rows and all("gap" in r for r in rows)
    methods = {r["method"] for r in rows if r["role"] == "method"}
    assert {"greedy", "maxmin", "fair"} <= methods  # every registered heuristic by default
    for r in rows:
        if r["proven"] == "True" and r["gap_kind"] == "relative":
            assert float(r["gap"]) >= -1e-9, r  # never better than the proven optimum
    table = (d / "gap-slaq.md").read_text()
    assert "| 4 jobs | greedy |" in table and "mean gap" in table
    assert (tmp_path / "manifests" / "gap-slaq.json").exists()


def test_methods_exact_and_family_choices(tmp_path):
    res = _gap(tmp_path, "sojourn", "--size", "tiny", "--seeds", "1", "--methods",
               "smith,tag:index", "--exact", "brute")  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(open(tmp_path / "sojourn" / "gap-sojourn.csv")))
    assert {r["method"] for r in rows if r["role"] == "exact"} == {"brute"}
    assert {"smith", "uindex", "fcfs"} <= {r["method"] for r in rows}
    res = _gap(tmp_path, "sojourn", "--list")
    assert res.exit_code == 0 and "b-large" in res.output and "* default" in res.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nosuch"], "nosuch"),
        (["sojourn", "--methods", "nosuch"], "nosuch"),
        (["sojourn", "--exact", "smith"], "not an exact"),
        (["sojourn", "--family", "nosuch"], "nosuch"),
        (["sojourn", "--methods", "split[rule"], "NAME[key=value"),
        (["sojourn", "--seeds", "0"], "--seeds"),
        (["sojourn", "--seed", "-1"], "--seed"),
    ],
)
def test_bad_input_is_exit_2_naming_it(tmp_path, args, says):
    res = _gap(tmp_path, *args, "--size", "tiny")
    assert res.exit_code == 2, res.output
    assert says in res.output
    assert not (tmp_path / "sojourn").exists() or not any((tmp_path / "sojourn").glob("*.csv"))
