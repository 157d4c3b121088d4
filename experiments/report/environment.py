"""The report's header: where and with what the results were computed."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = ("schedlab", "numpy", "scipy", "ortools", "highspy", "PuLP", "numba", "matplotlib")


def _git(*args: str) -> str:
    """`git ARGS` in the checkout schedlab runs from ("" outside a git checkout)."""
    import schedlab

    here = Path(schedlab.__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", *args], cwd=here, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def versions() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def environment(run: dict[str, Any]) -> dict[str, Any]:
    """Commit (and whether the tree was dirty), Python, library versions, CPU, and what the
    reproduction ran with (size, seed, workers, time) from its run record."""
    commit = _git("rev-parse", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no")) if commit else None
    return {
        "commit": commit or "unknown (not a git checkout)",
        "dirty": dirty,
        "python": platform.python_version(),
        "versions": versions(),
        "cpu": cpu_model(),
        "cores": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "platform": platform.platform(),
        "run": run,
    }


def run_commit() -> str:
    """The commit a run computes at (with "-dirty" when tracked files differ from it; "" outside
    a git checkout): recorded in the run record, so the report says which code wrote it."""
    commit = _git("rev-parse", "HEAD")
    if commit and _git("status", "--porcelain", "--untracked-files=no"):
        return commit + "-dirty"
    return commit
