"""The rendered manual builds without a warning: `mkdocs build --strict`, as `make docs` runs it.

A broken link or anchor between pages, a page missing from the nav, a docstring mkdocstrings
cannot render or a click command mkdocs-click cannot load fails the build, so it fails here.
One build (a few seconds) serves every check. Skipped, saying why, where the `docs` extra is not
installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("mkdocs_click", reason="the docs extra is not installed")
pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")

ROOT = Path(__file__).resolve().parents[1]
Build = tuple[subprocess.CompletedProcess[str], Path]


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    site = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict"]  # not --quiet: it hides warnings
    cmd += ["--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return proc, site


def test_the_manual_builds_without_warnings(build: Build) -> None:
    proc, site = build
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    assert "WARNING" not in log, log
    for page in ("index.html", "api.html", "cli-reference.html", "reference/solve.html"):
        assert (site / page).is_file(), page


def test_the_references_are_generated_from_the_code(build: Build) -> None:
    _, site = build
    cli = (site / "cli-reference.html").read_text(encoding="utf-8")
    assert 'id="schedlab-sojourn-solve"' in cli  # one heading per click command
    assert "--time-limit" in cli
    api = (site / "reference" / "solve.html").read_text(encoding="utf-8")
    assert 'id="schedlab.solvers.result.SolveResult"' in api  # mkdocstrings' object anchor


def test_the_readme_notebooks_and_command_examples_are_in_the_site(build: Build) -> None:
    """What the hook (docs/_hooks/repo_files.py) adds: the README as a page, the notebooks the
    pages link to, and each command's Example lines as code rather than one joined sentence."""
    _, site = build
    assert (site / "readme.html").is_file()
    assert (site / "notebooks" / "01_successful_sojourn.ipynb").is_file()
    cli = (site / "cli-reference.html").read_text(encoding="utf-8")
    paragraphs = re.findall(r"<p>(.*?)</p>", cli, re.S)
    assert not [p for p in paragraphs if re.search(r"^\s*schedlab \w+ \w+", p, re.M)]
