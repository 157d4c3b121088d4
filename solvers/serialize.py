"""One JSON form for the problem files of every subject: the text, the atomic save, and reading
back with the door's rules (`validate.parse_json`, `validate.load_json_file`), so each subject's
problem type only says how it maps to and from a dict (`to_dict`, `from_dict`).

Reading has one meaning per name in every subject: `load(path)` reads a file, `loads(text,
source=...)` parses a JSON text (errors name `source`: a file name, "<stdin>")."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.util import atomic_write_text
from schedlab.solvers.validate import check_id, load_json_file, parse_json

T = TypeVar("T")


class JsonFile:
    """`load`, `loads`, `to_json` and `save` of a problem type from its `from_dict` and
    `to_dict` (the one JSON form). `FILE_WHAT` names the file in messages."""

    FILE_WHAT: ClassVar[str] = "the file"

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - every problem type defines it
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data: Any) -> Self:  # pragma: no cover - every problem type defines it
        raise NotImplementedError

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read the file at `path` with the door's rules (UTF-8, size cap, guarded JSON);
        InvalidInput names the file."""
        return load_as(cls.from_dict, path, cls.FILE_WHAT)

    @classmethod
    def loads(cls, text: str, *, source: str | None = None) -> Self:
        """Parse the JSON `text` with the door's guards; InvalidInput names `source`."""
        return parse_as(cls.from_dict, text, source)

    def to_json(self, indent: int | None = 1) -> str:
        """The JSON text of `to_dict` (indent 1 by default: the form of the files)."""
        return json_text(self.to_dict(), indent)

    def save(self, path: str | Path) -> None:
        """Write the file atomically (temporary file, then rename)."""
        save_json(path, self.to_dict())


class JobListFile(JsonFile):
    """A problem file whose `jobs` each have an `id`: their number and ids, once."""

    jobs: tuple[Any, ...]

    @property
    def n(self) -> int:
        return len(self.jobs)

    @property
    def ids(self) -> list[str]:
        return [j.id for j in self.jobs]


def json_text(data: Any, indent: int | None = 1) -> str:
    """A problem's dict as JSON text (indent 1 by default: the form of the files)."""
    return json.dumps(data, indent=indent)


def save_json(path: str | Path, data: Any) -> None:
    """Write `json_text(data)` and a newline atomically (a temporary file, then a rename)."""
    atomic_write_text(Path(path), json_text(data) + "\n")


def parse_as(build: Callable[[Any], T], text: str, source: str | None = None) -> T:
    """`build` of the JSON `text`, parsed with the door's guards; InvalidInput names `source`."""
    data = parse_json(text, source)
    try:
        return build(data)
    except InvalidInput as exc:
        raise (exc.with_source(source) if source else exc) from None


def load_as(build: Callable[[Any], T], path: str | Path, what: str) -> T:
    """`build` of the JSON file at `path`, read with the door's rules (`what` names it in
    messages); InvalidInput names the file."""
    data = load_json_file(path, what)
    try:
        return build(data)
    except InvalidInput as exc:
        raise exc.with_source(str(path)) from None


# ---- the parts every job-list file checks alike ---------------------------------------------
def unknown_fields(data: Mapping[str, Any], allowed: Collection[str], problems: Problems) -> None:
    """One problem naming the top-level fields of `data` outside `allowed`."""
    unknown = set(data) - set(allowed)
    if unknown:
        problems.add(
            f"unknown top-level field(s) {sorted(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )


def name_and_meta(data: Mapping[str, Any], problems: Problems) -> tuple[str | None, dict[str, Any]]:
    """The optional `name` (a string) and `meta` (an object) of a problem file."""
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        problems.add(f"field 'name' must be a string (got {name!r})")
        name = None
    meta = data.get("meta", {})
    if not isinstance(meta, Mapping):
        problems.add(f"field 'meta' must be an object (got {meta!r})")
        meta = {}
    return name, dict(meta)


def id_problems(ids: Iterable[Any], problems: Problems) -> None:
    """Each job id a valid id (`validate.check_id`) and unique: a problem per bad id and per
    repetition (the check of a problem built in Python)."""
    seen: set[Any] = set()
    for jid in ids:
        bad = check_id(jid, "job: field 'id'")
        if bad:
            problems.add(bad)
        if jid in seen:
            problems.add(f"job {jid!r}: field 'id' is duplicated; ids must be unique")
        seen.add(jid)


def duplicate_ids(ids: Iterable[Any], problems: Problems) -> None:
    """A problem per id that a file repeats, in sorted order (the check of a file)."""
    for dup in sorted(i for i, k in Counter(ids).items() if k > 1):
        problems.add(f"job {dup!r}: field 'id' is duplicated; ids must be unique")
