"""A heuristic's path loads no MILP, CP-SAT or JIT library: method discovery is lazy.

Listing or picking a method imports only the modules that register methods, of the chosen
subject's package alone (`Registry(mentions=..., scope_package=...)`), and those modules import
PuLP, HiGHS, OR-Tools and numba inside the functions that use them. The checks run in fresh
processes, since this test session has long imported every solver. No timing here: the CPU
time of the commands is `python -m schedlab.experiments.bench startup`'s business.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.registry import Registry
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.solve import METHODS
from schedlab.solvers.subjects import subjects

#: What a heuristic does not use: the MILP modeller and solver, CP-SAT and the JIT compiler.
HEAVY = ("pulp", "highspy", "ortools", "numba")

LOADED = "import json, sys; print(json.dumps(sorted(m for m in {heavy} if m in sys.modules)))"


def _run(code: str) -> str:
    """stdout of `code` in a fresh interpreter (asserting it exits 0)."""
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def test_a_heuristic_solve_on_the_command_line_loads_no_solver_library(tmp_path):
    inst = tmp_path / "inst.json"
    inst.write_text(json.dumps(generate(8, 1).to_dict()))
    out = tmp_path / "loaded.json"
    code = textwrap.dedent(
        f"""
        import json, sys
        from schedlab.experiments.cli import main
        try:
            main(["sojourn", "solve", {str(inst)!r}, "--objective", "B", "--method", "smith",
                  "--json"])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
        with open({str(out)!r}, "w") as f:
            json.dump(sorted(m for m in {HEAVY!r} if m in sys.modules), f)
        """
    )
    _run(code)
    assert json.loads(out.read_text()) == []


@pytest.mark.parametrize("subject", subjects())
def test_listing_and_picking_a_subjects_methods_loads_no_solver_library(subject):
    heuristic = METHODS.names(scope=subject, tag="heuristic")[0]
    code = textwrap.dedent(
        f"""
        from schedlab.solvers.solve import METHODS, method_spec
        METHODS.names(scope={subject!r})
        method_spec({subject!r}, {heuristic!r})
        """
    )
    assert json.loads(_run(code + LOADED.format(heavy=HEAVY))) == []


def test_every_method_is_defined_in_its_subjects_package():
    """What makes discovering one subject's package enough for a lookup in that subject."""
    for e in METHODS.entries():
        module = getattr(e.obj, "__module__", "") or ""
        if module.startswith("schedlab."):  # plugins (tests' toy methods) may live anywhere
            assert module.startswith(f"schedlab.solvers.{e.scope}."), (e.key, module)


def test_one_subjects_discovery_gives_its_methods_in_the_full_discoverys_order():
    show = "print(json.dumps([e.key for e in METHODS.entries({arg})]))"
    head = "import json\nfrom schedlab.solvers.solve import METHODS\n"
    full = json.loads(_run(head + show.format(arg="")))
    scopes = sorted({*subjects(), "lop"})  # the subjects and the linear-ordering engine
    assert sorted({k.split("/")[0] for k in full}) == scopes
    for subject in scopes:
        scoped_then_full = _run(
            head + show.format(arg=f"scope={subject!r}") + "\n" + show.format(arg="")
        ).splitlines()
        assert json.loads(scoped_then_full[0]) == [k for k in full if k.startswith(subject + "/")]
        assert json.loads(scoped_then_full[1]) == full  # the same order, whatever loaded first


def _package(tmp_path, name: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = tmp_path / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


REG_MODULE = """
from schedlab.solvers.registry import Registry
REG = Registry("thing", packages=("lazypkg",), skip=("lazypkg.reg",), mentions=("REG.add",),
               scope_package="lazypkg.{scope}")
"""
REGISTER = "from lazypkg.reg import REG\nREG.add({0!r}, {1}, scope={2!r})\n"
BOOM = "raise RuntimeError('must not be imported')\n"


@pytest.fixture
def lazypkg(tmp_path, monkeypatch):
    """A package with scopes `s1` and `s2`, a module that registers nothing and must never be
    imported, and a module of `s2` that fails if imported for a lookup in `s1`."""
    _package(
        tmp_path,
        "lazypkg",
        {
            "__init__.py": "",
            "reg.py": REG_MODULE,
            "s1/__init__.py": "",
            "s1/b_first.py": REGISTER.format("b", 1, "s1"),
            "s1/a_second.py": REGISTER.format("a", 2, "s1"),
            "s1/heavy.py": BOOM,
            "s2/__init__.py": "",
            "s2/c.py": "import lazypkg.s2.flag\n" + REGISTER.format("c", 3, "s2"),
            "s2/flag.py": "",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.split(".")[0] == "lazypkg"]:
        monkeypatch.delitem(sys.modules, name)
    from lazypkg.reg import REG  # type: ignore[import-not-found]

    reg: Registry[int] = REG
    return reg


def test_a_lookup_in_one_scope_imports_that_scope_only(lazypkg):
    assert lazypkg.get("b", scope="s1").obj == 1
    assert lazypkg.names(scope="s1") == ["a", "b"]  # walk order: a_second.py, b_first.py
    assert "lazypkg.s2.flag" not in sys.modules
    assert "lazypkg.s1.heavy" not in sys.modules  # names no registering decorator


def test_every_scope_is_listed_grouped_whatever_loaded_first(lazypkg):
    lazypkg.names(scope="s2")
    assert [e.key for e in lazypkg.entries()] == ["s1/a", "s1/b", "s2/c"]
    assert lazypkg.scopes() == ["s1", "s2"]


def test_an_unknown_name_or_scope_still_lists_every_choice(lazypkg):
    with pytest.raises(InvalidInput, match=r"unknown s1 thing 'zzz'; choose one of: a, b$"):
        lazypkg.get("zzz", scope="s1")
    with pytest.raises(InvalidInput, match=r"unknown nope thing 'a'; choose one of: \(none\)"):
        lazypkg.get("a", scope="nope")
    assert ("s2", "c") in lazypkg and ("s3", "c") not in lazypkg


def test_a_subjects_verb_imports_no_other_subjects_commands(tmp_path):
    others = [f"schedlab.experiments.{s}.cli" for s in subjects() if s != "sojourn"]
    code = textwrap.dedent(
        f"""
        import json, sys
        from schedlab.experiments.cli import main
        try:
            main(["sojourn", "solve", "--help"])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
        with open({str(tmp_path / "loaded.json")!r}, "w") as f:
            json.dump(sorted(m for m in {others!r} if m in sys.modules), f)
        """
    )
    _run(code)
    assert json.loads((tmp_path / "loaded.json").read_text()) == []


def test_find_imports_the_hinted_module_first_and_falls_back_to_everything(lazypkg):
    entry = lazypkg.find("c", scope="s2", hint="REG.add('c'")
    assert entry is not None and entry.obj == 3
    assert "lazypkg.s1.b_first" not in sys.modules  # the hint spared the full discovery
    assert lazypkg.find("a", scope="s1", hint="no module says this").obj == 2  # full discovery
    assert lazypkg.find("zzz", hint="REG.add('zzz'") is None
