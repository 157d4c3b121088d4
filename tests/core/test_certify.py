"""The one status rule: optimal only when the bound meets the value; crossings clamped."""

from __future__ import annotations

import pytest

from schedlab.solvers.result import Status, certify


@pytest.mark.parametrize(
    ("value", "bound", "sense", "status"),
    [
        (10.0, 10.0, "min", Status.OPTIMAL),
        (10.0, 10.0 - 5e-9, "min", Status.OPTIMAL),  # within 1e-9 relative of 10
        (10.0, 9.99, "min", Status.FEASIBLE),
        (10.0, 10.01, "max", Status.FEASIBLE),
        (10.0, None, "min", Status.FEASIBLE),
        (None, 3.0, "min", Status.TIMEOUT),
    ],
)
def test_status(value, bound, sense, status):
    assert certify(value, bound, sense).status is status


def test_crossing_within_solver_tolerance_is_clamped_and_recorded():
    # HiGHS returned a lower bound a hair above the value (seen at n = 80 and 100).
    c = certify(1000.0, 1000.0 + 2e-4, "min")
    assert c.status is Status.OPTIMAL
    assert c.bound == 1000.0
    assert c.stats["bound_clamped"] == pytest.approx(2e-4)
    c = certify(5.0, 5.0 - 1e-7, "max")
    assert c.status is Status.OPTIMAL and c.bound == 5.0 and "bound_clamped" in c.stats


def test_crossing_beyond_tolerance_is_an_error_not_a_proof():
    c = certify(1.0, 1.1, "min")
    assert c.status is Status.ERROR
    assert c.bound is None
    assert "crosses" in c.stats["error"]


def test_tolerance_is_the_callers():
    assert certify(1.0, 0.999, "min", tol=1e-2).status is Status.OPTIMAL
    assert certify(1.0, 0.999, "min").status is Status.FEASIBLE
