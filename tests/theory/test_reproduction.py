"""The verdict rule: every verdict reachable, and each flips when one number crosses a line."""

from __future__ import annotations

import dataclasses

import pytest

from schedlab.theory.catalogue import Claim, Number, Ours, Tolerance
from schedlab.theory.reproduction import VERDICTS, Estimate, decide

YES = dict.fromkeys(("workload", "metric", "baseline", "scale"), "yes")


def claim(
    value: float | None = 10.0, shape: str = "point", check: dict | None = None, **kw
) -> Claim:
    number = None if value is None else Number(value=value, shape=shape, unit="%")
    return Claim(
        subject="toy", id="c", kind="paper", locator="abstract", statement="s", metric="m",
        primary="p", paper_setup={}, like_for_like=check or YES,
        ours=kw.pop("ours", Ours(file="f.csv", column="x", study="toy")),
        paper_number=number, tolerance=Tolerance(rel=0.1, magnitude=2.0), **kw,
    )  # fmt: skip


def pt(v: float, half: float | None = None, at=None) -> Estimate:
    if half is None:
        return Estimate(v, at=at)
    return Estimate(v, v - half, v + half, at=at)


def test_point_claim_flips_from_reproduced_to_magnitude_to_refuted():
    c = claim(10.0)
    assert decide(c, [pt(10.9)]).verdict == "reproduced"  # inside 10 +- 1
    assert decide(c, [pt(11.1)]).verdict == "consistent in magnitude"  # just outside
    assert decide(c, [pt(11.1, half=0.2)]).verdict == "reproduced"  # its interval reaches 11
    assert decide(c, [pt(19.9)]).verdict == "consistent in magnitude"  # within 2x
    assert decide(c, [pt(20.1)]).verdict == "refuted"  # beyond 2x, like for like
    assert decide(c, [pt(-10.0)]).verdict == "refuted"  # the other sign


def test_not_like_for_like_never_reproduces_or_refutes():
    c = claim(10.0, check={**YES, "scale": "unknown"})
    assert decide(c, [pt(10.0)]).verdict == "consistent in magnitude"
    assert decide(c, [pt(40.0)]).verdict == "not comparable"


def test_sweep_matched_at_a_chosen_point_and_up_to():
    c = claim(10.0)
    pts = [pt(5.0, at=1), pt(10.2, at=2), pt(30.0, at=3)]
    d = decide(c, pts)
    assert (d.verdict, d.points, d.matched) == ("matched at a chosen point", 3, 1)
    up_to = claim(10.0, shape="max")
    assert decide(up_to, [pt(5.0), pt(10.4)]).verdict == "reproduced"  # the largest is 10.4
    assert decide(up_to, [pt(5.0), pt(10.2), pt(30.0)]).verdict == "matched at a chosen point"
    assert decide(up_to, [pt(5.0), pt(16.0)]).verdict == "consistent in magnitude"


def test_range_reference():
    c = dataclasses.replace(claim(None), paper_number=Number(low=61, high=80, shape="range"))
    assert decide(c, [pt(70.0), pt(85.0)]).verdict == "reproduced"  # 80 + 8 tolerance
    assert decide(c, [pt(70.0), pt(90.0)]).verdict == "matched at a chosen point"
    assert decide(c, [pt(200.0)]).verdict == "refuted"


def test_missing_and_not_comparable():
    assert decide(claim(10.0), []).verdict == "missing"
    assert decide(claim(10.0), [pt(float("nan"))]).verdict == "missing"
    assert decide(claim(None), [pt(3.0)]).verdict == "not comparable"
    none = claim(10.0, ours=Ours(none="the study does not exist"))
    assert decide(none, [pt(10.0)]).verdict == "missing"


def test_the_authors_number_is_the_reference_when_the_paper_states_none():
    c = dataclasses.replace(claim(None), authors_number=Number(value=21.88, unit="h"))
    d = decide(c, [pt(22.0)])
    assert d.verdict == "reproduced" and "authors' code" in d.reason
    assert decide(c, [pt(25.0)]).verdict == "consistent in magnitude"


@pytest.mark.parametrize(
    "check, expected",
    [("holds", "reproduced"), ("fails", "refuted"), ("inconclusive", "not comparable"),
     (None, "missing")],
)  # fmt: skip
def test_verify_claims(check, expected):
    c = claim(None, ours=Ours(claim="13"))
    assert decide(c, None, check).verdict == expected
    derived = claim(None, ours=Ours(claim="13"), check={**YES, "metric": "unknown"})
    if check == "holds":
        assert decide(derived, None, check).verdict == "matched at a chosen point"


def test_every_verdict_is_reached_above():
    reached = {
        decide(claim(10.0), [pt(10.0)]).verdict,
        decide(claim(10.0), [pt(15.0)]).verdict,
        decide(claim(10.0), [pt(5.0), pt(10.0)]).verdict,
        decide(claim(10.0), [pt(50.0)]).verdict,
        decide(claim(None), [pt(1.0)]).verdict,
        decide(claim(10.0), []).verdict,
    }
    assert reached == set(VERDICTS)
