"""`schedlab sojourn simulate`: JSON output, the shipped trace, and bad input (exit 2)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli

BASE = ["sojourn", "simulate"]


def invoke(*args):
    return CliRunner().invoke(cli, [*BASE, *args], catch_exceptions=False)


def test_synthetic_json_has_the_documented_keys():
    r = invoke(
        "--workload",
        "synthetic",
        "--servers",
        "2",
        "--policy",
        "gamma",
        "--load",
        "0.8",
        "--jobs",
        "300",
        "--replications",
        "3",
        "--seed",
        "4",
        "--json",
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    for key in (
        "policy",
        "servers",
        "jobs",
        "mean_sojourn_successful",
        "mean_sojourn_all",
        "ci95_successful",
        "utilization",
        "preemptions",
        "excluded_jobs",
        "percentiles_successful",
        "runtime_s",
    ):
        assert key in out, key
    assert out["policy"] == "gamma" and out["servers"] == 2 and out["jobs"] == 300
    lo, hi = out["ci95_successful"]
    assert lo <= out["mean_sojourn_successful"] <= hi
    again = json.loads(
        invoke(
            "--workload",
            "synthetic",
            "--servers",
            "2",
            "--policy",
            "gamma",
            "--load",
            "0.8",
            "--jobs",
            "300",
            "--replications",
            "3",
            "--seed",
            "4",
            "--json",
        ).stdout
    )
    assert again["mean_sojourn_successful"] == out["mean_sojourn_successful"]


def test_philly_sample_counts_excluded_jobs():
    r = invoke(
        "--workload",
        "philly",
        "--servers",
        "8",
        "--policy",
        "fcfs",
        "--load",
        "0.7",
        "--replications",
        "2",
        "--json",
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["excluded_jobs"] == 20 and out["jobs"] == 1980
    assert abs(out["offered_load"] - 0.7) < 1e-9
    assert "excluded" in out["warnings"][0]


def test_table_output():
    r = invoke(
        "--workload",
        "synthetic",
        "--servers",
        "1",
        "--policy",
        "oracle",
        "--jobs",
        "50",
        "--replications",
        "1",
    )
    assert r.exit_code == 0 and "n/a (1 replication)" in r.output


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--workload", "synthetic", "--servers", "0", "--policy", "fcfs"], "--servers"),
        (
            ["--workload", "synthetic", "--servers", "2", "--policy", "fcfs", "--load", "-1"],
            "--load",
        ),
        (
            [
                "--workload",
                "synthetic",
                "--servers",
                "2",
                "--policy",
                "fcfs",
                "--replications",
                "0",
            ],
            "--replications",
        ),
        (
            ["--workload", "synthetic", "--servers", "2", "--policy", "fcfs", "--trace", "x.csv"],
            "--trace",
        ),
        (
            ["--workload", "philly", "--servers", "2", "--policy", "fcfs", "--trace", "nope.csv"],
            "nope.csv",
        ),
    ],
)
def test_bad_input_exits_2(args, needle):
    r = invoke(*args)
    assert r.exit_code == 2 and needle in r.stderr and r.stdout == ""


def test_bad_trace_row_exits_2_naming_file_row_field(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text(
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 07:01:55,66.0,1,66.0,a\n2017-10-09 07:01:56,66.0,two,66.0,a\n"
    )
    r = invoke("--workload", "philly", "--trace", str(p), "--servers", "2", "--policy", "fcfs")
    assert r.exit_code == 2
    assert str(p) in r.stderr and "row 3" in r.stderr and "'num_gpus'" in r.stderr


def test_unknown_policy_is_a_usage_error():
    r = invoke("--workload", "synthetic", "--servers", "2", "--policy", "lifo")
    assert r.exit_code == 2 and "lifo" in r.stderr
