"""Switches between schedlab's simulator rules and those of the Synergy authors' simulator.

schedlab's Synergy simulator departs from msr-fiddle/synergy @1bb2bed (`simulator/`, MIT
License) on purpose in a few places; each departure is one switch here (and one flag of
`schedlab synergy simulate`), so that a side-by-side run can turn them on one at a time
(`fig_authors.py` measures how much of the gap each closes). `Fidelity.as_authors()` turns all
of them on (`--as-authors`, together with the authors' job stream, `--stream authors`).

- `completion`: "exact" (a job completes the moment its work runs out) or "round-end" (theirs:
  a job completes at the end of the round (lease) in which its work runs out, and holds its
  resources to then).
- `speed`: "table" (a job runs at the profiled throughput of the configuration it got) or
  "binary" (theirs, outside OPT: the model's speedup at its ideal configuration when it got
  exactly that, else 1; their OPT reads the table, and so does ours under "binary").
- `iterations`: "continuous" (work in proportional-share seconds, never rounded) or "integer"
  (theirs: a job has int(duration / iteration time) iterations and makes
  floor(round / (iteration time / speed)) of them per round).
- `policy`: "schedlab" or "authors" (their ordering and admission details): SRTF estimates a
  job's remaining time with speedup 1 when TUNE moved it off its ideal in the previous round
  (their speedup is reset only after the sort); LAS, DRF and TETRIS offer the allocator only
  the jobs GPU-proportional admits (no back-filling for GREEDY), LAS+TUNE in descending GPU
  demand; FTF sorts its fairness ratio ascending; the starvation bump (1000 h without running)
  takes effect from the round after it is noticed.
- `opt`: "schedlab" (phase 1 MILP maximizing sum(gpus * tput), phase 2 LP packing servers,
  rounding) or "authors" (their simulated OPT: phase 1 only, maximizing the unweighted
  sum of per-GPU throughputs over the cluster treated as one machine; no per-server placement).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from schedlab.solvers.errors import InvalidInput

CHOICES: dict[str, tuple[str, str]] = {
    "completion": ("exact", "round-end"),
    "speed": ("table", "binary"),
    "iterations": ("continuous", "integer"),
    "policy": ("schedlab", "authors"),
    "opt": ("schedlab", "authors"),
}


@dataclass(frozen=True)
class Fidelity:
    """One value per switch (see module docstring); the first choice is schedlab's."""

    completion: str = "exact"
    speed: str = "table"
    iterations: str = "continuous"
    policy: str = "schedlab"
    opt: str = "schedlab"

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if v not in CHOICES[f.name]:
                raise InvalidInput(
                    f"{f.name}: must be one of {', '.join(CHOICES[f.name])} (got {v!r})"
                )

    @classmethod
    def as_authors(cls) -> Fidelity:
        """Every switch at the authors' rule."""
        return cls(**{name: pair[1] for name, pair in CHOICES.items()})

    def with_authors(self, *names: str) -> Fidelity:
        """A copy with the named switches at the authors' rule."""
        for n in names:
            if n not in CHOICES:
                raise InvalidInput(f"switch: unknown {n!r}; known: {', '.join(CHOICES)}")
        return replace(self, **{n: CHOICES[n][1] for n in names})

    @property
    def authors_switches(self) -> list[str]:
        """Names of the switches at the authors' rule."""
        return [n for n, pair in CHOICES.items() if getattr(self, n) == pair[1]]

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
