"""`schedlab.sojourn`: sojourn problems to hand to `schedlab.solve`, generated or loaded.

A sojourn problem is an instance (jobs with a discrete size distribution, `Instance`) and the
objective its order minimizes (`Objective`: A, B, TK or DK, K for the last two), together a
`SojournProblem`. Thin: it delegates to `generate`, `problem` and `objectives`.
"""

from __future__ import annotations

from pathlib import Path

from schedlab.solvers.sojourn.generate import FAMILIES
from schedlab.solvers.sojourn.generate import generate as generate_instance
from schedlab.solvers.sojourn.objectives import OBJECTIVES, Objective
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.validate import check_seed

__all__ = [
    "FAMILIES",
    "OBJECTIVES",
    "Instance",
    "Objective",
    "SojournProblem",
    "generate",
    "load",
    "objective",
    "problem",
]

#: Every sojourn objective is minimized.
SENSE = "min"


def problem(instance: Instance, objective: str = "B", *, k: int | None = None) -> SojournProblem:
    """`instance` under `objective` (A, B, TK or DK; `k` = K for TK and DK): a problem."""
    return SojournProblem(instance, Objective.parse(objective, k))


def generate(
    *,
    jobs: int | None = None,
    seed: int,
    objective: str = "B",
    k: int | None = None,
    family: str = "default",
    max_checkpoints: int = 3,
    min_size: float = 1.0,
    max_size: float = 100.0,
    n: int | None = None,
) -> SojournProblem:
    """A seeded random problem of `jobs` jobs (default 8; `n` is the same, the CLI's name)
    from `family` (default or cyclic; the size options apply to default), under `objective`."""
    if jobs is not None and n is not None:
        raise TypeError("generate: give the number of jobs once, as jobs= or n=, not both")
    check_seed(seed, allow_none=False)
    size = jobs if jobs is not None else n if n is not None else 8
    inst = generate_instance(
        size,
        seed,
        family=family,
        max_checkpoints=max_checkpoints,
        min_size=min_size,
        max_size=max_size,
    )
    return problem(inst, objective, k=k)


def load(path: str | Path, *, objective: str = "B", k: int | None = None) -> SojournProblem:
    """The instance file at `path` (the CLI's format) under `objective` (K = `k`)."""
    return problem(Instance.load(path), objective, k=k)


def objective(prob: SojournProblem) -> str:
    """The objective's name in results: "B", "TK(K=2)", ..."""
    return prob.objective.label
