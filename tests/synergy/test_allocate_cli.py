"""`schedlab synergy allocate` and `schedlab synergy snapshot`: output, exit codes, errors."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.solvers.synergy import Allocation, Snapshot, check_allocation


@pytest.fixture
def snap_file(tmp_path):
    res = CliRunner().invoke(
        cli,
        [
            "synergy",
            "snapshot",
            "--servers",
            "2",
            "--jobs",
            "8",
            "--seed",
            "3",
            "--gpu-mix",
            "multi",
        ],
    )
    assert res.exit_code == 0, res.output
    p = tmp_path / "snap.json"
    p.write_text(res.output)
    return p


def run(*args):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("method", ["proportional", "greedy", "tune", "opt", "milp", "cpsat"])
def test_allocate_json_is_one_valid_object(snap_file, method):
    res = run("synergy", "allocate", str(snap_file), "--method", method, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)  # exactly one JSON object on stdout
    snap = Snapshot.load(snap_file)
    alloc = Allocation.from_dict(out["solution"])
    assert check_allocation(snap, alloc) == []
    assert out["method"] == method and out["problem"]["jobs"] == 8
    if method in ("milp", "cpsat"):
        assert out["status"] == "optimal" and math.isclose(out["value"], out["bound"])
    else:
        assert out["status"] == "feasible"


def test_allocate_table_and_exact_agree(snap_file):
    res = run("synergy", "allocate", str(snap_file), "--method", "tune")
    assert res.exit_code == 0 and "total_tput" in res.output and "cpus/gpu" in res.output
    a = json.loads(
        run(
            "synergy", "allocate", str(snap_file), "--method", "milp", "--solver", "cbc", "--json"
        ).stdout
    )
    b = json.loads(run("synergy", "allocate", str(snap_file), "--method", "cpsat", "--json").stdout)
    assert math.isclose(a["value"], b["value"], rel_tol=1e-9)


def test_bad_snapshot_exits_2_naming_file_job_and_field(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"jobs": [{"id": "x1", "model": "res18", "gpus": "two"}]}))
    res = run("synergy", "allocate", str(p), "--method", "tune")
    assert res.exit_code == 2
    assert str(p) in res.stderr and "job 'x1'" in res.stderr and "'gpus'" in res.stderr
    assert "Traceback" not in res.output


def test_missing_file_and_bad_json_exit_2(tmp_path):
    res = run("synergy", "allocate", str(tmp_path / "none.json"), "--method", "tune")
    assert res.exit_code == 2 and "cannot read snapshot file" in res.stderr
    p = tmp_path / "b.json"
    p.write_text("[1,")
    res = run("synergy", "allocate", str(p), "--method", "tune")
    assert res.exit_code == 2 and "not valid JSON" in res.stderr


def test_enum_too_large_is_a_clear_error(tmp_path):
    p = tmp_path / "big.json"
    p.write_text(run("synergy", "snapshot", "--servers", "8", "--jobs", "30", "--seed", "1").stdout)
    res = run("synergy", "allocate", str(p), "--method", "enum")
    assert res.exit_code == 2 and "too large for enumeration" in res.stderr


def test_help_shows_example_and_format():
    res = run("synergy", "allocate", "--help")
    assert res.exit_code == 0
    assert "Example:" in res.output and '"cluster"' in res.output and "remaining_s" in res.output
