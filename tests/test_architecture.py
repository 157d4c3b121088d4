"""The import-linter contract (setup.cfg) names every subject package that exists.

`make lint` runs the contract itself (lint-imports); this test keeps it complete: a new
subject package under solvers/ or experiments/ must be added to the subject layer, and a new
shared package must be declared shared here, or the layering it should obey goes unchecked.
"""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = {"solvers": {"kernels"}, "experiments": {"traces", "bench"}}


def contract_layers(name: str) -> list[set[str]]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    raw = cfg[f"importlinter:contract:{name}"]["layers"]
    return [
        {part.strip().strip("()") for part in line.split("|")} for line in raw.strip().splitlines()
    ]


def subpackages(folder: str) -> set[str]:
    return {p.parent.name for p in (ROOT / folder).glob("*/__init__.py")}


def test_every_subject_package_is_in_its_contract():
    for folder, contract in (
        ("solvers", "solver-subjects"),
        ("experiments", "experiment-subjects"),
    ):
        subjects = contract_layers(contract)[0]
        assert {"sojourn", "synergy", "slaq", "esg"} <= subjects
        unlisted = subpackages(folder) - subjects - SHARED[folder]
        assert not unlisted, (
            f"{folder}/{sorted(unlisted)}: add to [importlinter:contract:{contract}]"
        )


def test_shared_packages_sit_below_the_subjects():
    assert contract_layers("solver-subjects")[1:] == [{"kernels"}]
    assert contract_layers("experiment-subjects")[1:] == [{"traces"}]
    top = contract_layers("layers")
    assert top == [{"schedlab.experiments"}, {"schedlab.theory"}, {"schedlab.solvers"}]
