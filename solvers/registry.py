"""Registries of solve methods, so the CLI and experiments look methods up by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schedlab.solvers.errors import InvalidInput


@dataclass(frozen=True)
class MethodInfo:
    """A registered method: its callable, whether it is exact, and a one-line summary."""

    name: str
    func: Callable[..., Any]
    exact: bool
    summary: str


class MethodRegistry:
    """Name -> solve function for one subject. Use `@REGISTRY.register("name", exact=...)`."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        self._methods: dict[str, MethodInfo] = {}

    def register(
        self, name: str, *, exact: bool, summary: str = ""
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def deco(func: Callable[..., Any]) -> Callable[..., Any]:
            if name in self._methods:
                raise ValueError(f"{self.subject}: method {name!r} registered twice")
            doc = summary or (func.__doc__ or "").strip().splitlines()[0] if func.__doc__ else ""
            self._methods[name] = MethodInfo(name, func, exact, summary or doc)
            return func

        return deco

    def get(self, name: str) -> MethodInfo:
        try:
            return self._methods[name]
        except KeyError:
            known = ", ".join(sorted(self._methods))
            raise InvalidInput(
                f"method: unknown {self.subject} method {name!r}; choose one of: {known}"
            ) from None

    def names(self, *, exact: bool | None = None) -> list[str]:
        return [n for n, m in self._methods.items() if exact is None or m.exact == exact]

    def __contains__(self, name: object) -> bool:
        return name in self._methods
