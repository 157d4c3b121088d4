"""What a running study shares with the sweeps it runs: its counters and the run's one bar.

Two context variables, set by `studies` (`run_study`: the study whose thread this is;
`progress`: the run's one progress bar) and read by `sweep.run_cells`, which sits below the
studies and sees them only through the protocols here, so it imports no study code. Unset
(None) outside a study or a run's bar.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol


class StudyCounter(Protocol):
    """The part of a study's stats (`studies.StudyStats`) that a sweep updates."""

    def count_cells(self, total: int, reused_cpu_s: list[float]) -> None: ...

    def count_computed(self, cost: dict[str, float] | None, ok: bool) -> None: ...


class SharedBar(Protocol):
    """The part of the run's one progress bar (`studies.Progress`) that a sweep updates."""

    def add(self, total: int, done: int = 0) -> None: ...

    def advance(self, n: int = 1) -> None: ...


STUDY: ContextVar[StudyCounter | None] = ContextVar("schedlab_study", default=None)
PROGRESS: ContextVar[SharedBar | None] = ContextVar("schedlab_progress", default=None)
