"""Resumable, atomic result files.

`RowStore` appends each finished row to a JSON-lines journal (flushed and fsynced), skips
rows whose key is already there on rerun, and writes the final CSV/JSON atomically. A torn
last line from an interrupted run is ignored, so nothing finished is ever lost.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from schedlab.solvers.util import atomic_write_text


def results_dir(outdir: Path, subject: str) -> Path:
    """results/<subject>/, created if needed."""
    d = Path(outdir) / subject
    d.mkdir(parents=True, exist_ok=True)
    return d


class RowStore:
    """A journal of finished rows keyed by `key_fields`; rerunning skips finished keys."""

    def __init__(
        self, path: Path, key_fields: Sequence[str], *, config: dict[str, Any] | None = None
    ):
        self.path = Path(path)
        self.key_fields = tuple(key_fields)
        self.config = config or {}
        self.rows: list[dict[str, Any]] = []
        self._keys: set[tuple[Any, ...]] = set()
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        lines = self.path.read_text().splitlines()
        if not lines:
            return
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = {}
        if header.get("_config") != self.config:
            # Different settings: the old journal does not apply; start afresh.
            self.path.unlink()
            return
        for line in lines[1:]:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # torn last line of an interrupted run
            self._remember(row)

    def _remember(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        self._keys.add(self.key(row))

    def key(self, row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[k] for k in self.key_fields)

    def done(self, **key: Any) -> bool:
        return tuple(key[k] for k in self.key_fields) in self._keys

    def add(self, row: dict[str, Any]) -> None:
        """Append one finished row durably."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists()
        with open(self.path, "a") as fh:
            if new:
                fh.write(json.dumps({"_config": self.config}) + "\n")
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self._remember(row)

    def run(
        self,
        keys: Iterable[dict[str, Any]],
        compute: Callable[[dict[str, Any]], dict[str, Any]],
        *,
        desc: str = "",
    ) -> list[dict[str, Any]]:
        """Compute every key not yet done (with a progress bar); return all rows."""
        from tqdm import tqdm

        todo = [k for k in keys if not self.done(**k)]
        for k in tqdm(todo, desc=desc or self.path.stem, disable=None, leave=False):
            self.add({**k, **compute(k)})
        return self.rows


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
