"""Resumable, atomic result files.

`RowStore` appends each finished row to a JSON-lines journal (flushed and fsynced), skips
rows whose key is already there on rerun, and writes the final CSV/JSON atomically. A torn
last line from an interrupted run is ignored, so nothing finished is ever lost. A journal is
keyed by its settings and by the code version (`codeversion.current()`: the running study's
version when one is pinned, else the whole package's): rows computed by other settings or by
other code are dropped and recomputed, never mixed with new ones.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from schedlab.experiments import codeversion
from schedlab.solvers.util import atomic_write_text, check_output_path, ensure_output_dir

#: The journal line's field for what the row cost (`sweep.call_cell`); never part of a row.
COST_KEY = "_cost"


def results_dir(outdir: Path, subject: str) -> Path:
    """results/<subject>/, created if needed."""
    return ensure_output_dir(Path(outdir) / subject)


class RowStore:
    """A journal of finished rows keyed by `key_fields`; rerunning skips finished keys.

    The journal's first line records `config` and the code version; a journal whose header
    differs in either is discarded when the store opens, so a rerun with changed code
    recomputes while a rerun with unchanged code and settings resumes.
    """

    def __init__(
        self, path: Path, key_fields: Sequence[str], *, config: dict[str, Any] | None = None
    ):
        self.path = Path(path)
        self.key_fields = tuple(key_fields)
        self.config = config or {}
        self.code = codeversion.current()
        self.rows: list[dict[str, Any]] = []
        self._keys: set[tuple[Any, ...]] = set()
        self._costs: dict[tuple[Any, ...], dict[str, float]] = {}
        self._load()

    def _load(self) -> None:
        check_output_path(self.path, "journal")  # a FIFO or device here would block or break
        if not self.path.exists():
            return
        try:
            text = self.path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            # Not a journal add() wrote (binary or another encoding): it does not apply.
            self.path.unlink()
            return
        if not text.endswith("\n"):
            # Cut a torn last line of an interrupted run, so the next row starts a line.
            text = text[: text.rfind("\n") + 1]
            os.truncate(self.path, len(text.encode()))
        lines = text.splitlines()
        if not lines:
            self.path.unlink()  # no header: add() starts the journal afresh
            return
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = {}
        if not isinstance(header, dict):
            header = {}  # JSON, but not a header add() wrote (a list, a number, ...)
        if header.get("_config") != self.config or header.get("_code") != self.code:
            # Different settings or code: the old journal does not apply; start afresh.
            self.path.unlink()
            return
        for line in lines[1:]:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line that is not JSON (not written by add()): ignore it
            if isinstance(row, dict) and all(k in row for k in self.key_fields):
                self._remember(row)  # anything else was not written by add(): ignore it

    def _remember(self, row: dict[str, Any]) -> None:
        cost = row.pop(COST_KEY, None)
        self.rows.append(row)
        key = self.key(row)
        self._keys.add(key)
        if isinstance(cost, dict):
            self._costs[key] = cost

    def cost_of(self, key: tuple[Any, ...]) -> dict[str, float]:
        """What computing the row `key` cost when it was journaled (`{}` if not recorded)."""
        return self._costs.get(key, {})

    def key(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[k] for k in self.key_fields)

    def done(self, **key: Any) -> bool:
        return tuple(key[k] for k in self.key_fields) in self._keys

    def add(self, row: dict[str, Any], *, cost: dict[str, float] | None = None) -> None:
        """Append one finished row durably (with what it cost, kept apart from the row)."""
        check_output_path(self.path, "journal")
        new = not self.path.exists()
        with open(self.path, "a") as fh:
            if new:
                fh.write(json.dumps({"_config": self.config, "_code": self.code}) + "\n")
            line = {**row, COST_KEY: cost} if cost else row
            fh.write(json.dumps(line) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self._remember(dict(line))

    def run(
        self,
        keys: Iterable[dict[str, Any]],
        compute: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        desc: str = "",
    ) -> list[dict[str, Any]]:
        """The rows of `keys` in their order, computing those not yet done on the current sweep
        engine (`sweep.run_cells`: in-process unless a `sweep.using` block chose one)."""
        from schedlab.experiments.sweep import run_cells

        return run_cells(compute, keys, store=self, desc=desc)


def write_csv(
    path: Path, rows: Sequence[dict[str, Any]], fields: Sequence[str] | None = None
) -> Path:
    """Write rows as CSV atomically."""
    fields = list(fields or (rows[0].keys() if rows else []))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    atomic_write_text(Path(path), buf.getvalue())
    return Path(path)


def write_json(path: Path, obj: Any) -> Path:
    atomic_write_text(Path(path), json.dumps(obj, indent=1) + "\n")
    return Path(path)
