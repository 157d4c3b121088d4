"""One JSON form for the problem files of every subject: the text, the atomic save, and reading
back with the door's rules (`validate.parse_json`, `validate.load_json_file`), so each subject's
problem type only says how it maps to and from a dict (`to_dict`, `from_dict`).

Reading has one meaning per name in every subject: `load(path)` reads a file, `loads(text,
source=...)` parses a JSON text (errors name `source`: a file name, "<stdin>")."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.util import atomic_write_text
from schedlab.solvers.validate import load_json_file, parse_json

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
