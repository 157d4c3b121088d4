"""The `schedlab sojourn generate|evaluate|solve` contract: JSON output, exit codes, help."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.sojourn.cli import sojourn
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance

SOLVE_KEYS = {"status", "value", "bound", "gap", "solution", "method", "runtime_s", "problem"}


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def inst_file(tmp_path):
    path = tmp_path / "inst.json"
    generate(6, 3, max_checkpoints=2).save(path)
    return path


def test_generate_is_seeded_and_valid():
    a = run("sojourn", "generate", "--n", "5", "--seed", "7", "--max-checkpoints", "2")
    b = run("sojourn", "generate", "--n", "5", "--seed", "7", "--max-checkpoints", "2")
    assert a.exit_code == 0 and a.stdout == b.stdout
    inst = Instance.loads(a.stdout)
    assert inst.n == 5 and all(len(j.sizes) <= 3 for j in inst.jobs)
    assert inst.to_dict() == generate(5, 7, max_checkpoints=2).to_dict()


@pytest.mark.parametrize(
    ("method", "extra"),
    [
        ("dp", []),
        ("brute", []),
        ("milp", ["--solver", "cbc"]),
        ("milp", ["--solver", "highs"]),
        ("cpsat", ["--time-limit", "30"]),
        ("smith", []),
        ("local", []),
    ],
)
def test_solve_json_is_one_object_with_the_contract_keys(inst_file, method, extra):
    r = run("sojourn", "solve", str(inst_file), "--objective", "B", "--method", method, *extra)
    assert r.exit_code == 0, r.output
    r = run(
        "sojourn", "solve", str(inst_file), "--objective", "B", "--method", method, "--json", *extra
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)  # exactly one JSON document, nothing else on stdout
    assert SOLVE_KEYS <= set(out)
    assert out["method"] == method and out["problem"]["objective"] == "B"
    inst = Instance.load(inst_file)
    assert sorted(out["solution"]) == sorted(inst.ids)
    value = evaluate(inst, inst.order_from_ids(out["solution"]), Objective("B"))
    assert math.isclose(out["value"], value, rel_tol=1e-12)
    if method in ("dp", "brute", "milp", "cpsat"):
        assert out["status"] == "optimal" and out["bound"] <= out["value"]
    else:
        assert out["status"] == "feasible" and out["bound"] is None


def test_solve_tk_needs_k_and_milp_refuses_it(inst_file):
    r = run("sojourn", "solve", str(inst_file), "--objective", "TK", "--method", "dp")
    assert r.exit_code == 2 and "K" in r.stderr
    r = run("sojourn", "solve", str(inst_file), "--objective", "TK", "--k", "2", "--method", "milp")
    assert r.exit_code == 2
    assert "method 'milp' does not solve TK; it solves A, B" in r.stderr
    assert str(inst_file) in r.stderr and "Traceback" not in r.output


def test_evaluate_json_all_three_ways(inst_file):
    inst = Instance.load(inst_file)
    order = ",".join(inst.ids[::-1])
    values = {}
    for how in ("closed", "enumerate", "montecarlo"):
        r = run(
            "sojourn", "evaluate", str(inst_file), "--order", order, "--objective", "DK",
            "--k", "2", "--how", how, "--samples", "20000", "--seed", "1", "--json",
        )  # fmt: skip
        assert r.exit_code == 0, r.output
        out = json.loads(r.stdout)
        assert out["order"] == inst.ids[::-1] and out["objective"] == "DK(K=2)"
        values[how] = out
    assert math.isclose(values["closed"]["value"], values["enumerate"]["value"], rel_tol=1e-9)
    lo, hi = values["montecarlo"]["ci95"]
    assert hi - lo > 0 and abs(values["montecarlo"]["value"] - values["closed"]["value"]) < 5 * (
        hi - lo
    )


def test_bad_instance_exits_2_naming_file_job_and_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {
                "jobs": [
                    {"id": "a", "sizes": [3, 10], "probs": [0.4, 0.6]},
                    {"id": "b", "sizes": [5, 4], "probs": [0.5, 0.5]},
                    {"id": "c", "sizes": [1], "probs": [0.7]},
                ]
            }
        )
    )
    r = run("sojourn", "solve", str(path), "--objective", "A", "--method", "dp")
    assert r.exit_code == 2
    assert str(path) in r.stderr
    assert "job 'b'" in r.stderr and "'sizes'" in r.stderr
    assert "job 'c'" in r.stderr and "'probs'" in r.stderr
    assert "Traceback" not in r.output and r.stdout == ""


def test_bad_order_and_missing_file_exit_2(inst_file, tmp_path):
    r = run("sojourn", "evaluate", str(inst_file), "--order", "j0,zz", "--objective", "A")
    assert r.exit_code == 2 and "zz" in r.stderr and str(inst_file) in r.stderr
    r = run("sojourn", "solve", str(tmp_path / "nope.json"), "--objective", "A", "--method", "dp")
    assert r.exit_code == 2 and "nope.json" in r.stderr and "Traceback" not in r.output


def test_console_script_exit_code_and_stderr(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"jobs": [{"id": "x", "sizes": [1, 2], "probs": [0.5]}]}')
    proc = subprocess.run(
        [sys.executable, "-m", "schedlab.experiments.cli", "sojourn", "evaluate", str(path),
         "--order", "x", "--objective", "A", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "job 'x'" in proc.stderr and "different lengths" in proc.stderr
    assert "Traceback" not in proc.stderr


def _commands(group: click.Group, prefix: list[str]):
    for name, cmd in group.commands.items():
        yield [*prefix, name], cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, [*prefix, name])


@pytest.mark.parametrize(
    "path", [p for p, _ in _commands(sojourn, ["sojourn"])], ids=lambda p: " ".join(p)
)
def test_every_sojourn_subcommand_help_has_an_example(path):
    r = run(*path, "--help")
    assert r.exit_code == 0 and "Example" in r.stdout


def test_group_help_has_an_example():
    assert "Example" in run("sojourn", "--help").stdout
    assert "Example" in run("--help").stdout


def test_method_flags_come_from_the_registry_and_a_foreign_flag_exits_2(inst_file):
    from schedlab.experiments.sojourn.cli import OBJECTIVE_CHOICE
    from schedlab.solvers.sojourn.objectives import OBJECTIVES

    assert tuple(OBJECTIVE_CHOICE.choices) == OBJECTIVES  # kept literal so --help stays light
    base = ["sojourn", "solve", str(inst_file), "--objective", "B", "--method"]
    r = run(*base, "cpsat", "--solver", "cbc")
    assert r.exit_code == 2 and "--solver: not an option of sojourn/cpsat" in r.stderr
    r = run(*base, "smith", "--backend", "cpu")
    assert r.exit_code == 2 and "--backend: not an option of sojourn/smith" in r.stderr
    r = run(*base, "cpsat", "--num-workers", "1", "--triangles", "all", "--no-decompose", "--json")
    assert r.exit_code == 0, r.output
    stats = json.loads(r.stdout)["stats"]
    assert stats["triangles_mode"] == "all" and stats["decompose"] is False
