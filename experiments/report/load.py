"""One tolerant reader of a results folder: every file the report reads goes through here.

A file the report cannot use — not UTF-8, nested too deep, of the wrong shape (a missing or
wrong-typed field), a special file (a FIFO would block forever; it is refused before it is
opened), an image that does not decode, a CSV field over the csv module's limit — is skipped
and recorded with its reason in `ResultsFolder.skipped`, which the report lists. The rest of
the folder is read as usual, so one damaged file costs its own rows, not the report.
"""

from __future__ import annotations

import csv
import io
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedlab.experiments.report.shape import check_manifest, check_run, check_verdicts
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.validate import load_json_file, read_text_file

MANIFEST_DIR = "manifests"  # as `experiments.studies` writes them
RUN_RECORD = "run.json"  # results/manifests/run.json: what `schedlab reproduce` ran
MAX_REASON = 240  # a skipped file's reason is cut to this many characters
#: A CSV table the report read: its rows, or None and why it is unusable.
Table = tuple[list[dict[str, Any]] | None, str]


def require_folder(path: Path, what: str, fix: str) -> None:
    """InvalidInput naming `what` (a flag) unless `path` is a folder; a name the file system
    refuses (too long, ...) is a refusal too, never an OSError."""
    try:
        is_folder = path.is_dir()
    except OSError as exc:
        raise InvalidInput(f"{what}: {path}: {exc.strerror}; {fix}") from None
    if not is_folder:
        raise InvalidInput(f"{what}: {path} is not a folder; {fix}")


def _cut(text: str, n: int = MAX_REASON) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def _why(exc: InvalidInput) -> str:
    """An InvalidInput's problems as one line (without the file's name: the list names it)."""
    return _cut("; ".join(exc.problems))


@dataclass
class ResultsFolder:
    """What the report could use of a results folder, and each file it skipped with why."""

    root: Path
    manifests: dict[str, dict[str, Any]] = field(default_factory=dict)
    run: dict[str, Any] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    _tables: dict[Path, Table] = field(default_factory=dict, repr=False)

    def skip(self, path: Path | str, reason: str) -> None:
        """Record that `path` was skipped (once per file)."""
        if all(s["path"] != str(path) for s in self.skipped):
            self.skipped.append({"path": str(path), "reason": _cut(reason)})

    def table(self, path: Path) -> Table:
        """The rows of the CSV table at `path` (read once), or None and why."""
        if path not in self._tables:
            self._tables[path] = self._read_table(path)
        return self._tables[path]

    def _read_table(self, path: Path) -> Table:
        if not path.exists() and not path.is_symlink():
            return None, "is not in the results folder"
        try:
            text = read_text_file(path, "result table")
            rows = list(csv.DictReader(io.StringIO(text, newline="")))
        except InvalidInput as exc:
            reason = _why(exc)
        except csv.Error as exc:
            reason = f"not a readable CSV table: {_cut(str(exc), 120)}"
        else:
            return rows, ""
        self.skip(path, reason)
        return None, f"is unusable ({reason})"

    def verdicts(self, path: Path) -> dict[str, dict[str, Any]]:
        """The claims of the `schedlab verify` file at `path` by id ({} if absent or skipped)."""
        if not path.exists() and not path.is_symlink():
            return {}
        try:
            return check_verdicts(load_json_file(path, "verdict file"))
        except InvalidInput as exc:
            self.skip(path, _why(exc))
            return {}


def load_folder(results: Path) -> ResultsFolder:
    """The study manifests and run record of `results` (each checked field by field), with
    the figures and tables they list checked readable; what is unusable is skipped."""
    folder = ResultsFolder(Path(results))
    mdir = folder.root / MANIFEST_DIR
    for path in sorted(mdir.glob("*.json")) if mdir.is_dir() else []:
        if path.name == RUN_RECORD:
            continue
        m = _manifest(folder, path)
        if m is not None:
            folder.manifests[m["study"]] = m
    run = mdir / RUN_RECORD
    if run.exists() or run.is_symlink():
        try:
            folder.run = check_run(load_json_file(run, "run record"))
        except InvalidInput as exc:
            folder.skip(run, _why(exc))
    return folder


def _manifest(folder: ResultsFolder, path: Path) -> dict[str, Any] | None:
    """The checked manifest at `path` with its unreadable figures and tables left out."""
    try:
        m = check_manifest(load_json_file(path, "study manifest"))
    except InvalidInput as exc:
        folder.skip(path, _why(exc))
        return None
    m["files"] = [f for f in m["files"] if _usable_file(folder, Path(f), path.name)]
    return m


def _usable_file(folder: ResultsFolder, path: Path, manifest: str) -> bool:
    """Whether a file a manifest lists can be shown: a figure (PNG) must decode and a table
    (Markdown) be UTF-8 text; other files are not opened by the report."""
    if path.suffix not in (".png", ".md"):
        return True
    if not path.exists() and not path.is_symlink():
        folder.skip(path, f"listed by {manifest} but not found")
        return False
    if path.suffix == ".png":
        problem = png_problem(path)
        if problem:
            folder.skip(path, problem)
        return problem is None
    try:
        read_text_file(path, "table")
    except InvalidInput as exc:
        folder.skip(path, _why(exc))
        return False
    return True


def png_problem(path: Path) -> str | None:
    """Why the image at `path` cannot be shown (None when it decodes). A special file is refused
    before it is opened: reading a FIFO would block forever."""
    from PIL import Image

    try:
        mode = Path(path).stat().st_mode
    except OSError as exc:
        return f"cannot read it: {exc.strerror or exc}"
    if not stat.S_ISREG(mode):
        return "not a regular file (a directory, device, pipe or socket)"
    try:
        with Image.open(path) as im:
            im.load()
    except Exception as exc:  # noqa: BLE001 - a damaged image fails in many ways inside Pillow
        return f"not a readable image ({type(exc).__name__}: {_cut(str(exc), 80)})"
    return None
