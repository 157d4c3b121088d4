"""One status rule: the exact backends (milp, cpsat, enum) and the HiGHS wrapper derive their
status through `certify`; a bound crossing the value within solver tolerance is clamped (never
an exception), a larger crossing is an error status, and only a met bound is optimal."""

from __future__ import annotations

from types import SimpleNamespace

import highspy
import pytest

from schedlab.solvers.kit.mip import highs_outcome as _outcome
from schedlab.solvers.result import Status
from schedlab.solvers.synergy import generate_snapshot, solve
from schedlab.solvers.synergy.exact_cpsat import Scales, cpsat_bound
from schedlab.solvers.synergy.solution import certified_result


def _tune_alloc():
    snap = generate_snapshot(2, 16, 5)
    res = solve(snap, "tune")
    assert res.solution is not None and res.value is not None
    return snap, res.solution, res.value


def test_a_bound_a_hair_below_the_value_is_clamped_and_optimal():
    snap, alloc, value = _tune_alloc()
    res = certified_result(snap, alloc, "milp", 0.0, value * (1 - 1e-8))
    assert res.status is Status.OPTIMAL and res.bound == res.value == value
    assert 0 < res.stats["bound_clamped"] <= 1e-8 * value * 1.01


def test_a_large_crossing_is_an_error_status_not_an_exception():
    snap, alloc, value = _tune_alloc()
    res = certified_result(snap, alloc, "cpsat", 0.0, value * 0.9)
    assert res.status is Status.ERROR and res.bound is None and "crosses" in res.stats["error"]


def test_only_a_met_bound_is_optimal():
    snap, alloc, value = _tune_alloc()
    assert certified_result(snap, alloc, "milp", 0.0, value * 1.01).status is Status.FEASIBLE
    assert certified_result(snap, alloc, "milp", 0.0, None).status is Status.FEASIBLE
    assert certified_result(snap, alloc, "milp", 0.0, value).status is Status.OPTIMAL


def test_cpsat_bound_uses_the_solver_bound_capped_by_the_relaxation():
    exact, rounded = Scales(1, 100, 100, True), Scales(1, 100, 1000, False)
    assert cpsat_bound(True, 7.5, 800.0, exact, None) == 7.5
    assert cpsat_bound(True, 7.5, 7600.0, rounded, None) == pytest.approx(7.6)
    assert cpsat_bound(False, 7.5, 800.0, exact, 7.9) == 7.9
    assert cpsat_bound(False, 7.5, 780.0, exact, 7.9) == 7.8


def _fake_highs(status: object, value: float, bound: float, has_solution: bool = True):
    info = SimpleNamespace(
        primal_solution_status=2 if has_solution else 0,
        objective_function_value=value,
        mip_node_count=3,
        mip_dual_bound=bound,
    )
    return SimpleNamespace(
        getModelStatus=lambda: status,
        getInfo=lambda: info,
        getSolution=lambda: SimpleNamespace(col_value=[1.0]),
        modelStatusToString=lambda ms: str(ms),
    )


@pytest.mark.parametrize("maximize", [True, False])
def test_highs_crossing_within_tolerance_is_clamped(maximize):
    hair = -1e-8 if maximize else 1e-8  # the dual bound on the wrong side of the value
    h = _fake_highs(highspy.HighsModelStatus.kOptimal, 10.0, 10.0 + hair)
    out = _outcome(h, integer=True, maximize=maximize)
    assert out.status is Status.OPTIMAL and out.bound == out.value == 10.0
    assert out.stats["bound_clamped"] == pytest.approx(1e-8, rel=1e-3)


def test_highs_statuses():
    ms = highspy.HighsModelStatus
    stopped = _outcome(_fake_highs(ms.kTimeLimit, 10.0, 12.0), integer=True, maximize=True)
    assert stopped.status is Status.FEASIBLE and stopped.bound == 12.0
    empty = _fake_highs(ms.kTimeLimit, 0.0, 12.0, has_solution=False)
    assert _outcome(empty, integer=True, maximize=True).status is Status.TIMEOUT
    infeasible = _fake_highs(ms.kInfeasible, 0.0, float("inf"), has_solution=False)
    assert _outcome(infeasible, integer=True, maximize=True).status is Status.INFEASIBLE
    lp = _outcome(_fake_highs(ms.kOptimal, 4.0, float("nan")), integer=False, maximize=False)
    assert lp.status is Status.OPTIMAL and lp.bound == 4.0
