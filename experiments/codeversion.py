"""The code versions that journaled rows are keyed on, so a rerun recomputes after a code change.

Two granularities, both digests of schedlab's own source and shipped data files (never a git
revision: they exist in an sdist or a wheel and they see uncommitted edits):

- `code_version()`: the whole installed package (every `.py`, `.csv`, `.json`, `.txt`, followed
  through the folder links of a development checkout). Workers are checked against it: a worker
  that runs other code than the main process fails its cells.
- `modules_version(modules)`: the static import closure of the given modules (every `import`
  and `from ... import`, at any depth, function-level ones included, resolved inside schedlab)
  with the data files beside each module (its folder and the `data/` folder there). This is what
  a study's journal is keyed on (`scope_version`: every module of one subject's three packages,
  plus whatever they import), so an edit in one subject, or in code no subject imports (the
  report, a benchmark), recomputes no other subject's rows.

`pinned(version)` sets the version that journals opened inside the block use
(`current()`; the whole package's when nothing is pinned): the figure and claim runners pin
their study's version.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import schedlab

SUFFIXES = (".py", ".csv", ".json", ".txt")
ROOT_NAME = "schedlab"
SUBJECT_FOLDERS = ("solvers", "theory", "experiments")


def package_root() -> Path:
    return Path(schedlab.__file__).parent


def source_files(root: Path) -> list[Path]:
    """The files that make up the code version, in a stable order (relative to `root`)."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found += [Path(folder, f) for f in files if f.endswith(SUFFIXES)]
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def _digest(root: Path, paths: Iterable[Path]) -> str:
    """sha256 over the relative path and the bytes of each file, in the given order."""
    h = hashlib.sha256()
    for path in paths:
        rel = path.relative_to(root).as_posix().encode()
        data = path.read_bytes()
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def tree_digest(root: Path) -> str:
    """sha256 over the relative path and the bytes of each of `source_files(root)`."""
    return _digest(root, source_files(root))


@functools.cache
def code_version() -> str:
    """A 16-hex-digit digest of the installed schedlab sources (computed once per process)."""
    return tree_digest(package_root())[:16]


# ---- static import closure -----------------------------------------------------------------
@functools.cache
def module_path(name: str, root: Path) -> Path | None:
    """The file of schedlab module `name` under `root` (a module or a package's __init__)."""
    parts = name.split(".")
    if parts[0] != ROOT_NAME:
        return None
    base = root.joinpath(*parts[1:])
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


#: An import statement at any indentation (function-level ones too): `from X import names`
#: (a parenthesized list may span lines) or `import X, Y`. Read from the text, not an AST: an
#: import-like line inside a string only adds a dependency, which keeps the version sound.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)"
    r"|import[ \t]+([^\n#;]*))",
    re.M,
)


def _names(text: str) -> list[str]:
    """`a as b, c` -> [a, c] (parentheses, line continuations and comments dropped)."""
    text = re.sub(r"#[^\n]*", "", text).replace("(", " ").replace(")", " ").replace("\\", " ")
    return [part.split()[0] for part in text.split(",") if part.split()]


@functools.cache
def imported_modules(name: str, root: Path) -> frozenset[str]:
    """The schedlab modules that module `name` imports anywhere in its body (statically)."""
    path = module_path(name, root)
    if path is None:
        return frozenset()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for m in _IMPORT.finditer(path.read_text(encoding="utf-8")):
        base, names, plain = m.group(1), m.group(2), m.group(3)
        if plain is not None:
            found.update(_names(plain))
            continue
        level = len(base) - len(base.lstrip("."))
        base = base.lstrip(".")
        if level:
            pkg = package.split(".")
            base = ".".join(pkg[: len(pkg) - level + 1] + ([base] if base else []))
        found.add(base)
        found.update(f"{base}.{n}" for n in _names(names))
    return frozenset(m for m in found if module_path(m, root) is not None)


@functools.cache
def _closure(names: frozenset[str], root: Path) -> frozenset[str]:
    seen: set[str] = set()
    todo = [n for n in names if module_path(n, root) is not None]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [m for m in imported_modules(name, root) | set(_parents(name)) if m not in seen]
    return frozenset(seen)


def import_closure(modules: Iterable[str], root: Path | None = None) -> set[str]:
    """Every schedlab module that importing `modules` may execute (their parents included)."""
    return set(_closure(frozenset(modules), root or package_root()))


def _data_files(folder: Path) -> list[Path]:
    """Non-Python files of the code version in `folder` itself and under its `data/`."""
    out = [p for p in folder.iterdir() if p.is_file() and p.suffix in SUFFIXES[1:]]
    data = folder / "data"
    if data.is_dir():
        out += [p for p in source_files(data)]
    return out


def closure_files(modules: Iterable[str], root: Path | None = None) -> list[Path]:
    """The source files of `import_closure(modules)` and the data files beside them, sorted."""
    root = root or package_root()
    files: set[Path] = set()
    for name in import_closure(modules, root):
        path = module_path(name, root)
        assert path is not None
        files.add(path)
        files.update(_data_files(path.parent))
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


@functools.cache
def modules_version(modules: tuple[str, ...], root: Path | None = None) -> str:
    """A 16-hex-digit digest of `closure_files(modules)` (once per process and module set)."""
    root = root or package_root()
    return _digest(root, closure_files(modules, root))[:16]


def subject_modules(subject: str, root: Path | None = None) -> list[str]:
    """Every module of `subject`'s packages under solvers/, theory/ and experiments/."""
    root = root or package_root()
    out = []
    for folder in SUBJECT_FOLDERS:
        pkg = root / folder / subject
        for path in sorted(pkg.rglob("*.py")) if pkg.is_dir() else []:
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root).with_suffix("").parts
            rel = rel[:-1] if rel[-1] == "__init__" else rel
            out.append(".".join((ROOT_NAME, *rel)))
    return out


def scope_version(subject: str, *extra_modules: str) -> str:
    """The version a study of `subject` is journaled under: the closure of every module of the
    subject (registries look its methods up by name, so all of them count) and `extra_modules`
    (a subject-free study's own module)."""
    return modules_version(tuple(sorted({*subject_modules(subject), *extra_modules})))


# ---- the version journals use ------------------------------------------------------------------
_PINNED: ContextVar[str | None] = ContextVar("schedlab_code_version", default=None)


def current() -> str:
    """The pinned study version inside `pinned(...)`, else the whole package's."""
    return _PINNED.get() or code_version()


@contextmanager
def pinned(version: str) -> Iterator[str]:
    """Journals opened in this block (this thread or task) are keyed on `version`."""
    token = _PINNED.set(version)
    try:
        yield version
    finally:
        _PINNED.reset(token)


def subject_of_module(name: str, root: Path | None = None) -> str:
    """The subject whose package holds module `name` (schedlab.<folder>.<subject>....), or ""
    for shared code: a subject is a package under theory/ (every subject has one)."""
    root = root or package_root()
    parts = name.split(".")
    if len(parts) >= 3 and parts[0] == ROOT_NAME and parts[1] in SUBJECT_FOLDERS:
        if (root / "theory" / parts[2] / "__init__.py").is_file():
            return parts[2]
    return ""
