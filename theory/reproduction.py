"""The verdict of a reproduction: a catalogue claim row and our number -> one fixed word.

`decide(claim, points, claim_verdict)` is the one rule (docs/claims.md, "The verdicts"); the
report calls it for every row, and nothing types a verdict by hand. `points` are our estimates
(one per swept point, each with its 95% interval when the study gives one); `claim_verdict` is
the `schedlab verify` outcome (holds / fails / inconclusive) for a row that reports a claim check.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schedlab.theory.catalogue import Claim, Number

REPRODUCED = "reproduced"
MAGNITUDE = "consistent in magnitude"
CHOSEN_POINT = "matched at a chosen point"
REFUTED = "refuted"
NOT_COMPARABLE = "not comparable"
MISSING = "missing"
VERDICTS = (REPRODUCED, MAGNITUDE, CHOSEN_POINT, REFUTED, NOT_COMPARABLE, MISSING)


@dataclass(frozen=True)
class Estimate:
    """Our value at one point: the estimate, its 95% interval if known, the swept value."""

    value: float
    low: float | None = None
    high: float | None = None
    at: Any = None
    seeds: int | None = None

    @property
    def interval(self) -> tuple[float, float]:
        lo = self.value if self.low is None else self.low
        hi = self.value if self.high is None else self.high
        return min(lo, self.value), max(hi, self.value)


@dataclass(frozen=True)
class Decision:
    verdict: str
    reason: str
    points: int = 0
    matched: int = 0
    compared: Estimate | None = None


def band(number: Number, claim: Claim) -> tuple[float, float]:
    """The reference's tolerance band: [low - tol(low), high + tol(high)]."""
    lo, hi = number.band
    return lo - claim.tolerance.width(lo), hi + claim.tolerance.width(hi)


def matches(point: Estimate, number: Number, claim: Claim) -> bool:
    """Our interval meets the reference's tolerance band."""
    lo, hi = point.interval
    b_lo, b_hi = band(number, claim)
    return lo <= b_hi and hi >= b_lo


def within_magnitude(point: Estimate, number: Number, factor: float) -> bool:
    """Same sign and within `factor` of the nearest end of the reference."""
    lo, hi = number.band
    ref = min(max(point.value, lo), hi)
    if ref == 0 or point.value == 0 or (ref > 0) != (point.value > 0):
        return point.value == ref
    ratio = point.value / ref
    return 1 / factor <= ratio <= factor


def _all_yes(claim: Claim) -> bool:
    return all(v == "yes" for v in claim.like_for_like.values())


def _from_check(claim: Claim, claim_verdict: str | None) -> Decision:
    if claim_verdict is None:
        return Decision(MISSING, f"claim {claim.ours.claim} has no verdict in this results folder")
    if claim_verdict == "holds":
        if _all_yes(claim):
            return Decision(REPRODUCED, "the check holds, like for like")
        return Decision(CHOSEN_POINT, "the check holds under the reading we chose")
    if claim_verdict == "fails":
        return Decision(REFUTED, "the check fails (counterexample saved)")
    return Decision(NOT_COMPARABLE, f"the check is {claim_verdict}")


def decide(
    claim: Claim, points: Sequence[Estimate] | None, claim_verdict: str | None = None
) -> Decision:
    """The verdict of one claim row (the rule of docs/claims.md)."""
    if claim.ours.none:
        return Decision(MISSING, f"no number of ours: {claim.ours.none}")
    if claim.ours.claim:
        return _from_check(claim, claim_verdict)
    pts = [p for p in points or [] if math.isfinite(p.value)]
    if not pts:
        return Decision(MISSING, "no result row (file absent, no row matches, or empty value)")
    ref = claim.reference
    if ref is None:
        return Decision(NOT_COMPARABLE, "the sources state no number to compare", len(pts))
    label, number = ref
    if number.shape in ("max", "min"):
        pick = max if number.shape == "max" else min
        compared = [pick(pts, key=lambda p: p.value)]
    else:
        compared = pts
    hit = [p for p in pts if matches(p, number, claim)]
    hit_compared = [p for p in compared if matches(p, number, claim)]
    n, m = len(pts), len(hit)
    first = compared[0] if len(compared) == 1 else None
    if len(hit_compared) == len(compared):
        word = REPRODUCED if _all_yes(claim) else MAGNITUDE
        why = "like for like" if word == REPRODUCED else "not like for like in every respect"
        return Decision(word, f"within tolerance of the {label} number, {why}", n, m, first)
    if hit:
        return Decision(CHOSEN_POINT, f"{m} of {n} points within tolerance", n, m, first)
    factor = claim.tolerance.magnitude
    if all(within_magnitude(p, number, factor) for p in compared):
        return Decision(MAGNITUDE, f"outside tolerance, within {factor:g}x", n, m, first)
    if _all_yes(claim):
        return Decision(REFUTED, f"outside {factor:g}x of the {label} number", n, m, first)
    return Decision(NOT_COMPARABLE, "far off, and not like for like", n, m, first)
