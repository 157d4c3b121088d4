"""A toy heuristic per subject, in one file with one decorator (`tests/<subject>/toy_heuristic.py`,
loaded as a plugin): `schedlab gap SUBJECT` compares it with no other edit, and the property
test of every heuristic (`tests/core/test_heuristics_vs_oracle.py`) checks it with no new test.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

import schedlab
from schedlab.experiments.gap.spec import subjects

REPO = Path(__file__).resolve().parents[2]
SRC = Path(schedlab.__file__).resolve().parents[1]


def _env(*subjects_: str) -> dict[str, str]:
    plugins = ",".join(f"tests.{s}.toy_heuristic" for s in subjects_)
    path = os.pathsep.join([str(REPO), str(SRC)])
    return {**os.environ, "SCHEDLAB_PLUGINS": plugins, "PYTHONPATH": path}


@pytest.mark.parametrize("subject", subjects())
def test_a_toy_heuristic_appears_in_the_gap_table(subject, tmp_path):
    assert (REPO / "tests" / subject / "toy_heuristic.py").is_file(), subject
    cmd = [sys.executable, "-m", "schedlab.experiments.cli", "gap", subject, "--size", "tiny",
           "--seeds", "1", "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    out = subprocess.run(cmd, env=_env(subject), capture_output=True, text=True, timeout=600,
                         cwd=REPO)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    table = (tmp_path / subject / f"gap-{subject}.md").read_text()
    assert "| toy |" in table, table
    rows = list(csv.DictReader(open(tmp_path / subject / f"gap-{subject}.csv")))
    toy = [r for r in rows if r["method"] == "toy"]
    assert toy and all(r["gap"] != "" for r in toy if r["proven"] == "True" and r["value"])


def test_the_property_test_checks_the_toys_with_no_new_test(tmp_path):
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           str(REPO / "tests" / "core" / "test_heuristics_vs_oracle.py"), "-k", "toy"]  # fmt: skip
    out = subprocess.run(cmd, env=_env(*subjects()), capture_output=True, text=True,
                         timeout=900, cwd=REPO)  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:]
    assert f"{len(subjects())} passed" in out.stdout, out.stdout[-2000:]
