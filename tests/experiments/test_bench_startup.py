"""bench_startup: one run of each command gives a full table row, written as CSV with --out,
the heuristic's row loading no solver library; a bad --repeats is refused by name. No timing
is asserted (the numbers are the benchmark's output, not a test)."""

from __future__ import annotations

import csv

import pytest

from schedlab.experiments.bench import bench_startup as bench
from schedlab.solvers.errors import InvalidInput


def test_one_run_each_gives_the_table_and_its_csv(tmp_path, capsys):
    out = tmp_path / "startup.csv"
    bench.run(quick=True, repeats=1, out=str(out))
    printed = capsys.readouterr().out
    assert "schedlab --help" in printed and "--method smith" in printed
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["command"] for r in rows] == [
        "schedlab --help",
        "schedlab sojourn solve (n=8) --method smith",
    ]
    for r in rows:
        assert set(r) == set(bench.HEADERS)
        assert r["runs"] == "1" and float(r["cpu_s_median"]) > 0
        assert r["verdict"] in ("ok", "over")
        assert r["libraries_loaded"] == "none"


def test_zero_repeats_is_refused_by_name():
    with pytest.raises(InvalidInput, match="--repeats: must be at least 1"):
        bench.run(quick=True, repeats=0)
