"""The verdict rule: every verdict reachable, and each flips when one number or interval moves."""

from __future__ import annotations

import dataclasses

import pytest

from schedlab.theory.catalogue import Claim, Effect, Number, Ours, PaperPoint, Tolerance
from schedlab.theory.reproduction import (
    LIKE_FOR_LIKE,
    OUR_READING,
    VERDICTS,
    Estimate,
    decide,
    replications_to_settle,
)

YES = dict.fromkeys(("workload", "metric", "baseline", "scale"), "yes")


def claim(
    value: float | None = 10.0, shape: str = "point", check: dict | None = None, **kw
) -> Claim:
    number = None if value is None else Number(value=value, shape=shape, unit="%")
    return Claim(
        subject="toy", id="c", kind="paper", locator="abstract", statement="s", metric="m",
        primary="p", paper_setup={}, like_for_like=check or YES,
        ours=kw.pop("ours", Ours(file="f.csv", column="x", study="toy")),
        paper_number=number, tolerance=Tolerance(rel=0.1), **kw,
    )  # fmt: skip


def pt(v: float, half: float | None = None, at=None, seeds: int | None = None) -> Estimate:
    if half is None:
        return Estimate(v, at=at, seeds=seeds)
    return Estimate(v, v - half, v + half, at=at, seeds=seeds)


def test_inside_the_band_reproduces_and_each_move_flips_it():
    c = claim(10.0)  # band [9, 11]
    assert decide(c, [pt(10.0, half=0.9)]).verdict == "reproduced"
    assert decide(c, [pt(10.0, half=1.1)]).verdict == "inconclusive"  # the interval widened
    assert decide(c, [pt(10.5, half=0.9)]).verdict == "inconclusive"  # the number moved
    assert decide(c, [pt(11.5, half=0.4)]).verdict == "refuted"  # wholly above, no direction
    assert decide(c, [pt(11.5, half=0.6)]).verdict == "inconclusive"
    assert decide(c, [pt(-10.0)]).verdict == "refuted"


def test_the_reason_shows_the_number_that_decided():
    d = decide(claim(10.0), [pt(10.2, half=0.5)])
    assert "10.2 [9.7, 10.7]" in d.reason and "[9, 11]" in d.reason
    assert d.compared == pt(10.2, half=0.5) and d.band == (9.0, 11.0)


def test_not_like_for_like_gets_the_same_words_under_our_reading():
    c = claim(10.0, check={**YES, "scale": "unknown"})
    d = decide(c, [pt(10.0)])
    assert (d.verdict, d.reading) == ("reproduced", OUR_READING)
    assert decide(c, [pt(40.0)]).verdict == "refuted"
    assert decide(claim(10.0), [pt(10.0)]).reading == LIKE_FOR_LIKE


def test_a_sweep_with_one_lucky_point_does_not_earn_a_match():
    pts = [pt(5.0, 0.5, at="x=1"), pt(10.1, 0.5, at="x=2"), pt(30.0, 0.5, at="x=3")]
    named_elsewhere = claim(10.0, paper_point=PaperPoint(at="x=1", why="the paper's x"))
    d = decide(named_elsewhere, pts)
    assert d.verdict == "refuted" and d.compared is not None and d.compared.at == "x=1"
    unnamed = claim(10.0)
    assert decide(unnamed, pts).verdict == "not comparable"  # no point stands for the paper
    none = claim(10.0, paper_point=PaperPoint(none="the sources state no setting"))
    assert decide(none, pts).verdict == "not comparable"
    assert decide(claim(10.0, paper_point=PaperPoint(at="x=9", why="w")), pts).verdict == (
        "not comparable"
    )  # a named point we do not have never falls back to another


def test_up_to_compares_our_maximum_and_beyond_in_its_favour_is_exceeded():
    up_to = claim(73.0, shape="max", paper_point=PaperPoint(at="max", why="'up to'"))
    # band [65.7, 80.3]; the largest of ours decides, however lucky the lower points are
    assert decide(up_to, [pt(52.0, 3), pt(73.0, 5), pt(70.0, 2)]).verdict == "reproduced"
    assert decide(up_to, [pt(52.0, 3), pt(83.6, 2.4), pt(73.0, 5)]).verdict == "exceeded"
    assert decide(up_to, [pt(52.0, 3), pt(60.0, 2)]).verdict == "refuted"  # max below the band
    assert decide(up_to, [pt(78.0, 5)]).verdict == "inconclusive"


def test_an_improvement_is_never_consistent_with_none_or_the_opposite():
    better = Effect(better="higher", no_effect=1.0)
    c = claim(1.5, effect=better)  # band [1.35, 1.65]
    assert decide(c, [pt(1.08, 0.02)]).verdict == "refuted"  # an improvement, far smaller
    assert decide(c, [pt(0.6, 0.05)]).verdict == "refuted"  # the opposite direction
    assert decide(c, [pt(1.5, 0.1)]).verdict == "reproduced"
    assert decide(c, [pt(2.5, 0.1)]).verdict == "exceeded"
    worse = claim(1.5, effect=Effect(better="lower", no_effect=1.0))
    assert decide(worse, [pt(2.5, 0.1)]).verdict == "refuted"  # beyond, but on the wrong side


def test_a_direction_without_a_number():
    c = claim(None, effect=Effect(better="higher", no_effect=0.0))
    assert decide(c, [pt(0.2, 0.05)]).verdict == "reproduced"
    assert decide(c, [pt(0.02, 0.05)]).verdict == "inconclusive"
    assert decide(c, [pt(-0.2, 0.05)]).verdict == "refuted"
    assert decide(claim(None), [pt(0.2, 0.05)]).verdict == "not comparable"


def test_range_reference():
    c = dataclasses.replace(claim(None), paper_number=Number(low=61, high=80, shape="range"))
    assert decide(c, [pt(70.0, 5.0)]).verdict == "reproduced"  # band [54.9, 88]
    assert decide(c, [pt(85.0, 5.0)]).verdict == "inconclusive"
    assert decide(c, [pt(1.6, 1.0)]).verdict == "refuted"


def test_inconclusive_says_how_many_seeds_would_settle_it():
    c = claim(10.0)  # band [9, 11]
    d = decide(c, [pt(10.5, half=1.0, seeds=10)])  # 0.5 from the edge, half-width 1
    assert d.verdict == "inconclusive" and d.replications == 40 and "40 seeds" in d.reason
    assert replications_to_settle(pt(11.0, 1.0, seeds=10), 9.0, 11.0) is None  # on the edge
    assert replications_to_settle(pt(10.5, 1.0), 9.0, 11.0) is None  # seeds unknown


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
    assert decide(c, [pt(25.0)]).verdict == "refuted"


@pytest.mark.parametrize(
    "check, expected",
    [("holds", "reproduced"), ("fails", "refuted"), ("inconclusive", "inconclusive"),
     (None, "missing")],
)  # fmt: skip
def test_verify_claims(check, expected):
    c = claim(None, ours=Ours(claim="13"))
    assert decide(c, None, check).verdict == expected
    derived = claim(None, ours=Ours(claim="13"), check={**YES, "metric": "unknown"})
    if check == "holds":
        d = decide(derived, None, check)
        assert (d.verdict, d.reading) == ("reproduced", OUR_READING)


def test_every_verdict_is_reached_above():
    up_to = claim(10.0, shape="max", paper_point=PaperPoint(at="max", why="w"))
    reached = {
        decide(claim(10.0), [pt(10.0)]).verdict,
        decide(up_to, [pt(50.0)]).verdict,
        decide(claim(10.0), [pt(11.0, 1.0)]).verdict,
        decide(claim(10.0), [pt(50.0)]).verdict,
        decide(claim(None), [pt(1.0)]).verdict,
        decide(claim(10.0), []).verdict,
    }
    assert reached == set(VERDICTS)


def test_the_reason_names_the_numbers_true_source():
    data = Number(value=4.27, unit="%", source="authors' data: prediction_error_all.dat @d65600cf")
    c = dataclasses.replace(claim(None), authors_number=data)
    assert "the authors' data band" in decide(c, [pt(4.27)]).reason
    summary = Number(value=1.5, unit="x", source="summary (secondary): papers.md")
    c = dataclasses.replace(claim(None), paper_number=summary)
    assert "the summary band" in decide(c, [pt(1.5)]).reason
