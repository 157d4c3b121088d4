"""Claim 11 holds (pair-mean rule) and its check fails for the wrong common-u rule."""

from __future__ import annotations

from schedlab.theory.claims import resolve, run_claim


def test_claim11_holds_and_can_fail() -> None:
    spec = resolve(["11"])[0]
    ok = run_claim(spec, "small", 0)
    assert ok.verdict == "holds", ok.summary
    assert ok.evidence["rule"]["cyclic_instances"] >= 3  # the cyclic family is in the evidence
    bad = run_claim(spec, "small", 0, at="full-mean")
    assert bad.verdict == "fails" and bad.worst["value"] > 0
