"""The code versions the gap study's caches are keyed on.

The static import closure of a method's modules must cover every file the method really runs:
for each subject's exact methods (and one heuristic) on a small instance, the files of every
Python function called during the solve (`sys.setprofile`) must lie in the closure that the
method's version digests. A plugin outside schedlab (a file in a temporary folder) gets a
version that follows its own file and the local files it imports.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from schedlab.experiments.codeversion import closure_files, package_root
from schedlab.experiments.gap import versions
from schedlab.experiments.gap.cells import solve_cell
from schedlab.experiments.gap.spec import GAP_FAMILIES, MethodSpec
from schedlab.experiments.gap.study import plan_cells
from schedlab.solvers.solve import METHODS


def _first_cells(subject: str) -> list[dict]:
    """The cells of the first instance of each rung of the subject's families at size tiny,
    with every exact method of the rung and the first heuristic that solves it."""
    out: dict[str, dict] = {}
    for entry in GAP_FAMILIES.entries(scope=subject):
        meta = dict(entry.meta)
        heur = METHODS.names(scope=subject, tag="heuristic")
        for rung in entry.obj("tiny"):
            specs = [MethodSpec(h) for h in heur]
            for p in plan_cells(subject, meta, [rung], specs, 0, 1):
                if p.role == "exact" or p.method.name not in out:
                    out.setdefault(p.method.name, p.key)
    return list(out.values())


def _called_files(cell: dict) -> set[Path]:
    """The files of schedlab's Python functions that run during one solve of `cell`."""
    root = package_root().resolve()
    seen: set[str] = set()

    def prof(frame, event, arg):  # noqa: ANN001 - the profiler's signature
        if event == "call":
            seen.add(frame.f_code.co_filename)

    solve_cell(cell)  # once first: registry discovery, imports and JIT are not the method's
    sys.setprofile(prof)
    try:
        solve_cell(cell)
    finally:
        sys.setprofile(None)
    files = {Path(f).resolve() for f in seen if f.endswith(".py")}
    return {f for f in files if f.is_relative_to(root) or _in_tree(f)}


def _in_tree(path: Path) -> bool:
    """A file of the checkout that src/schedlab links to (solvers/, theory/, experiments/)."""
    targets = {(package_root() / d).resolve() for d in ("solvers", "theory", "experiments")}
    return any(path.is_relative_to(t) for t in targets)


@pytest.mark.parametrize("subject", sorted(GAP_FAMILIES.scopes()))
def test_the_static_closure_covers_what_a_solve_runs(subject):
    cells = _first_cells(subject)
    assert cells, subject
    for cell in cells:
        mods = versions.closure_modules(subject, cell["method"])
        generator = cell["generator"].partition(":")[0]
        covered = {p.resolve() for p in closure_files([*mods, generator])}
        ran = _called_files(cell)
        assert ran, cell["method"]
        missing = sorted(str(p) for p in ran - covered)
        assert not missing, f"{subject}/{cell['method']}: ran files outside its closure: {missing}"


def test_the_check_can_fail():
    """A closure without the method's own module misses files the solve runs."""
    cell = _first_cells("sojourn")[0]
    ran = _called_files(cell)
    too_small = {p.resolve() for p in closure_files(["schedlab.experiments.gap.cells"])}
    assert ran - too_small


PLUGIN = """
from schedlab.solvers.solve import register_method
import {helper}


@register_method("sojourn", "{name}", exact=False, tags=("index",))
def key(inst):
    return {helper}.key(inst)
"""
HELPER = "import numpy as np\n\n\ndef key(inst):\n    return np.arange(inst.n) * {sign}\n"


def test_a_plugin_heuristic_gets_a_version_of_its_own_files(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "gap_helper_x.py").write_text(HELPER.format(sign=1))
    (tmp_path / "gap_plugin_x.py").write_text(PLUGIN.format(helper="gap_helper_x", name="px"))
    importlib.import_module("gap_plugin_x")
    try:
        v1 = versions.method_version("sojourn", "px")
        assert v1 != versions.method_version("sojourn", "smith")
        versions.plugin_version.cache_clear()
        assert versions.method_version("sojourn", "px") == v1  # unchanged files: same version
        (tmp_path / "gap_helper_x.py").write_text(HELPER.format(sign=-1))  # a local import
        versions.plugin_version.cache_clear()
        v2 = versions.method_version("sojourn", "px")
        assert v2 != v1
        (tmp_path / "unrelated_x.py").write_text("x = 1\n")  # not imported: no change
        versions.plugin_version.cache_clear()
        assert versions.method_version("sojourn", "px") == v2
    finally:
        METHODS._entries.pop(("sojourn", "px"), None)
        versions.plugin_version.cache_clear()
