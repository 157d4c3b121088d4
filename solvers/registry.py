"""One registry mechanism for everything that is looked up by name.

Methods, allocators, online policies, workloads, figures, claims and benchmarks all register
themselves where they are defined, each registry through its one decorator defined next to it
(`register_method`, `register_figure`, `register_benchmark`, `register_command`,
`register_policy`, `register_workload`, `register_claim`; all call `Registry.add`), and are
found by discovery: a registry knows the packages (and module-name patterns) to import on
first lookup, so no hand-kept module list exists anywhere. Lookups are lazy, which keeps
`schedlab --help` light. A registry may also name the decorators that register into it
(`mentions`): discovery then imports only the modules whose source names one of them, so
looking up one method does not import every solver module and its MILP, CP-SAT or JIT library.
A registry whose scopes are packages (`scope_package`) imports only that package for a lookup
within one scope, so picking a sojourn method imports no other subject.

Code outside schedlab registers the same way: name its modules in the environment variable
`SCHEDLAB_PLUGINS` (comma-separated) or in the `schedlab.plugins` entry-point group of its
distribution; they are imported before the first lookup of any registry.

Each entry may carry a typed options dataclass (see `schedlab.solvers.options`): unknown or
ill-typed options are `InvalidInput`, never swallowed.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import os
import pkgutil
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from schedlab.solvers.errors import InvalidInput

T = TypeVar("T")

PLUGINS_ENV = "SCHEDLAB_PLUGINS"
_plugins_loaded = False
#: One lock for every registry's discovery: loading one registry imports modules that may
#: register into (or look up) another, and Python's import lock is per module.
_LOAD_LOCK = threading.RLock()
#: Every registry made, so that `load_all` can discover them all at once.
_ALL: list[Registry[Any]] = []


def load_all() -> None:
    """Load every registry now (before forking workers, say, so that they inherit them)."""
    for r in list(_ALL):
        r.load()


def _after_fork_in_child() -> None:
    """A forked child starts with a free discovery lock and no discovery in progress: the
    thread that held the parent's lock does not exist in the child."""
    global _LOAD_LOCK
    _LOAD_LOCK = threading.RLock()
    for r in _ALL:
        r._loading = False


os.register_at_fork(after_in_child=_after_fork_in_child)


def load_plugins() -> None:
    """Import the plugin modules named in $SCHEDLAB_PLUGINS and the `schedlab.plugins` group."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    names = [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise InvalidInput(
                f"{PLUGINS_ENV}: cannot import plugin module {name!r} ({exc}); "
                "fix the name or the Python path"
            ) from None
    for ep in entry_points(group="schedlab.plugins"):
        ep.load()


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered object: its name, scope (subject, or '' for none), tags and options."""

    name: str
    obj: T
    summary: str = ""
    scope: str = ""
    tags: frozenset[str] = frozenset()
    options: type | None = None
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def key(self) -> str:
        """`scope/name`, or `name` when the entry has no scope."""
        return f"{self.scope}/{self.name}" if self.scope else self.name


def _first_doc_line(obj: object) -> str:
    doc = getattr(obj, "__doc__", None) or ""
    lines = doc.strip().splitlines()
    return lines[0].strip() if lines else ""


class Registry(Generic[T]):
    """Name -> object for one kind of thing, optionally scoped by subject.

    `packages` are imported recursively on first lookup, keeping only modules whose last
    name matches one of `modules` (glob patterns) and, when `mentions` is given, whose source
    text contains one of those names (a module without readable source is kept); subpackages
    named in `skip` are not walked. With `scope_package` (a template such as
    "schedlab.solvers.{scope}"), a lookup within one scope walks only that scope's package;
    `tests/core/test_lazy_imports.py` holds every entry to its scope's package. Listing every
    scope gives the entries grouped by scope (sorted), each scope's in registration order,
    whatever order the scopes were loaded in.
    """

    def __init__(
        self,
        kind: str,
        *,
        packages: Sequence[str] = (),
        modules: Sequence[str] = ("*",),
        skip: Sequence[str] = (),
        mentions: Sequence[str] = (),
        scope_package: str | None = None,
    ) -> None:
        self.kind = kind
        self._packages = tuple(packages)
        self._modules = tuple(modules)
        self._skip = tuple(skip)
        self._mentions = tuple(mentions)
        self._scope_package = scope_package
        self._loaded_scopes: set[str] = set()
        self._entries: dict[tuple[str, str], Entry[T]] = {}
        self._loaded = False
        self._loading = False
        _ALL.append(self)

    # --- registration (each registry's module wraps `add` in its one decorator) -----------
    def add(
        self,
        name: str,
        obj: T,
        *,
        scope: str = "",
        summary: str = "",
        tags: Sequence[str] = (),
        options: type | None = None,
        **meta: Any,
    ) -> Entry[T]:
        """Register `obj`; a second registration of the same scope/name is an error."""
        key = (scope, name)
        if key in self._entries:
            raise ValueError(f"{self.kind} {scope + '/' if scope else ''}{name!r} registered twice")
        entry = Entry(
            name=name,
            obj=obj,
            summary=summary or _first_doc_line(obj),
            scope=scope,
            tags=frozenset(tags),
            options=options,
            meta=MappingProxyType(dict(meta)),
        )
        self._entries[key] = entry
        return entry

    # --- discovery ----------------------------------------------------------------------
    def load(self) -> Registry[T]:
        """Import every module of the declared packages that may register entries (once).

        Thread-safe: a second thread that looks up while the first is still importing waits
        for it instead of seeing half the entries (studies of a reproduction run in threads).
        The same thread may re-enter (a module being imported looks an entry up)."""
        if self._loaded:
            return self
        with _LOAD_LOCK:
            if not self._loaded and not self._loading:
                self._loading = True
                try:
                    load_plugins()
                    for pkg in self._packages:
                        for mod in self._walk(pkg):
                            importlib.import_module(mod)
                    self._loaded = True
                finally:
                    self._loading = False
        return self

    def _load_scope(self, scope: str | None) -> None:
        """Load what a lookup within `scope` needs: the scope's package alone when the registry
        has `scope_package` and that package exists, else everything (`load`)."""
        if self._loaded or scope in self._loaded_scopes:
            return
        package = self._package_of(scope)
        if package is None:
            self.load()
            return
        with _LOAD_LOCK:
            if self._loaded or self._loading or scope in self._loaded_scopes:
                return
            self._loading = True
            try:
                load_plugins()
                for mod in self._walk(package):
                    importlib.import_module(mod)
                self._loaded_scopes.add(str(scope))
            finally:
                self._loading = False

    def _package_of(self, scope: str | None) -> str | None:
        """The package holding `scope`'s entries, or None (no scoped discovery, or no such
        package: then a full discovery answers, and names the scopes that exist)."""
        if self._scope_package is None or not scope or not scope.isidentifier():
            return None
        package = self._scope_package.format(scope=scope)
        try:
            found = importlib.util.find_spec(package) is not None
        except (ImportError, ValueError):
            return None
        return package if found else None

    def _walk(self, package: str, mentions: Sequence[str] | None = None) -> Iterator[str]:
        """The modules under `package` to import: matching `modules`, not under `skip`, and
        naming one of `mentions` (the registry's own when None)."""
        pkg = importlib.import_module(package)
        wanted = self._mentions if mentions is None else tuple(mentions)
        for info in pkgutil.iter_modules(getattr(pkg, "__path__", []), package + "."):
            if any(info.name == s or info.name.startswith(s + ".") for s in self._skip):
                continue
            if info.ispkg:
                yield from self._walk(info.name, mentions)
            elif any(fnmatch.fnmatch(info.name.rsplit(".", 1)[-1], p) for p in self._modules):
                if _names_one_of(info, wanted):
                    yield info.name

    # --- lookup -------------------------------------------------------------------------
    def find(self, name: str, *, hint: str, scope: str = "") -> Entry[T] | None:
        """The entry `name` in `scope`, or None, sparing the full discovery where it can: first
        import only the modules whose source contains `hint` (the registering call, e.g.
        `register_command("sojourn")`), and discover everything only if that did not register
        it. `schedlab sojourn solve` so imports no other subject's commands."""
        key = (scope, name)
        if key not in self._entries and not self._loaded:
            with _LOAD_LOCK:
                if key not in self._entries and not self._loaded and not self._loading:
                    self._loading = True
                    try:
                        load_plugins()
                        for pkg in self._packages:
                            for mod in self._walk(pkg, (hint,)):
                                importlib.import_module(mod)
                    finally:
                        self._loading = False
        if key not in self._entries:
            self.load()
        return self._entries.get(key)

    def get(self, name: str, *, scope: str = "") -> Entry[T]:
        """The entry `name` in `scope`; InvalidInput naming the choices when unknown."""
        self._load_scope(scope)
        if (scope, name) not in self._entries:
            self.load()  # a miss is answered by the full discovery
        try:
            return self._entries[(scope, name)]
        except KeyError:
            where = f"{scope} " if scope else ""
            known = ", ".join(self.names(scope=scope)) or "(none)"
            raise InvalidInput(
                f"{self.kind}: unknown {where}{self.kind} {name!r}; choose one of: {known}"
            ) from None

    def entries(
        self, *, scope: str | None = None, tag: str | None = None, **meta: Any
    ) -> list[Entry[T]]:
        """Entries in registration order, filtered by scope, a tag and metadata values (every
        scope's: grouped by scope where the registry discovers by scope)."""
        self._load_scope(scope)
        found = [
            e
            for e in self._entries.values()
            if (scope is None or e.scope == scope)
            and (tag is None or tag in e.tags)
            and all(e.meta.get(k) == v for k, v in meta.items())
        ]
        if scope is None and self._scope_package is not None:
            found.sort(key=lambda e: e.scope)  # stable: each scope keeps its order
        return found

    def names(self, *, scope: str | None = None, tag: str | None = None, **meta: Any) -> list[str]:
        """Names of `entries(...)`, in registration order."""
        return [e.name for e in self.entries(scope=scope, tag=tag, **meta)]

    def scopes(self) -> list[str]:
        """Every scope that has at least one entry, sorted."""
        self.load()
        return sorted({s for s, _ in self._entries})

    def __contains__(self, key: object) -> bool:
        scope = key[0] if isinstance(key, tuple) and key and isinstance(key[0], str) else None
        self._load_scope(scope)
        if isinstance(key, tuple):
            if key not in self._entries:
                self.load()  # a miss is answered by the full discovery
            return key in self._entries
        self.load()
        return ("", key) in self._entries


def _names_one_of(info: pkgutil.ModuleInfo, mentions: Sequence[str]) -> bool:
    """Whether module `info` may register: its source names one of `mentions` (always true
    without `mentions`, or when its source cannot be read)."""
    if not mentions:
        return True
    source = _source_text(info)
    return source is None or any(m in source for m in mentions)


def _source_text(info: pkgutil.ModuleInfo) -> str | None:
    """The source text of the plain module `info`, or None where it cannot be read (a
    compiled extension, a zip archive)."""
    folder = getattr(info.module_finder, "path", None)
    if not isinstance(folder, str):
        return None
    try:
        return (Path(folder) / (info.name.rsplit(".", 1)[-1] + ".py")).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
