"""Errors shared by every subject: one `InvalidInput` that lists every problem found."""

from __future__ import annotations

from collections.abc import Iterable


class InvalidInput(ValueError):
    """Bad user input. `problems` lists every issue found, each naming the item and field.

    The CLI turns it into exit code 2 and a readable message, never a traceback.
    """

    def __init__(self, problems: Iterable[str] | str, *, source: str | None = None) -> None:
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = list(problems)
        self.source = source
        super().__init__(self._message())

    def _message(self) -> str:
        where = f"{self.source}: " if self.source else ""
        if len(self.problems) == 1:
            return f"{where}{self.problems[0]}"
        lines = "\n".join(f"  - {p}" for p in self.problems)
        return f"{where}{len(self.problems)} problems found:\n{lines}"

    def with_source(self, source: str) -> InvalidInput:
        """Return the same error naming the file (or other source) it came from."""
        return InvalidInput(self.problems, source=source)


class Problems:
    """Collects validation problems so that all of them are reported together."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, message: str) -> None:
        self.items.append(message)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, source: str | None = None) -> None:
        if self.items:
            raise InvalidInput(self.items, source=source)
