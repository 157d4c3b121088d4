"""`schedlab slaq allocate|predict|simulate`: JSON keys, exit codes, errors on stderr."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.solvers.slaq.generate import random_snapshot


def run(args):
    r = CliRunner().invoke(cli, args)
    return r, (json.loads(r.stdout) if r.exit_code == 0 and "--json" in args else None)


@pytest.fixture
def snap_file(tmp_path):
    p = tmp_path / "snap.json"
    random_snapshot(4, 30, 1).save(p)
    return str(p)


@pytest.mark.parametrize("method", ["greedy", "fair", "maxmin", "milp", "cpsat"])
def test_allocate_json_keys(snap_file, method):
    r, out = run(["slaq", "allocate", snap_file, "--method", method, "--json"])
    assert r.exit_code == 0, r.output
    for k in ("status", "value", "bound", "gap", "method", "runtime_s", "solution", "problem"):
        assert k in out
    assert set(out["solution"]) == {"cores", "quality"} and out["problem"]["objective"] == "sum"
    assert sum(out["solution"]["cores"].values()) == 30
    assert out["status"] == ("optimal" if method in ("milp", "cpsat") else "feasible")


def test_allocate_objective_and_exact_agree(snap_file):
    _, a = run(
        ["slaq", "allocate", snap_file, "--method", "milp", "--objective", "maxmin", "--json"]
    )
    _, b = run(
        ["slaq", "allocate", snap_file, "--method", "maxmin", "--objective", "maxmin", "--json"]
    )
    assert a["problem"]["objective"] == "maxmin" and b["value"] <= a["value"] + 1e-9


def test_allocate_bad_input_exit_2(tmp_path, snap_file):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"total_cores": 4, "jobs": [{"id": "a", "losses": []}]}))
    r, _ = run(["slaq", "allocate", str(bad), "--json"])
    assert r.exit_code == 2 and "jobs[0] (a).losses" in r.stderr and r.stdout == ""
    r, _ = run(["slaq", "allocate", snap_file, "--method", "greedy", "--solver", "cbc"])
    assert r.exit_code == 2 and "not an option of slaq/greedy" in r.stderr
    r, _ = run(["slaq", "allocate", snap_file, "--method", "nope"])
    assert r.exit_code == 2


def test_predict_json(tmp_path):
    r, out = run(["slaq", "predict", "logreg", "--ahead", "5", "--model", "auto", "--json"])
    assert r.exit_code == 0
    assert out["mean_relative_error_pct"] > 0 and out["forecast"]["family"] in (
        "inverse-poly",
        "exponential",
    )
    assert len(out["forecast"]["losses"]) == 5 and "auto:" in out["forecast"]["note"]
    assert all(p["ahead"] == 5 for p in out["predictions"])
    f = tmp_path / "c.txt"
    f.write_text("\n".join(str(0.9**k + 0.1) for k in range(30)))
    r, out = run(["slaq", "predict", str(f), "--ahead", "1", "--model", "exponential", "--json"])
    assert r.exit_code == 0 and out["mean_relative_error_pct"] < 0.1


def test_predict_bad_file_exit_2(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("1\nx\n")
    r, _ = run(["slaq", "predict", str(f), "--json"])
    assert r.exit_code == 2 and "line 2" in r.stderr


def test_simulate_json_keys():
    r, out = run(
        [
            "slaq",
            "simulate",
            "--policy",
            "fair",
            "--jobs",
            "5",
            "--cores",
            "16",
            "--seed",
            "2",
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    for k in (
        "mean_normalized_loss",
        "mean_time_to_90_s",
        "mean_time_to_95_s",
        "scheduler_ms_per_epoch",
    ):
        assert out[k] is not None and out[k] >= 0
    r, _ = run(["slaq", "simulate", "--arrival-mean", "-1"])
    assert r.exit_code == 2


def test_simulate_more_jobs_than_cores_finishes_every_job():
    """Issue 23: 10 jobs on 4 cores stopped with exit 2 naming --cores; FIFO admission now
    runs them all, and the summary says how many waited and how the predictor fell back."""
    args = ["slaq", "simulate", "--policy", "slaq", "--jobs", "10", "--cores", "4", "--json"]
    r, out = run(args)
    assert r.exit_code == 0, r.output
    assert out["finished_jobs"] == 10 and out["max_queued_jobs"] > 0
    for k in ("fits", "fallbacks_too_few_points", "fallbacks_failed_fit", "fallbacks_to"):
        assert k in out
    assert out["fits"] > 0 and out["mean_queue_wait_s"] > 0
    r, _ = run(args[:-1])
    assert r.exit_code == 0 and "fallbacks_too_few_points: " in r.stdout
    assert "max_queued_jobs: " in r.stdout


def test_simulate_model_min_cores_epoch_and_w_flags():
    """The scheduler's predictor, minimum cores, epoch and W range reach the run (config) and
    change it; a bad value is exit 2 naming the flag."""
    base = ["slaq", "simulate", "--policy", "slaq", "--jobs", "6", "--cores", "16", "--json"]
    flags = ["--model", "naive", "--min-cores", "1", "--epoch-s", "2", "--w-min", "1"]
    r, out = run([*base, *flags, "--w-max", "3"])
    assert r.exit_code == 0, r.output
    cfg = out["config"]
    assert (cfg["model"], cfg["min_cores"], cfg["epoch_s"], cfg["w_min"], cfg["w_max"]) == (
        "naive",
        1,
        2.0,
        1.0,
        3.0,
    )
    assert out["fallbacks_too_few_points"] == 0  # naive needs 2 points, new jobs are not fit
    _, default = run(base)
    assert default["mean_normalized_loss"] != out["mean_normalized_loss"]
    for bad, name in (
        (["--w-min", "5", "--w-max", "2"], "w-max"),
        (["--w-min", "0"], "--w-min"),
        (["--w-max", "1e13"], "--w-max"),
        (["--min-cores", "0"], "--min-cores"),
        (["--model", "spline"], "--model"),
        (["--epoch-s", "nan"], "--epoch-s"),
    ):
        r, _ = run([*base, *bad])
        assert r.exit_code == 2 and name in r.stderr and r.stdout == "", (bad, r.output)
