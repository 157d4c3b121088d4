"""The gap study's two caches: exact optima apart from the other methods' cells.

Both are journals (`store.RowStore`) under `OUT/<subject>/gap-cache/` (`optima.jsonl`,
`methods.jsonl`), shared by every family, size and figure of the subject. A row's key is the
instances (generator, parameters, seeds, generator version) and the method (name, options, time
limit, method version; `versions`), so

- adding a heuristic computes its own cells only: the optima and the other methods' rows are
  found under their unchanged keys;
- editing a method's modules changes its version: its rows no longer match and are recomputed,
  the stale ones are dropped from the journal when it is next opened (`compact`);
- the journal's own header carries only `FORMAT` (the row layout), pinned so that the whole
  package's or a study's version does not discard the cache.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schedlab.experiments.codeversion import pinned
from schedlab.experiments.store import COST_KEY, RowStore, results_dir
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.util import atomic_write_text

KEY_FIELDS = (
    "generator",
    "params",
    "seeds",
    "gen_version",
    "method",
    "options",
    "time_limit",
    "version",
)
FORMAT = "gap-cache-2"  # bump when a cached row's fields change
ROLES = ("optima", "methods")


def cache_path(outdir: Path, subject: str, role: str) -> Path:
    return results_dir(outdir, subject) / "gap-cache" / f"{role}.jsonl"


def open_cache(outdir: Path, subject: str, role: str) -> RowStore:
    """The journal of `role` ("optima" or "methods") for `subject`, stale rows dropped."""
    if role not in ROLES:
        raise ValueError(f"cache role {role!r}")
    path = cache_path(outdir, subject, role)
    with pinned(FORMAT):
        store = RowStore(path, KEY_FIELDS, config={"cache": role, "subject": subject})
    if compact(store, subject):
        with pinned(FORMAT):
            store = RowStore(path, KEY_FIELDS, config={"cache": role, "subject": subject})
    return store


def _is_current(row: dict[str, Any], subject: str, memo: dict[tuple[str, str], str | None]) -> bool:
    """Whether the row's versions are today's; rows of a method or generator that cannot be
    looked up here (a plugin not loaded in this process) are kept."""
    from schedlab.experiments.gap.cells import load_object
    from schedlab.experiments.gap.versions import generator_version, method_version

    def version(kind: str, name: str) -> str | None:
        if (kind, name) not in memo:
            try:
                memo[(kind, name)] = (
                    method_version(subject, name)
                    if kind == "method"
                    else generator_version(load_object(name))
                )
            except (InvalidInput, ImportError, AttributeError):
                memo[(kind, name)] = None
        return memo[(kind, name)]

    m, g = version("method", row["method"]), version("generator", row["generator"])
    return (m is None or m == row["version"]) and (g is None or g == row["gen_version"])


def compact(store: RowStore, subject: str) -> int:
    """Rewrite the journal without its stale rows; the number dropped."""
    memo: dict[tuple[str, str], str | None] = {}
    keep = [r for r in store.rows if _is_current(r, subject, memo)]
    dropped = len(store.rows) - len(keep)
    if dropped:
        header = json.dumps({"_config": store.config, "_code": store.code})
        lines = [header]
        for r in keep:  # each row with what it cost, as journaled
            cost = store.cost_of(store.key(r))
            lines.append(json.dumps({**r, COST_KEY: cost} if cost else r))
        atomic_write_text(store.path, "\n".join(lines) + "\n")
    return dropped
