"""Claim 6: the success-only index never decreases with age; a non-monotone index fails."""

from __future__ import annotations

import math

import pytest

from schedlab.theory.claims import claims, run_claim
from schedlab.theory.sojourn.claim_index import (
    index_monotonicity_certificate,
    inverse_mean_residual,
    success_index,
    worst_decrease,
)


@pytest.mark.parametrize("k", [2, 3])
def test_sympy_certificate(k):
    cert = index_monotonicity_certificate(k)
    assert cert["holds"]
    assert len(cert["intervals"]) == k and len(cert["jumps"]) == k - 1


def test_index_values_by_hand():
    # X = 2 (cancel, .5) or 10 (success, .5): E[(X-a)^+] = 6 - a before 2, .5 (10 - a) after
    assert math.isclose(success_index([2, 10], [0.5, 0.5], 0.0), 0.5 / 6)
    assert math.isclose(success_index([2, 10], [0.5, 0.5], 4.0), 1 / 6)
    # the mean residual life jumps up at the checkpoint, so its inverse drops
    assert inverse_mean_residual([2, 10], [0.5, 0.5], 1.9) > inverse_mean_residual(
        [2, 10], [0.5, 0.5], 2.0
    )
    drop, age = worst_decrease([2, 10], [0.5, 0.5], 20, inverse_mean_residual)
    assert drop > 0.3 and age == 2.0
    assert worst_decrease([2, 10], [0.5, 0.5], 20, success_index)[0] == 0.0


def test_claim6_holds(tmp_path):
    v = run_claim(claims()["6"], "small", 0, outdir=tmp_path)
    assert v.verdict == "holds"
    assert v.evidence["numeric_jobs_with_decrease"] == 0


def test_claim6_fails_for_a_non_monotone_index(tmp_path):
    v = run_claim(claims()["6"], "small", 0, outdir=tmp_path, index_fn=inverse_mean_residual)
    assert v.verdict == "fails"
    assert v.worst["instance"] is not None and v.worst["value"] > 0.01
