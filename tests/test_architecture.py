"""The subject layout: the role table of docs/architecture.md and the import-linter contracts.

`make lint` runs the contracts themselves (lint-imports); these tests keep them complete and
the subjects alike:

- every subject package under solvers/, theory/ or experiments/ is in its folder's subject
  layer in setup.cfg (a new shared package must be declared shared here), or the layering it
  should obey goes unchecked;
- every subject has a file for every role of the table "Roles: one file name per role" in
  docs/architecture.md. The table is read from the page, so the page and the check cannot
  drift: a new role there is checked at once, and a subject lacking one fails here.

The subjects are not listed here: they are `schedlab.solvers.subjects.subjects()` (the packages
of solvers/), and every package of experiments/ and theory/ that is not shared must be one of
them, so a fifth subject is checked the moment its folders exist.
"""

from __future__ import annotations

import ast
import configparser
import re
import shutil
from pathlib import Path

import pytest

from schedlab.solvers.subjects import SHARED_PACKAGES, subjects

ROOT = Path(__file__).resolve().parents[1]
SUBJECTS = subjects()
SHARED = {
    "solvers": set(SHARED_PACKAGES),
    "theory": set(),
    "experiments": {"traces", "bench", "report", "gap"},
}
CONTRACTS = {
    "solvers": "solver-subjects",
    "theory": "theory-subjects",
    "experiments": "experiment-subjects",
}
ROLE_HEADING = "## Roles: one file name per role"


def contract_layers(name: str, root: Path = ROOT) -> list[set[str]]:
    """The layers of one import-linter contract, names without the optional parentheses."""
    cfg = configparser.ConfigParser()
    cfg.read(root / "setup.cfg")
    raw = cfg[f"importlinter:contract:{name}"]["layers"]
    return [
        {part.strip().strip("()") for part in line.split("|")} for line in raw.strip().splitlines()
    ]


def subpackages(folder: str, root: Path = ROOT) -> set[str]:
    return {p.parent.name for p in (root / folder).glob("*/__init__.py")}


def unlisted_packages(root: Path = ROOT) -> dict[str, set[str]]:
    """Per folder, the packages that are neither in its contract's subject layer nor shared."""
    out = {}
    for folder, contract in CONTRACTS.items():
        subjects = contract_layers(contract, root)[0]
        unlisted = subpackages(folder, root) - subjects - SHARED[folder]
        if unlisted:
            out[folder] = unlisted
    return out


def role_table(doc: Path = ROOT / "docs" / "architecture.md") -> dict[str, list[str]]:
    """Role -> the path patterns (alternatives) every subject must have, from the docs table."""
    text = doc.read_text(encoding="utf-8")
    assert ROLE_HEADING in text, f"{doc}: the section {ROLE_HEADING!r} is missing"
    section = text.split(ROLE_HEADING, 1)[1].split("\n## ", 1)[0]
    roles: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= {"-"} or cells[0] == "role":
            continue
        patterns = [p for p in re.findall(r"`([^`]+)`", cells[1]) if "<subject>" in p]
        assert patterns, f"{doc}: role {cells[0]!r} names no `.../<subject>/...` path"
        roles[cells[0]] = patterns
    return roles


def missing_roles(root: Path, subject: str, roles: dict[str, list[str]]) -> list[str]:
    """The roles for which `subject` has none of the alternative files under `root`."""
    return [
        role
        for role, patterns in roles.items()
        if not any(any(root.glob(p.replace("<subject>", subject))) for p in patterns)
    ]


def subject_packages(root: Path = ROOT) -> set[str]:
    """Every package of the three folders that is not shared: each must be a subject."""
    return {name for folder in CONTRACTS for name in subpackages(folder, root) - SHARED[folder]}


def test_the_subjects_are_the_packages_of_every_folder():
    assert len(SUBJECTS) >= 4, SUBJECTS
    assert subject_packages() == set(SUBJECTS), "a package outside solvers/ is no subject"


def test_every_subject_package_is_in_its_contract():
    for contract in CONTRACTS.values():
        assert set(SUBJECTS) <= contract_layers(contract)[0], contract
    unlisted = unlisted_packages()
    assert not unlisted, "; ".join(
        f"{folder}/{sorted(names)}: add to [importlinter:contract:{CONTRACTS[folder]}]"
        for folder, names in unlisted.items()
    )


def test_shared_packages_sit_below_the_subjects():
    assert contract_layers("solver-subjects")[1:] == [{"lop"}, {"kernels", "kit"}]
    assert contract_layers("experiment-subjects")[1:] == [{"traces", "gap"}]
    assert contract_layers("theory-subjects")[1:] == [
        {"claims", "reproduction"},
        {"verdict", "catalogue"},
    ]
    top = contract_layers("layers")
    assert top == [{"schedlab.experiments"}, {"schedlab.theory"}, {"schedlab.solvers"}]


def test_the_role_table_spans_the_three_folders():
    roles = role_table()
    assert len(roles) >= 10, roles
    folders = {p.split("/")[0] for patterns in roles.values() for p in patterns}
    assert folders == {"solvers", "experiments", "theory"}


@pytest.mark.parametrize("subject", sorted(subject_packages()))
def test_every_subject_has_every_role(subject):
    missing = missing_roles(ROOT, subject, role_table())
    assert not missing, f"{subject} lacks the role(s) {missing} (docs/architecture.md, Roles)"


# ---- the checks can fail -------------------------------------------------------------------
def _copy_names(subject: str, dest: Path) -> None:
    """Empty files with the names of `subject`'s files in its three folders, under `dest`."""
    for folder in CONTRACTS:
        for path in (ROOT / folder / subject).rglob("*.py"):
            target = dest / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()


def test_a_missing_role_file_is_reported(tmp_path):
    roles = role_table()
    _copy_names("esg", tmp_path)
    assert missing_roles(tmp_path, "esg", roles) == []
    (tmp_path / "experiments" / "esg" / "workloads.py").unlink()
    (tmp_path / "solvers" / "esg" / "exact_enum.py").unlink()
    for claim in (tmp_path / "theory" / "esg").glob("claim_*.py"):
        claim.unlink()
    assert missing_roles(tmp_path, "esg", roles) == [
        "exact back ends, one file each",
        "workloads",
        "claims",
    ]


def test_a_policies_package_stands_for_policies_py(tmp_path):
    roles = role_table()
    _copy_names("synergy", tmp_path)
    folder = tmp_path / "experiments" / "synergy"
    (folder / "policies.py").unlink()
    assert missing_roles(tmp_path, "synergy", roles) == ["policies"]
    (folder / "policies").mkdir()
    (folder / "policies" / "policy_fifo.py").touch()
    assert missing_roles(tmp_path, "synergy", roles) == []


def test_a_subject_outside_solvers_is_reported(tmp_path):
    for folder in CONTRACTS:
        for name in SUBJECTS:
            (tmp_path / folder / name).mkdir(parents=True)
            (tmp_path / folder / name / "__init__.py").touch()
    assert subject_packages(tmp_path) == set(SUBJECTS)
    (tmp_path / "theory" / "newsubject").mkdir()
    (tmp_path / "theory" / "newsubject" / "__init__.py").touch()
    assert subject_packages(tmp_path) == {*SUBJECTS, "newsubject"}
    assert missing_roles(tmp_path, "newsubject", role_table()) != []


def test_a_package_outside_the_contracts_is_reported(tmp_path):
    shutil.copy(ROOT / "setup.cfg", tmp_path / "setup.cfg")
    for folder in CONTRACTS:
        for name in (*SUBJECTS, *SHARED[folder]):
            (tmp_path / folder / name).mkdir(parents=True)
            (tmp_path / folder / name / "__init__.py").touch()
    assert unlisted_packages(tmp_path) == {}
    for folder in ("solvers", "theory"):
        (tmp_path / folder / "newsubject").mkdir()
        (tmp_path / folder / "newsubject" / "__init__.py").touch()
    assert unlisted_packages(tmp_path) == {"solvers": {"newsubject"}, "theory": {"newsubject"}}


# ---- code shape: back ends apart, functions that fit on a screen --------------------------
#: The longest function allowed outside the kernels (docs/architecture.md, conventions).
MAX_FUNCTION_LINES = 100
CODE_FOLDERS = ("solvers", "experiments", "theory", "tests")


#: Decorators that compile a function to a kernel (numba): written out for speed, like the
#: kernels package (a call that passes the state arrays can cost more than the work).
KERNEL_DECORATORS = {"njit", "jit", "vectorize", "guvectorize"}


def _compiled(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for d in node.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name in KERNEL_DECORATORS:
            return True
    return False


def long_functions(root: Path = ROOT, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """`path:line name (n lines)` of every function longer than `limit` lines (decorators
    excluded), in the code folders under `root`, the kernels apart (the kernels package and
    numba-compiled functions)."""
    out = []
    for folder in CODE_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root)
            if rel.parts[:2] == ("solvers", "kernels"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _compiled(node):
                    n = (node.end_lineno or node.lineno) - node.lineno + 1
                    if n > limit:
                        out.append(f"{rel}:{node.lineno} {node.name} ({n} lines)")
    return out


def sibling_back_end_imports(root: Path = ROOT) -> list[str]:
    """`module -> module` for every exact back end (`solvers/<s>/exact_*.py`, not the shared
    `exact_model`) that imports another back end of its subject: the model the back ends share
    lives in the subject's model module, the MILP/CP-SAT glue in `solvers/kit`."""
    out = []
    for path in sorted((root / "solvers").glob("*/exact_*.py")):
        subject, name = path.parent.name, path.stem
        if name == "exact_model":
            continue
        prefix = f"schedlab.solvers.{subject}."
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                mods = [node.module]
                if node.module == prefix[:-1]:
                    mods = [prefix + a.name for a in node.names]
                for mod in mods:
                    other = mod.removeprefix(prefix)
                    if mod.startswith(prefix) and other.startswith("exact_"):
                        if other not in ("exact_model", name):
                            out.append(f"{subject}.{name} -> {subject}.{other}")
    return out


def test_no_function_outside_the_kernels_is_over_100_lines():
    assert long_functions() == []


def test_no_exact_back_end_imports_another():
    assert sibling_back_end_imports() == []


def test_the_shape_checks_can_fail(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "solvers" / "demo").mkdir(parents=True)
    (tmp_path / "solvers" / "kernels").mkdir()
    (tmp_path / "solvers" / "demo" / "long.py").write_text(f"def fits():\n{body[:-12]}\n")
    (tmp_path / "solvers" / "kernels" / "k.py").write_text(f"def kernel():\n{body}\n")
    (tmp_path / "solvers" / "demo" / "fast.py").write_text(f"@njit(cache=True)\ndef k():\n{body}\n")
    assert long_functions(tmp_path) == []
    (tmp_path / "solvers" / "demo" / "long.py").write_text(f"def too_long():\n{body}\n")
    assert long_functions(tmp_path) == ["solvers/demo/long.py:1 too_long (101 lines)"]
    demo = tmp_path / "solvers" / "demo"
    (demo / "exact_milp.py").write_text("from schedlab.solvers.demo.exact_model import m\n")
    (demo / "exact_cpsat.py").write_text("from schedlab.solvers.demo import exact_model\n")
    assert sibling_back_end_imports(tmp_path) == []
    (demo / "exact_cpsat.py").write_text("from schedlab.solvers.demo.exact_milp import f\n")
    (demo / "exact_enum.py").write_text("from schedlab.solvers.demo import exact_cpsat, x\n")
    assert sibling_back_end_imports(tmp_path) == [
        "demo.exact_cpsat -> demo.exact_milp",
        "demo.exact_enum -> demo.exact_cpsat",
    ]
