"""The code versions the gap study's cached cells are keyed on.

A cell's row is reused while the code that computed it is unchanged, and only then:

- a method's version covers the module that defines it, the module of its form's runner
  (sojourn index keys run through `heuristics.solve_index`, Synergy allocators through
  `allocators.solve_fast`) and the cell function's module, each with its static import closure
  (`codeversion.modules_version`); a test (`tests/gap/test_versions.py`) checks that the
  closure holds every file an exact solve really executes;
- a generator's version covers the module that defines it, likewise;
- a module outside schedlab (a plugin, e.g. a test's heuristic) is hashed by its own file and,
  following its imports, every local file it imports (not the standard library or installed
  packages), plus the schedlab closure of the schedlab modules any of them import.

Editing one heuristic therefore recomputes its own cells only, and editing an exact method's
modules recomputes its optima only.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import inspect
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from schedlab.experiments.codeversion import ROOT_NAME, module_path, modules_version, package_root
from schedlab.solvers.solve import METHODS, method_runner

#: The module of the cell function; part of every cell's version.
CELLS_MODULE = "schedlab.experiments.gap.cells"


def defining_module(obj: Any) -> str:
    """The module that defines `obj` (through functools.partial and decorator wrappers)."""
    while isinstance(obj, functools.partial):
        obj = obj.func
    obj = inspect.unwrap(obj)
    mod = getattr(obj, "__module__", None) or type(obj).__module__
    return str(mod)


def _digest(parts: Iterable[str | bytes]) -> str:
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "little") + b)
    return h.hexdigest()[:16]


def _installed_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots |= {sys.base_prefix, sys.prefix}
    return tuple(Path(r).resolve() for r in roots)


def _local_file(name: str) -> Path | None:
    """The source file of a module that is neither schedlab, the standard library nor an
    installed package (None for those, and for modules that cannot be found)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None) if spec is not None else None
    if not origin or not origin.endswith(".py"):
        return None
    path = Path(origin).resolve()
    if any(path.is_relative_to(r) for r in _installed_roots()):
        return None
    return path


def _imports(name: str, path: Path) -> set[str]:
    """Every module name the file imports anywhere (relative imports resolved)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m}


@functools.cache
def plugin_version(name: str) -> str:
    """The version of a module outside schedlab: its local files and their schedlab closure."""
    root = package_root()
    files: dict[str, Path] = {}
    schedlab_mods: set[str] = set()
    todo = [name]
    while todo:
        mod = todo.pop()
        if mod in files:
            continue
        if mod.split(".")[0] == ROOT_NAME:
            if module_path(mod, root) is not None:
                schedlab_mods.add(mod)
            continue
        path = _local_file(mod)
        if path is None:
            continue
        files[mod] = path
        todo += sorted(_imports(mod, path) - set(files))
    parts: list[str | bytes] = []
    for mod in sorted(files):
        parts += [mod, files[mod].read_bytes()]
    if schedlab_mods:
        parts.append(modules_version(tuple(sorted(schedlab_mods))))
    return _digest(parts)


def modules_digest(modules: Iterable[str]) -> str:
    """One version over schedlab modules (their closure) and outside modules (plugins)."""
    mods = set(modules)
    ours = tuple(sorted(m for m in mods if m.split(".")[0] == ROOT_NAME))
    parts: list[str | bytes] = [modules_version(ours)] if ours else []
    parts += [plugin_version(m) for m in sorted(mods - set(ours))]
    return _digest(parts)


def method_version(subject: str, name: str) -> str:
    """The version a cell of method `name` of `subject` is keyed on."""
    entry = METHODS.get(name, scope=subject)
    runner = method_runner(entry)
    return modules_digest({defining_module(entry.obj), defining_module(runner), CELLS_MODULE})


def generator_version(generator: Any) -> str:
    """The version an instance of `generator` is keyed on (besides its parameters and seed)."""
    return modules_digest({defining_module(generator), CELLS_MODULE})


def closure_modules(subject: str, name: str) -> list[str]:
    """The schedlab modules a method's version covers (for the coverage test)."""
    from schedlab.experiments.codeversion import import_closure

    entry = METHODS.get(name, scope=subject)
    mods = {defining_module(entry.obj), defining_module(method_runner(entry)), CELLS_MODULE}
    return sorted(import_closure(m for m in mods if m.split(".")[0] == ROOT_NAME))
