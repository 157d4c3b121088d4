"""The verdict of a reproduction: a catalogue claim row and our number -> one fixed word.

`decide(claim, points, claim_verdict)` is the one rule (docs/claims.md, "The verdicts"); the
report calls it for every row, and nothing types a verdict by hand. It is an equivalence test on
one point named before any result was read (the row's `paper_point`): that point's 95% interval
inside the reference's tolerance band reproduces the number, wholly outside refutes it (or
exceeds it, beyond the band on the side the claim favours), across an edge of the band is
inconclusive. The other swept points never decide: the report draws them as a sensitivity strip.
`points` are our estimates (one per swept point, each with its 95% interval when the study
gives one); `claim_verdict` is the `schedlab verify` outcome (holds / fails / inconclusive) for
a row that reports a claim check. A row that is not like for like in every respect gets the same
words, qualified "under our reading" (`Decision.reading`), and is counted apart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schedlab.theory.catalogue import SOURCE_KINDS, Claim, Number

REPRODUCED = "reproduced"
EXCEEDED = "exceeded"
INCONCLUSIVE = "inconclusive"
REFUTED = "refuted"
NOT_COMPARABLE = "not comparable"
MISSING = "missing"
VERDICTS = (REPRODUCED, EXCEEDED, INCONCLUSIVE, REFUTED, NOT_COMPARABLE, MISSING)
DECIDED = (REPRODUCED, EXCEEDED, INCONCLUSIVE, REFUTED)  # the words a reading qualifies

LIKE_FOR_LIKE = "like for like"
OUR_READING = "our reading"


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
    """A verdict with the one-line reason that shows the deciding number, the point that
    decided (None when none did), the band it was held against, and, for an inconclusive
    interval, how many replications would settle it (None when that cannot be said)."""

    verdict: str
    reason: str
    reading: str = ""
    compared: Estimate | None = None
    band: tuple[float, float] | None = None
    replications: int | None = None


def band(number: Number, claim: Claim) -> tuple[float, float]:
    """The reference's tolerance band, [low - tol(low), high + tol(high)], kept on the side of
    the claim's effect: an improvement's band never reaches "no improvement" (the catalogue
    refuses a tolerance that would, `catalogue._effect`)."""
    lo, hi = number.band
    return lo - claim.tolerance.width(lo), hi + claim.tolerance.width(hi)


def reading_of(claim: Claim) -> str:
    """`LIKE_FOR_LIKE` when every like-for-like item is "yes", else `OUR_READING`."""
    same = all(v == "yes" for v in claim.like_for_like.values())
    return LIKE_FOR_LIKE if same else OUR_READING


def pick_point(claim: Claim, points: Sequence[Estimate]) -> tuple[Estimate | None, str]:
    """The point named in advance (`claim.paper_point`), or None and why not.

    `at` is one of our points' labels (`sweep=value`), "max"/"min" (our largest/smallest:
    the same statistic as a paper's "up to"/"at least"), or "" for a row with one point."""
    pp = claim.paper_point
    if pp.none:
        return None, f"no point stands for the paper's setting: {pp.none}"
    if pp.at in ("max", "min"):
        pick = max if pp.at == "max" else min
        return pick(points, key=lambda p: p.value), ""
    if pp.at == "":
        if len(points) == 1:
            return points[0], ""
        return None, f"{len(points)} points and no paper_point named: none decides"
    for p in points:
        if str(p.at) == pp.at:
            return p, ""
    return None, f"the named point {pp.at} is not among our {len(points)} points"


def _favoured_side(claim: Claim, number: Number) -> str:
    """ "higher" or "lower": the side a claim of improvement or an "up to"/"at least" favours
    ("" when the claim states no direction)."""
    if claim.effect.better:
        return claim.effect.better
    return {"max": "higher", "min": "higher"}.get(number.shape, "")


def replications_to_settle(point: Estimate, lo_b: float, hi_b: float) -> int | None:
    """Seeds that would shrink the interval (as 1/sqrt(n)) clear of the band's edges around the
    estimate; None when the seeds are unknown or the estimate sits on an edge."""
    lo, hi = point.interval
    half = max(point.value - lo, hi - point.value)
    edges = [e for e in (lo_b, hi_b) if math.isfinite(e)]
    dist = min(abs(point.value - e) for e in edges) if edges else 0.0
    if not point.seeds or dist <= 0 or half <= 0:
        return None
    return max(point.seeds + 1, math.ceil(point.seeds * (half / dist) ** 2))


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _against(point: Estimate, number: Number, claim: Claim, label: str) -> Decision:
    """The equivalence test of one point against the reference's band."""
    lo_b, hi_b = band(number, claim)
    lo, hi = point.interval
    where = f" at {point.at}" if point.at not in (None, "") else ""
    shown = f"{_fmt(point.value)} [{_fmt(lo)}, {_fmt(hi)}]{where}"
    against = f"the {label} band [{_fmt(lo_b)}, {_fmt(hi_b)}]"

    def word(verdict: str, why: str, replications: int | None = None) -> Decision:
        return Decision(verdict, why, reading_of(claim), point, (lo_b, hi_b), replications)

    if lo_b <= lo and hi <= hi_b:
        return word(REPRODUCED, f"{shown} lies inside {against}")
    if hi < lo_b or lo > hi_b:
        side = "higher" if lo > hi_b else "lower"
        if side == _favoured_side(claim, number):
            above = "above" if side == "higher" else "below"
            why = f"{shown} lies wholly {above} {against}, in the claim's favour"
            return word(EXCEEDED, why)
        return word(REFUTED, f"{shown} lies wholly outside {against}")
    n = replications_to_settle(point, lo_b, hi_b)
    more = f"; about {n} seeds would settle it" if n else "; replications alone cannot settle it"
    return word(INCONCLUSIVE, f"{shown} straddles an edge of {against}{more}", n)


def _from_check(claim: Claim, claim_verdict: str | None) -> Decision:
    if claim_verdict is None:
        return Decision(MISSING, f"claim {claim.ours.claim} has no verdict in this results folder")
    word = {"holds": REPRODUCED, "fails": REFUTED, "inconclusive": INCONCLUSIVE}.get(claim_verdict)
    if word is None:
        return Decision(NOT_COMPARABLE, f"the check is {claim_verdict}")
    why = {
        REPRODUCED: "the check holds on every instance",
        REFUTED: "the check fails (counterexample saved)",
        INCONCLUSIVE: "the check is inconclusive (no proof either way within its limits)",
    }[word]
    return Decision(word, why, reading=reading_of(claim))


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
    if ref is None and not claim.effect.better:
        return Decision(NOT_COMPARABLE, "the sources state no number to compare")
    point, why = pick_point(claim, pts)
    if point is None:
        return Decision(NOT_COMPARABLE, why)
    if ref is None:
        return _direction(point, claim)
    label, number = ref
    return _against(point, number, claim, source_label(label, number))


def source_label(label: str, number: Number) -> str:
    """What the band's number is, for the reason: the kind its `source` starts with (abstract,
    authors' data, summary, ...), else the catalogue field's label (paper / authors' code)."""
    for kind in SOURCE_KINDS:
        if number.source.startswith(kind):
            return kind
    return label


def _direction(point: Estimate, claim: Claim) -> Decision:
    """A claim of improvement that states no number: its band is every value on the better
    side of no effect (open at no effect), so no improvement never reproduces it."""
    v = claim.effect.no_effect or 0.0
    inf = math.inf
    lo_b, hi_b = (v, inf) if claim.effect.better == "higher" else (-inf, v)
    lo, hi = point.interval
    where = f" at {point.at}" if point.at not in (None, "") else ""
    shown = f"{_fmt(point.value)} [{_fmt(lo)}, {_fmt(hi)}]{where}"
    side = "above" if claim.effect.better == "higher" else "below"

    def word(verdict: str, why: str, replications: int | None = None) -> Decision:
        return Decision(verdict, why, reading_of(claim), point, (lo_b, hi_b), replications)

    if (lo > v) if side == "above" else (hi < v):
        return word(
            REPRODUCED, f"{shown} lies wholly {side} no effect ({_fmt(v)}): the stated direction"
        )
    if (hi < v) if side == "above" else (lo > v):
        return word(REFUTED, f"{shown} lies wholly on the wrong side of {_fmt(v)}")
    n = replications_to_settle(point, v, v)
    more = f"; about {n} seeds would settle it" if n else "; replications alone cannot settle it"
    return word(INCONCLUSIVE, f"{shown} includes no effect ({_fmt(v)}){more}", n)
