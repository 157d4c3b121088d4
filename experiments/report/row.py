"""One row of the report: a catalogue claim beside our number (`ClaimRow`).

Built by `collect`, drawn by `render` and `pictures`, and its fields are the shape that
`shape.check_report` holds a written report.json to: so it lives below all of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ClaimRow:
    """One catalogue claim beside our number, its verdict, freshness and resources."""

    subject: str
    claim_id: str
    kind: str
    locator: str
    statement: str
    metric: str
    primary: str
    alternatives: list[str]
    quote: str
    paper_number: str
    authors_number: str
    reference: str  # which number the verdict compares with: paper / authors' code / none
    ours: str
    ours_points: list[dict[str, Any]]
    like_for_like: dict[str, str]
    deviations: list[str]
    withdrawn_theorem: bool
    verify: str
    verdict: str
    reason: str
    evidence: str  # the result file, or the saved counterexample of a failing check
    study: str
    command: str
    freshness: str  # fresh | stale | missing
    code_version: str
    current_version: str
    wall_s: float | None
    cpu_s: float | None
    peak_mb: float | None
    paper_setup: dict[str, str] = field(default_factory=dict)
    size: str = ""
    reference_band: list[float] | None = None  # [centre, band low, band high] of the reference
    # The decision (theory.reproduction.decide): the named point, how it was read, what decided.
    reading: str = ""  # "like for like" | "our reading" | "" (nothing decided)
    paper_point: dict[str, str] = field(default_factory=dict)  # at / why, or none
    decided: dict[str, Any] | None = None  # the deciding Estimate (value, low, high, at, seeds)
    band: list[float | None] | None = None  # [low, high] held against (None: an open side)
    replications: int | None = None  # seeds that would settle an inconclusive interval
    source: str = ""  # where the reference number comes from (the catalogue's `source`)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
