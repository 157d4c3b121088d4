"""The subject layout: the role table of docs/architecture.md and the import-linter contracts.

`make lint` runs the contracts themselves (lint-imports); these tests keep them complete and
the subjects alike:

- the imports go one way: no import cycle among the modules of `schedlab`, counting the
  imports inside functions and under TYPE_CHECKING (grimp sees all of them), so a module never
  imports its own consumer; and every module sits on a floor of the drawing in
  docs/architecture.md ("Layers: floors, and arrows one way"), importing nothing above it;

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
import fnmatch
import re
import shutil
from pathlib import Path

import grimp
import networkx as nx
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


#: The longest class allowed (issue 61: one concept per class).
MAX_CLASS_LINES = 300


def long_classes(root: Path = ROOT, limit: int = MAX_CLASS_LINES) -> list[str]:
    """`path:line name (n lines)` of every class longer than `limit` lines in the code folders
    under `root`, decorators excluded."""
    out = []
    for folder in CODE_FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
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


def test_no_class_is_over_300_lines():
    assert long_classes() == []


def test_the_class_check_can_fail(tmp_path):
    (tmp_path / "solvers" / "demo").mkdir(parents=True)
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_CLASS_LINES))
    (tmp_path / "solvers" / "demo" / "ok.py").write_text(f"class Fits:\n{body[:-12]}\n")
    assert long_classes(tmp_path) == []
    (tmp_path / "solvers" / "demo" / "big.py").write_text(f"class TooLong:\n{body}\n")
    assert long_classes(tmp_path) == ["solvers/demo/big.py:1 TooLong (301 lines)"]


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


# ---- arrows one way: no import cycle --------------------------------------------------------
def import_cycles(package: str = "schedlab") -> list[list[str]]:
    """Every import cycle among `package`'s modules, as the sorted modules of each strongly
    connected component of the import graph (a module importing itself is one too). The graph
    is grimp's: imports at module level, inside functions and under TYPE_CHECKING alike."""
    graph = grimp.build_graph(package, cache_dir=None)
    g = nx.DiGraph()
    g.add_edges_from(
        (m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m)
    )
    return sorted(
        sorted(c)
        for c in nx.strongly_connected_components(g)
        if len(c) > 1 or g.has_edge(next(iter(c)), next(iter(c)))
    )


def describe_cycle(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    """The imports that close `cycle`, one per line: `a -> b (line n)`."""
    lines = [f"cycle of {len(cycle)}: {', '.join(cycle)}"]
    for a in cycle:
        for b in cycle:
            for d in graph.get_import_details(importer=a, imported=b):
                lines.append(f"  {a} -> {b} (line {d['line_number']}: {d['line_contents']})")
    return "\n".join(lines)


def test_no_import_cycle():
    cycles = import_cycles()
    if cycles:
        graph = grimp.build_graph("schedlab", cache_dir=None)
        text = "\n".join(describe_cycle(graph, c) for c in cycles)
        pytest.fail(f"{len(cycles)} import cycle(s); move the shared piece below both:\n{text}")


def test_an_import_cycle_is_found(tmp_path, monkeypatch):
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").touch()
    (pkg / "low.py").write_text("X = 1\n")
    (pkg / "a.py").write_text("from cyclepkg.low import X\n")
    (pkg / "b.py").write_text("def f():\n    from cyclepkg.a import X\n    return X\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclepkg") == []
    (pkg / "a.py").write_text("from cyclepkg.low import X\nimport cyclepkg.b\n")
    (pkg / "low.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                "    import cyclepkg.low\nX = 1\n")  # fmt: skip
    assert import_cycles("cyclepkg") == [["cyclepkg.a", "cyclepkg.b"], ["cyclepkg.low"]]


# ---- the floors of docs/architecture.md ----------------------------------------------------
LAYERS_HEADING = "## Layers: floors, and arrows one way"
FOLDERS = ("experiments", "theory", "solvers")


def floor_drawing(doc: Path = ROOT / "docs" / "architecture.md") -> dict[str, list[list[str]]]:
    """Folder -> its floors, top first, each the names on its line (`a, b` or `a | b`), read
    from the first code block of the Layers section (the description after two spaces)."""
    text = doc.read_text(encoding="utf-8")
    assert LAYERS_HEADING in text, f"{doc}: the section {LAYERS_HEADING!r} is missing"
    block = text.split(LAYERS_HEADING, 1)[1].split("```", 2)[1]
    floors: dict[str, list[list[str]]] = {}
    folder = ""
    for line in block.splitlines():
        left = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        if left in ("", "|", "v"):
            continue
        if left.startswith("schedlab."):
            folder = left.removeprefix("schedlab.")
            floors[folder] = []
            continue
        floors[folder].append([n.strip().replace("/", ".") for n in re.split(r"[,|]", left)])
    return floors


def _rank(module: str, name: str) -> int:
    """How specifically `name` names `module` (dotted, below its folder): 0 not at all."""
    if module == name:
        return 3
    if "*" in name and fnmatch.fnmatchcase(module, name):
        return 2
    return 1 if module.startswith(name + ".") else 0


def floor_of(module: str, floors: list[list[str]]) -> int | None:
    """The index of the floor whose name is most specific for `module` (None: on no floor)."""
    best = max(((_rank(module, n), i) for i, names in enumerate(floors) for n in names))
    return best[1] if best[0] else None


def upward_imports(graph: grimp.ImportGraph, drawing: dict[str, list[list[str]]]) -> list[str]:
    """`a -> b` for every import of a module on a higher floor than `a`'s (within one folder),
    `a: on no floor` for every module the drawing leaves out and `n names no module` for a
    name of the drawing that is no module of the tree."""
    out = []
    for folder, floors in drawing.items():
        prefix = f"schedlab.{folder}."
        mods = sorted(m.removeprefix(prefix) for m in graph.modules if m.startswith(prefix))
        where = {m: floor_of(m, floors) for m in mods}
        out += [f"{folder}.{m}: on no floor" for m, f in where.items() if f is None]
        names = [n for floor in floors for n in floor]
        unknown = [n for n in names if not any(_rank(m, n) for m in mods)]
        out += [f"{folder}: {n} names no module" for n in unknown]
        for m in mods:
            mine = where[m]
            for imp in sorted(graph.find_modules_directly_imported_by(prefix + m)):
                other = where.get(imp.removeprefix(prefix)) if imp.startswith(prefix) else None
                if mine is not None and other is not None and other < mine:
                    out.append(f"{folder}.{m} -> {imp.removeprefix(prefix)}")
    return out


def test_the_drawing_has_the_three_folders():
    drawing = floor_drawing()
    assert list(drawing) == list(FOLDERS)
    assert all(len(floors) >= 3 for floors in drawing.values()), drawing


def test_no_import_points_up_the_drawing():
    graph = grimp.build_graph("schedlab", cache_dir=None)
    bad = upward_imports(graph, floor_drawing())
    assert not bad, "imports against docs/architecture.md's floors:\n" + "\n".join(bad)


def test_an_upward_import_is_found():
    drawing = {"experiments": [["cli", "*.cli*"], ["sojourn", "gap"], ["sweep"]]}
    graph = grimp.ImportGraph()
    for m in ("cli", "sojourn", "sojourn.cli", "sojourn.sim", "gap", "sweep", "stray"):
        graph.add_module(f"schedlab.experiments.{m}")

    def imports(a: str, b: str) -> None:
        graph.add_import(importer=f"schedlab.experiments.{a}", imported=f"schedlab.experiments.{b}")

    imports("sojourn.cli", "cli")
    imports("cli", "sweep")
    assert upward_imports(graph, drawing) == ["experiments.stray: on no floor"]
    drawing["experiments"][2].append("methods")
    assert upward_imports(graph, drawing)[1:] == ["experiments: methods names no module"]
    drawing["experiments"][2].pop()
    imports("sweep", "gap")
    imports("sojourn.sim", "sojourn.cli")
    assert upward_imports(graph, drawing) == [
        "experiments.stray: on no floor",
        "experiments.sojourn.sim -> sojourn.cli",
        "experiments.sweep -> gap",
    ]


# ---- the subject-only extras of docs/architecture.md ---------------------------------------
EXTRAS_INTRO = "Subject-only extras sit beside the role files; today:"
ALWAYS = ("__init__.py", "api.py")  # the package and its facade in the public API


def listed_extras(doc: Path = ROOT / "docs" / "architecture.md") -> dict[tuple[str, str], set]:
    """(subject, folder) -> the names the page lists as that subject's extras (parenthesised
    remarks dropped): `- **<subject>**: solvers `a`, `b`; experiments `c`; theory `d`.`"""
    text = doc.read_text(encoding="utf-8")
    assert EXTRAS_INTRO in text, f"{doc}: the list after {EXTRAS_INTRO!r} is missing"
    section = text.split(EXTRAS_INTRO, 1)[1].lstrip().split("\n\n", 1)[0]
    out: dict[tuple[str, str], set] = {}
    for subject, body in re.findall(r"- \*\*(\w+)\*\*: (.*?)(?=\n- \*\*|\Z)", section, re.S):
        for part in re.sub(r"\([^)]*\)", "", body).split(";"):
            folder, names = part.split(None, 1)
            out[(subject, folder)] = set(re.findall(r"`([^`]+)`", names))
    return out


def role_patterns(folder: str) -> list[str]:
    """Path patterns under `<folder>/<subject>/` that the role table covers (both columns)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split(ROLE_HEADING, 1)[1].split("\n## ", 1)[0]
    out = []
    for line in section.splitlines():
        cells = line.strip().strip("|").split("|")
        mains = re.findall(rf"`{folder}/<subject>/([^`]+)`", cells[1] if len(cells) > 1 else "")
        if not mains:
            continue
        beside = re.findall(r"`([a-z_]+<\w+>\.py)`", cells[2] if len(cells) > 2 else "")
        home = mains[0].rpartition("/")[0]
        out += mains + [f"{home}/{b}".lstrip("/") for b in beside]
    return [re.sub(r"<\w+>", "*", p) for p in out]


def _covered(rel: str, roles: list[str], names: set[str]) -> bool:
    """Whether the module at `rel` (under its subject's folder) has a role or is listed (by
    its name, or a listed folder `name/` holds it)."""
    if any(fnmatch.fnmatchcase(rel, p) for p in roles) or rel[:-3] in names:
        return True
    return any(n.endswith("/") and rel.startswith(n) for n in names)


def extras_mismatch(root: Path = ROOT, doc: Path = ROOT / "docs" / "architecture.md") -> list[str]:
    """`folder/subject/name: listed, no such module` and `...: in no role and not listed`."""
    listed = listed_extras(doc)
    out = []
    for subject in SUBJECTS:
        for folder in CONTRACTS:
            base = root / folder / subject
            names = listed.get((subject, folder), set())
            for n in sorted(names):
                if not (base / f"{n}.py").exists() and not (base / n).is_dir():
                    out.append(f"{folder}/{subject}/{n}: listed, no such module")
            roles = role_patterns(folder)
            for path in sorted(base.rglob("*.py")):
                rel = path.relative_to(base).as_posix()
                if rel.startswith("data/") or path.name in ALWAYS:
                    continue
                if not _covered(rel, roles, names):
                    out.append(f"{folder}/{subject}/{rel}: in no role and not listed")
    return out


def test_the_extras_list_is_the_tree():
    assert extras_mismatch() == []


def test_a_stale_extras_list_is_reported(tmp_path):
    doc = tmp_path / "architecture.md"
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    doc.write_text(text.replace("`keys` (", "`methods` ("), encoding="utf-8")
    assert extras_mismatch(ROOT, doc) == [
        "solvers/sojourn/methods: listed, no such module",
        "solvers/sojourn/keys.py: in no role and not listed",
    ]
