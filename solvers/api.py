"""The public Python API's solve: `schedlab.solve(problem, method, ...)` for every subject.

A thin layer over `schedlab.solvers.solve.solve` for people at a prompt or in a notebook: it
checks that what it was given is a problem (a `TypeError` saying how to build one, never an
`AttributeError` from deep inside), and returns a `Result`: the same `SolveResult`, naming the
subject, the objective and its sense, printing as one line and converting to a dict or a
pandas row. Each subject's facade (`schedlab.solvers.<subject>.api`, i.e. `schedlab.<subject>`)
builds the problems; nothing here imports a subject or a solver until it is used.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import ModuleType
from typing import Any

from schedlab.solvers.result import SolveResult

#: How a user builds a problem of any subject (said in every refusal of a wrong object).
HOW_TO_BUILD = (
    "build one with schedlab.<subject>.generate(seed=...) or schedlab.<subject>.load(path), "
    "<subject> one of sojourn, synergy, slaq, esg"
)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.6g}"


@dataclass(frozen=True, repr=False)
class Result(SolveResult[Any]):
    """A `SolveResult` that says what it solved: `subject`, `objective` (sojourn: "B",
    "TK(K=2)", ...) and `sense` ("min" or "max"). Prints as one line; `to_dict()` adds the
    three names, `to_frame()` is a one-row pandas DataFrame (pandas must be installed)."""

    subject: str = ""
    objective: str = ""
    sense: str = ""

    def __str__(self) -> str:
        head = f"{self.subject} {self.objective} ({self.sense}) by {self.method}: {self.status}"
        if self.value is None:
            return f"{head}, no solution, {self.runtime_s:.3g} s"
        bound = "" if self.bound is None else f", bound {_fmt(self.bound)}"
        return f"{head}, value {_fmt(self.value)}{bound}, {self.runtime_s:.3g} s"

    def __repr__(self) -> str:
        return f"<Result {self}>"

    def gap_to(self, other: SolveResult[Any]) -> float | None:
        """How much worse this value is than `other`'s, relative to `other`'s (0.05: 5 %
        worse; negative: better), in this result's sense; None when a value is missing."""
        if self.value is None or other.value is None:
            return None
        worse = self.value - other.value if self.sense == "min" else other.value - self.value
        return worse / max(abs(other.value), 1e-12)

    def to_dict(self) -> dict[str, Any]:
        """`SolveResult.to_dict()` and the subject, objective and sense."""
        return {
            **super().to_dict(),
            "subject": self.subject,
            "objective": self.objective,
            "sense": self.sense,
        }

    def to_frame(self) -> Any:
        """One row of a pandas DataFrame: the scalar fields and each scalar stat as
        `stats.<name>` (the solution stays in `solution` / `to_dict()`)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "Result.to_frame() needs pandas, which is not installed: `pip install pandas` "
                "(or use Result.to_dict(), which needs nothing)"
            ) from None
        d = self.to_dict()
        row = {k: v for k, v in d.items() if k not in ("solution", "stats")}
        scalar = (bool, int, float, str, type(None))
        row.update({f"stats.{k}": v for k, v in self.stats.items() if isinstance(v, scalar)})
        return pd.DataFrame([row])


def subject_api(subject: str) -> ModuleType:
    """The facade module of `subject` (`schedlab.solvers.<subject>.api`)."""
    return importlib.import_module(f"schedlab.solvers.{subject}.api")


def _sojourn_instance(problem: object) -> bool:
    cls = type(problem)
    return cls.__name__ == "Instance" and cls.__module__.endswith(".sojourn.problem")


def check_problem(problem: object) -> str:
    """The subject of `problem`; a `TypeError`/`ValueError` saying how to build a problem
    when it is not one (a path, a class, a sojourn Instance without objective, ...)."""
    got = type(problem).__name__
    if isinstance(problem, (str, os.PathLike)):
        raise TypeError(
            f"solve: got a path ({problem!s}), not a problem; load the file first: "
            "schedlab.<subject>.load(path), <subject> one of sojourn, synergy, slaq, esg"
        )
    if _sojourn_instance(problem):
        raise TypeError(
            "solve: a sojourn Instance is not a problem: it has no objective. Make it one with "
            "schedlab.sojourn.problem(instance, objective='B'), or build the problem directly "
            "with schedlab.sojourn.generate(..., objective='B') or "
            "schedlab.sojourn.load(path, objective='B')"
        )
    if isinstance(problem, type):
        raise TypeError(f"solve: got the class {problem.__name__}, not a problem; {HOW_TO_BUILD}")
    subject = getattr(type(problem), "subject", None)
    if not isinstance(subject, str):
        raise TypeError(f"solve: a {got} is not a problem (it has no `subject`); {HOW_TO_BUILD}")
    from schedlab.solvers.subjects import subjects

    if subject not in subjects():
        raise ValueError(
            f"solve: a {got} names the subject {subject!r}, which is none of "
            f"{', '.join(subjects())}; {HOW_TO_BUILD}"
        )
    if not isinstance(getattr(problem, "kind", None), str):
        raise TypeError(f"solve: a {got} has no problem `kind` (a str); {HOW_TO_BUILD}")
    return subject


def solve(
    problem: Any,
    method: str,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: Mapping[str, Any] | object | None = None,
) -> Result:
    """Solve `problem` (from `schedlab.<subject>.generate` or `.load`) with `method`, one of
    `schedlab.methods(problem)`; the time limit in seconds (None: none), the seed for
    randomized methods and solvers, `options` the method's options (a mapping of its fields).
    Bad input is a `TypeError` or `ValueError` (`InvalidInput`) naming the fix."""
    subject = check_problem(problem)
    if not isinstance(method, str):
        raise TypeError(
            f"solve: method must be a method's name (a str, e.g. one of "
            f"schedlab.methods(problem)), got a {type(method).__name__}"
        )
    from schedlab.solvers.solve import solve as solve_any

    res = solve_any(problem, method, time_limit=time_limit, seed=seed, options=options)
    facade = subject_api(subject)
    return Result(
        **{f.name: getattr(res, f.name) for f in fields(SolveResult)},
        subject=subject,
        objective=facade.objective(problem),
        sense=facade.SENSE,
    )


def methods(problem_or_subject: Any, *, exact: bool | None = None) -> list[str]:
    """The method names that solve this problem (or, given a subject's name, that subject's),
    in registration order; `exact` True or False keeps only exact methods or heuristics."""
    if isinstance(problem_or_subject, str):
        subject, kind = problem_or_subject, None
        from schedlab.solvers.subjects import subjects

        if subject not in subjects():
            raise ValueError(f"methods: unknown subject {subject!r}; one of {subjects()}")
    else:
        subject, kind = check_problem(problem_or_subject), problem_or_subject.kind
    from schedlab.solvers.solve import METHODS

    return [
        e.name
        for e in METHODS.entries(scope=subject)
        if (exact is None or e.meta.get("exact") == exact)
        and (kind is None or e.meta.get("kinds") is None or kind in e.meta["kinds"])
    ]
