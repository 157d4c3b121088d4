"""One solve verb in every subject: `schedlab <subject> solve FILE --method M`, the old verb
names kept as aliases, `-` for standard input, one JSON shape, and `--method` listing only the
methods that solve the file's problem type."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.cli_solve import methods_for
from schedlab.experiments.registry import COMMANDS
from schedlab.solvers.solve import METHODS
from schedlab.solvers.subjects import subjects
from tests.core.test_loading import SAMPLES

#: Per subject: the flags its problem needs besides the file, and the old verb names.
FLAGS = {"sojourn": ["--objective", "B"], "synergy": [], "slaq": [], "esg": []}
ALIASES = {"sojourn": [], "synergy": ["allocate"], "slaq": ["allocate"], "esg": ["plan"]}
KEYS = ["status", "value", "bound", "gap", "solution", "method", "runtime_s", "stats",
        "subject", "source", "problem", "warnings"]  # fmt: skip
DEPRECATED = {"esg": ["cost"]}


def _exact_method(subject: str, kind: str) -> str:
    """The first registered exact method of `subject` that solves problems of `kind`."""
    return next(
        e.name
        for e in METHODS.entries(scope=subject, tag="exact")
        if e.meta.get("kinds") is None or kind in e.meta["kinds"]
    )


def _case(subject: str) -> tuple[str, str, list[str]]:
    """(file text, method, flags) for the subject's first sample."""
    item = SAMPLES[subject][0]
    kind = "B" if subject == "sojourn" else item.kind  # type: ignore[attr-defined]
    return item.to_json(), _exact_method(subject, kind), FLAGS[subject]


def _invoke(args: list[str], stdin: str | None = None) -> dict:
    res = CliRunner().invoke(cli, args, input=stdin)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_every_subject_is_covered():
    assert set(FLAGS) == set(ALIASES) == set(subjects())


@pytest.mark.parametrize("subject", subjects())
def test_one_json_shape_from_a_file_and_from_stdin(tmp_path, subject):
    text, method, flags = _case(subject)
    path = tmp_path / "problem.json"
    path.write_text(text)
    a = _invoke([subject, "solve", str(path), "--method", method, *flags, "--json"])
    b = _invoke([subject, "solve", "-", "--method", method, *flags, "--json"], stdin=text)
    assert list(a) == KEYS + DEPRECATED.get(subject, [])
    assert a["subject"] == subject and a["source"] == str(path) and b["source"] == "<stdin>"
    assert a["status"] == "optimal" and a["method"] == method
    assert a["gap"] is not None and a["solution"] is not None and isinstance(a["problem"], dict)
    for key in ("status", "value", "bound", "solution", "problem"):
        assert a[key] == b[key], key
    for key in DEPRECATED.get(subject, []):
        assert a[key] == a["value"]
    for alias in ALIASES[subject]:
        c = _invoke([subject, alias, str(path), "--method", method, *flags, "--json"])
        assert {k: v for k, v in c.items() if k != "runtime_s" and k != "stats"} == {
            k: v for k, v in a.items() if k != "runtime_s" and k != "stats"
        }


def _solve_command(subject: str) -> click.Command:
    group = COMMANDS.get(subject).obj
    assert isinstance(group, click.Group)
    return group.commands["solve"]


@pytest.mark.parametrize("subject", subjects())
def test_method_lists_only_the_methods_of_the_problem_type(subject):
    cmd = _solve_command(subject)
    ctx = click.Context(cmd)
    [method] = [p for p in cmd.get_params(ctx) if p.name == "method"]
    kinds = {"sojourn": ("A", "B", "TK", "DK")}.get(subject) or {
        SAMPLES[subject][0].kind  # type: ignore[attr-defined]
    }
    listed = list(method.type.choices)  # type: ignore[attr-defined]
    if subject == "esg":
        kinds = {"chain", "dag"}
        assert not [m for m in listed if m.startswith("q_")]
        assert {"q_brute", "q_milp", "q_cpsat", "q_esg"} <= set(METHODS.names(scope="esg"))
    assert listed == [e.name for e in methods_for(subject, kinds)]
    assert set(METHODS.names(scope=subject, tag="exact")) & set(listed)


def test_a_method_of_another_problem_type_is_refused_naming_the_file(tmp_path):
    text, _, _ = _case("esg")
    path = tmp_path / "app.json"
    path.write_text(text)
    res = CliRunner().invoke(cli, ["esg", "solve", str(path), "--method", "q_milp"])
    assert res.exit_code == 2 and "q_milp" in res.output
    text, _, _ = _case("sojourn")
    path = tmp_path / "inst.json"
    path.write_text(text)
    args = ["sojourn", "solve", str(path), "--objective", "TK", "--k", "1", "--method", "milp"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and f"{path}: method: sojourn method 'milp'" in res.output
