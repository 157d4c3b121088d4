"""The subject layout: the role table of docs/architecture.md and the import-linter contracts.

`make lint` runs the contracts themselves (lint-imports); these tests keep them complete and
the subjects alike:

- every subject package under solvers/, theory/ or experiments/ is in its folder's subject
  layer in setup.cfg (a new shared package must be declared shared here), or the layering it
  should obey goes unchecked;
- every subject has a file for every role of the table "Roles: one file name per role" in
  docs/architecture.md. The table is read from the page, so the page and the check cannot
  drift: a new role there is checked at once, and a subject lacking one fails here.
"""

from __future__ import annotations

import configparser
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBJECTS = ("sojourn", "synergy", "slaq", "esg")
SHARED = {
    "solvers": {"kernels"},
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


def test_every_subject_package_is_in_its_contract():
    for contract in CONTRACTS.values():
        assert set(SUBJECTS) <= contract_layers(contract)[0], contract
    unlisted = unlisted_packages()
    assert not unlisted, "; ".join(
        f"{folder}/{sorted(names)}: add to [importlinter:contract:{CONTRACTS[folder]}]"
        for folder, names in unlisted.items()
    )


def test_shared_packages_sit_below_the_subjects():
    assert contract_layers("solver-subjects")[1:] == [{"kernels"}]
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


@pytest.mark.parametrize("subject", SUBJECTS)
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
