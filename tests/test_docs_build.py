"""The rendered manual builds without a warning: `mkdocs build --strict`, as `make docs` runs it.

A broken link or anchor between pages, a page missing from the nav, a docstring mkdocstrings
cannot render or a click command mkdocs-click cannot load fails the build, so it fails here.
Skipped (saying why) where the `docs` extra is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("mkdocs_click", reason="the docs extra is not installed")
pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")

ROOT = Path(__file__).resolve().parents[1]


def test_the_manual_builds_without_warnings(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict"]  # not --quiet: it hides warnings
    cmd += ["--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    assert "WARNING" not in log, log
    for page in ("index.html", "cli-reference.html", "reference/solve.html"):
        assert (tmp_path / "site" / page).is_file(), page
    reference = (tmp_path / "site" / "cli-reference.html").read_text(encoding="utf-8")
    assert "schedlab sojourn solve" in reference  # generated from the click commands
