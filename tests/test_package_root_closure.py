"""The package root adds no subject to a study's code version (experiments/codeversion.py).

`import schedlab as sl` loads the four subjects' facades on first use; their types live in the
stub `__init__.pyi`, so the static import closure of one subject (what its studies' journals are
keyed on) does not grow by the other subjects' modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import schedlab
from schedlab.experiments import codeversion as cv

SUBJECTS = ("sojourn", "synergy", "slaq", "esg")


def test_package_root_imports_no_schedlab_module_statically():
    assert cv.imported_modules("schedlab", cv.package_root()) <= {"schedlab"}  # its docstring


@pytest.mark.parametrize("subject", SUBJECTS)
def test_a_subjects_closure_holds_no_other_subjects_module(subject):
    root = cv.package_root()
    closure = cv.import_closure(set(cv.subject_modules(subject)), root)
    others = {cv.subject_of_module(m, root) for m in closure} - {subject, ""}
    assert not others, f"{subject}'s closure reaches {sorted(others)}"


def test_the_stubs_public_names_are_the_package_roots():
    """`__all__` is derived from the lazy table at run time; the stub spells it out for type
    checkers, so the two lists must stay the same (a name added to one only fails here)."""
    stub = ast.parse(Path(schedlab.__file__).with_suffix(".pyi").read_text())
    listed = next(
        ast.literal_eval(node.value)
        for node in stub.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__"
    )
    assert listed == schedlab.__all__
    assert set(schedlab.__all__) == {"__version__", *schedlab._LAZY}
