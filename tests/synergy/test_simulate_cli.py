"""`schedlab synergy simulate`: JSON contract, human output, files, and exit 2 on bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from schedlab.experiments.cli import cli


def run(args: list[str]):
    return CliRunner().invoke(cli, ["synergy", "simulate", *args])


def test_json_on_a_trace_replay() -> None:
    res = run(["--workload", "dynamic-100job", "--policy", "srtf", "--alloc", "tune", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)  # exactly one JSON object on stdout
    for key in ("mean_jct_h", "median_jct_h", "p99_jct_h", "makespan_h", "jobs_measured"):
        assert isinstance(d[key], float | int)
    assert d["runtime_s"] >= 0 and d["jobs_measured"] == 100 and d["servers"] == 4
    assert d["p99_jct_h"] >= d["median_jct_h"] > 0


def test_synthetic_small_run_with_files(tmp_path: Path) -> None:
    jobs_csv, util_csv = tmp_path / "jobs.csv", tmp_path / "util.csv"
    args = ["--policy", "fifo", "--alloc", "greedy", "--load", "1", "--servers", "2"]
    args += ["--jobs", "120", "--seed", "3", "--jobs-csv", str(jobs_csv)]
    res = run([*args, "--util-csv", str(util_csv), "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["window"] == [48, 96] and d["jobs_measured"] == 48
    assert d["makespan_h"] is None  # an open synthetic run stops with its window
    rows = list(csv.DictReader(jobs_csv.open()))
    assert len(rows) == d["jobs_arrived"]
    assert len(list(csv.DictReader(util_csv.open()))) == d["rounds"]
    again = run([*args, "--util-csv", str(util_csv), "--json"])
    assert json.loads(again.stdout)["mean_jct_h"] == d["mean_jct_h"]


def test_human_output_and_static_trace(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text("0,res18,5,1000,1\n1,gnmt,7,2000,2\n")
    res = run(["--trace", str(trace), "--static", "--policy", "fifo", "--alloc", "proportional"])
    assert res.exit_code == 0, res.output
    assert "mean_jct_h" in res.stdout and "makespan_h" in res.stdout


def test_bad_trace_exits_2_naming_file_row_field(tmp_path: Path) -> None:
    trace = tmp_path / "bad.csv"
    trace.write_text("0,res18,0,1000,1\n1,res18,0,1000,two\n")
    res = run(["--trace", str(trace), "--policy", "fifo", "--alloc", "tune"])
    assert res.exit_code == 2
    assert str(trace) in res.stderr and "row 2" in res.stderr and "gpu_demand" in res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""


def test_usage_errors_exit_2() -> None:
    static_synth = run(["--static", "--policy", "fifo", "--alloc", "tune"])
    assert static_synth.exit_code == 2 and "--static" in static_synth.stderr
    bad_load = run(["--load", "0", "--policy", "fifo", "--alloc", "tune"])
    assert bad_load.exit_code == 2 and "--load" in bad_load.stderr
    bad_window = run(["--window", "9:3", "--policy", "fifo", "--alloc", "tune"])
    assert bad_window.exit_code == 2 and "--window" in bad_window.stderr
    assert run(["--policy", "nope", "--alloc", "tune"]).exit_code == 2
    both = run(
        ["--workload", "static-100job", "--trace", "x.csv", "--policy", "fifo", "--alloc", "tune"]
    )
    assert both.exit_code == 2 and "--trace" in both.stderr
    missing = run(
        ["--workload", "philly", "--trace", "/no/such.csv", "--policy", "fifo", "--alloc", "tune"]
    )
    assert missing.exit_code == 2 and "/no/such.csv" in missing.stderr
    assert "file not found" in missing.stderr


def test_workloads_come_from_the_registry_and_check_their_flags() -> None:
    from schedlab.experiments.registry import WORKLOADS

    names = WORKLOADS.names(scope="synergy")
    assert names[:2] == ["philly-derived", "multi-gpu"]
    assert {"philly", "trace", "static-100job", "dynamic-100job"} <= set(names)
    assert WORKLOADS.names(scope="synergy", tag="synthetic") == ["philly-derived", "multi-gpu"]
    no_file = run(["--workload", "trace", "--policy", "fifo", "--alloc", "tune"])
    assert no_file.exit_code == 2 and "needs a trace file" in no_file.stderr
    static_philly = run(["--workload", "philly", "--static", "--policy", "fifo", "--alloc", "tune"])
    assert static_philly.exit_code == 2 and "--static" in static_philly.stderr
