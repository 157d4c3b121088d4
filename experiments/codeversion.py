"""The code version that journaled rows are keyed on, so a rerun recomputes after a code change.

A hash of schedlab's own source and shipped data files (every `.py`, `.csv`, `.json` and `.txt`
under the installed `schedlab` package, followed through the folder links of a development
checkout). Unlike a git revision it exists in an sdist or a wheel and it sees uncommitted edits.
It covers the whole package, not only the modules a computation imports: coarser than needed
(an edit anywhere recomputes every journal), never stale.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import schedlab

SUFFIXES = (".py", ".csv", ".json", ".txt")


def source_files(root: Path) -> list[Path]:
    """The files that make up the code version, in a stable order (relative to `root`)."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found += [Path(folder, f) for f in files if f.endswith(SUFFIXES)]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def tree_digest(root: Path) -> str:
    """sha256 over the relative path and the bytes of each of `source_files(root)`."""
    h = hashlib.sha256()
    for path in source_files(root):
        rel = path.relative_to(root).as_posix().encode()
        data = path.read_bytes()
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


@functools.cache
def code_version() -> str:
    """A 16-hex-digit digest of the installed schedlab sources (computed once per process)."""
    return tree_digest(Path(schedlab.__file__).parent)[:16]
