"""The sojourn problem as `schedlab.solvers.solve` sees it: an instance and an objective.

`SojournProblem(instance, objective)` has `subject = "sojourn"` and `kind` = the objective's
kind ("A", "B", "TK", "DK"), so a method registered with `kinds={"A", "B"}` is refused for TK
and DK before it runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedlab.solvers.sojourn.instance import Instance
from schedlab.solvers.sojourn.objectives import Objective

SUBJECT = "sojourn"


@dataclass(frozen=True)
class SojournProblem:
    """Find a non-preemptive order of `instance`'s jobs that minimizes `objective`."""

    subject: ClassVar[str] = SUBJECT
    instance: Instance
    objective: Objective

    def __post_init__(self) -> None:
        self.objective.check_for(self.instance)

    @property
    def kind(self) -> str:
        """The objective's kind: what a method's `kinds` must contain."""
        return self.objective.kind
