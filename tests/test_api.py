"""The public API (`import schedlab as sl`, docs/api.md): one shape per subject, a cheap
import, refusals that say how to build a problem, results that print and convert."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import schedlab as sl
from schedlab.solvers.api import Result
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, Status

SUBJECTS = ("sojourn", "synergy", "slaq", "esg")
HEAVY = ("pulp", "ortools", "numba", "highspy")


def _loaded_after(code: str) -> list[str]:
    """Which of HEAVY (and schedlab's solve modules) a fresh interpreter has after `code`."""
    probe = (
        f"import sys, json\n{code}\n"
        f"print(json.dumps([m for m in {[*HEAVY, 'schedlab.solvers.solve']!r} "
        "if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


def test_import_schedlab_loads_no_solver():
    assert _loaded_after("import schedlab; schedlab.__version__") == []


def test_the_api_loads_on_first_use_without_the_milp_and_cp_libraries():
    loaded = _loaded_after("import schedlab as sl; sl.solve; sl.sojourn; sl.slaq; sl.esg")
    assert "pulp" not in loaded and "ortools" not in loaded


def test_the_subjects_are_the_solver_packages():
    assert set(sl.subjects()) == set(SUBJECTS)
    assert {"solve", "methods", "Result", *SUBJECTS} <= set(dir(sl))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = sl.nope  # type: ignore[attr-defined]


@pytest.mark.parametrize("subject", SUBJECTS)
def test_generate_takes_keywords_with_defaults_but_the_seed(subject):
    params = inspect.signature(getattr(sl, subject).generate).parameters.values()
    assert all(p.kind is p.KEYWORD_ONLY for p in params)
    assert [p.name for p in params if p.default is p.empty] == ["seed"]
    if subject != "esg":  # ESG's sizes are stages and configurations, not jobs
        assert "jobs" in {p.name for p in params}


@pytest.mark.parametrize("subject", SUBJECTS)
def test_a_generated_problem_is_seeded_and_solved_as_it_is(subject):
    facade = getattr(sl, subject)
    problem = facade.generate(seed=1)
    assert _as_dict(problem) == _as_dict(facade.generate(seed=1))
    assert _as_dict(problem) != _as_dict(facade.generate(seed=2))
    heuristic = sl.methods(problem, exact=False)[0]
    res = sl.solve(problem, heuristic, seed=0)
    assert isinstance(res, Result) and isinstance(res, SolveResult)
    assert res.has_solution and (res.subject, res.sense) == (subject, facade.SENSE)
    assert res.objective == facade.objective(problem)


def _as_dict(problem):
    inner = getattr(problem, "instance", problem)
    return inner.to_dict()


#: Each subject's command that writes a generated file, and the same problem from Python.
CLI_FILES = {
    "sojourn": ("sojourn generate --n 5 --seed 3", {"jobs": 5}),
    "synergy": ("synergy snapshot --servers 2 --jobs 5 --seed 3", {"jobs": 5, "servers": 2}),
    "slaq": ("slaq snapshot --jobs 5 --cores 20 --seed 3", {"jobs": 5, "cores": 20}),
    "esg": ("esg generate --stages 3 --configs 4 --seed 3", {"stages": 3, "configs": 4}),
}


@pytest.mark.parametrize("subject", SUBJECTS)
def test_load_reads_the_command_lines_file_and_solves_as_the_command_line(subject, tmp_path):
    from schedlab.experiments.cli import cli

    args, sizes = CLI_FILES[subject]
    made = CliRunner().invoke(cli, args.split(), catch_exceptions=False)
    path = tmp_path / f"{subject}.json"
    path.write_text(made.output)
    facade = getattr(sl, subject)
    problem = facade.load(path)
    assert _as_dict(problem) == _as_dict(facade.generate(seed=3, **sizes))
    method = sl.methods(problem, exact=True)[0]
    solve_args = [subject, "solve", str(path), "--method", method, "--json"]
    if subject == "sojourn":
        solve_args += ["--objective", "B"]
    shown = json.loads(CliRunner().invoke(cli, solve_args, catch_exceptions=False).output)
    res = sl.solve(problem, method)
    assert (res.status.value, res.value) == (shown["status"], pytest.approx(shown["value"]))


def test_sojourn_defaults_and_its_objective_named_in_the_result():
    problem = sl.sojourn.generate(seed=1)
    assert (problem.instance.n, problem.objective.label) == (8, "B")
    same = sl.sojourn.generate(n=8, seed=1, objective="B")
    assert same == problem == sl.sojourn.generate(jobs=8, seed=1)
    with pytest.raises(TypeError, match="jobs= or n="):
        sl.sojourn.generate(jobs=5, n=5, seed=1)
    tk = sl.sojourn.generate(jobs=5, seed=1, objective="TK", k=2)
    res = sl.solve(tk, "dp")
    assert res.objective == "TK(K=2)" and "sojourn TK(K=2) (min) by dp: optimal" in str(res)
    assert "milp" not in sl.methods(tk) and "milp" in sl.methods(problem)


def test_the_other_subjects_defaults():
    assert (sl.synergy.generate(seed=1).n, sl.synergy.generate(seed=1).cluster.servers) == (8, 2)
    slaq = sl.slaq.generate(seed=1)
    assert (len(slaq.jobs), slaq.total_cores, slaq.objective) == (8, 32, "sum")
    esg = sl.esg.generate(seed=1)
    assert (len(esg.functions), esg.kind, esg.budget) == (4, "chain", esg.slo_ms)
    assert sl.esg.generate(seed=1, budget_ms=50).budget == 50


def test_load_takes_the_command_lines_options(tmp_path):
    sl.slaq.generate(seed=1).save(tmp_path / "s.json")
    assert sl.slaq.load(tmp_path / "s.json").objective == "sum"
    assert sl.slaq.load(tmp_path / "s.json", objective="maxmin").objective == "maxmin"
    sl.esg.generate(seed=1).save(tmp_path / "a.json")
    assert sl.esg.load(tmp_path / "a.json", budget_ms=75.0).budget == 75.0
    bad = tmp_path / "bad.json"
    bad.write_text('{"jobs": []}')
    with pytest.raises(InvalidInput, match="bad.json"):
        sl.sojourn.load(bad)


def test_a_bad_seed_or_size_is_a_value_error_naming_the_argument():
    with pytest.raises(InvalidInput, match="seed"):
        sl.synergy.generate(seed=-1)
    with pytest.raises(InvalidInput, match="jobs"):
        sl.slaq.generate(jobs=0, seed=1)
    with pytest.raises(TypeError, match="seed"):
        sl.esg.generate()  # type: ignore[call-arg]


# ---- wrong objects --------------------------------------------------------------------------
class NotAProblem:
    pass


class OtherSubject:
    subject = "chess"
    kind = "mate"


@pytest.mark.parametrize(
    ("thing", "error", "says"),
    [
        (lambda: sl.sojourn.generate(seed=1).instance, TypeError, r"sojourn\.problem\(instance"),
        (lambda: "inst.json", TypeError, r"load the file first: schedlab\.<subject>\.load"),
        (lambda: Path("inst.json"), TypeError, "load the file first"),
        (lambda: sl.synergy.Snapshot, TypeError, "the class Snapshot, not a problem"),
        (lambda: {"jobs": []}, TypeError, r"a dict is not a problem .*generate\(seed=\.\.\.\)"),
        (lambda: None, TypeError, "a NoneType is not a problem"),
        (lambda: NotAProblem(), TypeError, "no `subject`"),
        (lambda: OtherSubject(), ValueError, "'chess', which is none of esg, slaq"),
    ],
)
def test_a_wrong_object_is_refused_saying_how_to_build_a_problem(thing, error, says):
    with pytest.raises(error, match=says):
        sl.solve(thing(), "dp")


def test_a_wrong_method_is_refused_naming_the_choices():
    problem = sl.esg.generate(seed=1)
    with pytest.raises(TypeError, match="method's name"):
        sl.solve(problem, sl.solve)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="astar"):
        sl.solve(problem, "nope")
    with pytest.raises(ValueError, match="solves A, B"):
        sl.solve(sl.sojourn.generate(seed=1, objective="DK", k=2), "milp")
    with pytest.raises(ValueError, match="unknown subject 'chess'"):
        sl.methods("chess")


# ---- results --------------------------------------------------------------------------------
def _result(value, bound, sense="min", **kw):
    status = Status.OPTIMAL if bound == value else Status.FEASIBLE
    base = {"solution": None, "method": "m", "runtime_s": 0.25, "stats": {"nodes": 3}}
    base.update(kw)
    return Result(status, value, bound, subject="s", objective="o", sense=sense, **base)


def test_a_result_prints_as_one_line_without_none():
    line = str(_result(2.5, None))
    assert line == "s o (min) by m: feasible, value 2.5, 0.25 s"
    assert str(_result(2.5, 2.5)).endswith("value 2.5, bound 2.5, 0.25 s")
    empty = _result(None, None)
    assert "None" not in str(empty) and "no solution" in str(empty)
    assert repr(_result(2.5, None)) == f"<Result {line}>"


def test_gap_to_is_how_much_worse_in_the_results_sense():
    assert _result(11.0, None).gap_to(_result(10.0, 10.0)) == pytest.approx(0.1)
    assert _result(9.0, None, "max").gap_to(_result(10.0, 10.0, "max")) == pytest.approx(0.1)
    assert _result(None, None).gap_to(_result(10.0, 10.0)) is None


def test_to_dict_is_the_solve_verbs_json_plus_what_was_solved():
    res = sl.solve(sl.sojourn.generate(jobs=4, seed=1), "smith")
    d = json.loads(json.dumps(res.to_dict()))
    assert d["solution"] == list(res.solution) and d["status"] == "feasible"
    assert (d["subject"], d["objective"], d["sense"]) == ("sojourn", "B", "min")
    assert set(SolveResult.to_dict(res)) < set(d)


def test_to_frame_is_one_row_with_the_scalar_stats():
    pd = pytest.importorskip("pandas")
    frame = _result(2.5, 2.5, stats={"nodes": 3, "list": [1]}).to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 1
    row = frame.iloc[0]
    assert (row["value"], row["status"], row["stats.nodes"], row["sense"]) == (
        2.5,
        "optimal",
        3,
        "min",
    )
    assert "solution" not in frame.columns and "stats.list" not in frame.columns


def test_to_frame_without_pandas_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        _result(2.5, None).to_frame()
