"""`schedlab esg generate / plan / simulate`: JSON keys, exit codes, infeasible is exit 0."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli


@pytest.fixture
def app_file(tmp_path):
    path = tmp_path / "app.json"
    res = CliRunner().invoke(
        cli, ["esg", "generate", "--stages", "3", "--configs", "12", "--seed", "4", "-o", str(path)]
    )
    assert res.exit_code == 0, res.output
    return path


@pytest.mark.parametrize("method", ["astar", "milp", "cpsat", "brute", "greedy"])
def test_plan_json_keys(app_file, method):
    res = CliRunner().invoke(cli, ["esg", "plan", str(app_file), "--method", method, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    for key in ("status", "value", "bound", "gap", "solution", "method", "runtime_s", "stats"):
        assert key in out
    assert out["status"] == ("feasible" if method == "greedy" else "optimal")
    assert set(out["solution"]["configs"]) == {"f0", "f1", "f2"}
    assert out["solution"]["latency_ms"] <= out["problem"]["budget_ms"] + 1e-9
    assert out["cost"] == out["value"]  # the deprecated alias, kept one release


def test_exact_methods_agree_through_the_cli(app_file):
    costs = set()
    for m in ("astar", "milp", "cpsat", "brute"):
        res = CliRunner().invoke(cli, ["esg", "plan", str(app_file), "--method", m, "--json"])
        costs.add(round(json.loads(res.stdout)["cost"], 15))
    assert len(costs) == 1


def test_infeasible_budget_exits_zero(app_file):
    res = CliRunner().invoke(cli, ["esg", "plan", str(app_file), "--budget-ms", "0.5", "--json"])
    assert res.exit_code == 0
    out = json.loads(res.stdout)
    assert out["status"] == "infeasible" and out["solution"] is None


def test_bad_files_exit_two(tmp_path, app_file):
    bad = tmp_path / "bad.json"
    bad.write_text('{"slo_ms": 10, "functions": [{"id": "a", "configs": [{"batch": 0}]}]}')
    for args in (
        ["esg", "plan", str(bad)],
        ["esg", "plan", str(tmp_path / "missing.json")],
        ["esg", "plan", str(app_file), "--method", "milp", "--backend", "cpu"],
        ["esg", "plan", str(app_file), "--budget-ms", "-3"],
    ):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2, (args, res.output)
    res = CliRunner().invoke(cli, ["esg", "plan", str(bad)])
    assert "batch" in res.output and "bad.json" in res.output


def test_generate_stdout_is_an_app():
    res = CliRunner().invoke(cli, ["esg", "generate", "--stages", "4", "--shape", "dag"])
    assert res.exit_code == 0
    assert len(json.loads(res.stdout)["functions"]) == 4


@pytest.mark.parametrize("slo", [None, "12.5"])
def test_generate_measured_plans_alike_with_astar_and_brute(tmp_path, slo):
    """`--measured` writes a chain that the app reader loads and both exact planners agree on."""
    path = tmp_path / "mig.json"
    args = ["esg", "generate", "--measured", "mobilenetv2,resnet50", "-o", str(path)]
    res = CliRunner().invoke(cli, args + (["--slo-ms", slo] if slo else []))
    assert res.exit_code == 0, res.output
    app = json.loads(path.read_text())
    assert [f["id"] for f in app["functions"]] == ["f0_mobilenetv2", "f1_resnet50"]
    assert app["slo_ms"] == (float(slo) if slo else 10.0)  # 4.870 + 5.085 ms, the 30% rule
    out = {}
    for m in ("astar", "brute"):
        res = CliRunner().invoke(cli, ["esg", "plan", str(path), "--method", m, "--json"])
        assert res.exit_code == 0, res.output
        out[m] = json.loads(res.stdout)
    assert out["astar"]["status"] == out["brute"]["status"] == "optimal"
    assert out["astar"]["value"] == pytest.approx(out["brute"]["value"], rel=1e-9)


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--measured", "resnet50,alexnet"], "--measured"),
        (["--measured", "resnet50", "--stages", "3"], "--stages"),
        (["--measured", "resnet50", "--shape", "chain"], "--shape"),
        (["--measured", "resnet50", "--cpu-configs", "2"], "--cpu-configs"),
        (["--slo-ms", "30"], "--slo-ms"),
    ],
)
def test_generate_measured_refuses_unknown_models_and_other_flags(extra, named):
    res = CliRunner().invoke(cli, ["esg", "generate", *extra])
    assert res.exit_code == 2, res.output
    assert named in res.stderr
    if named == "--measured":
        assert "alexnet" in res.stderr and "bert, densenet121" in res.stderr
