"""The exact back ends' kit: one LinearModel, three solvers (HiGHS, CBC, CP-SAT), the same
optimum as enumerating every integer point; infeasibility proven by each; the PuLP rule."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.cpsat import solve_cp, to_cpsat
from schedlab.solvers.kit.enum import MAX_WORK, WorkMeter, refuse_above
from schedlab.solvers.kit.linear import CscModel, LinearModel
from schedlab.solvers.kit.mip import pulp_solution, solve_cbc, solve_highs
from schedlab.solvers.result import Status


def random_model(rng: np.random.Generator) -> LinearModel:
    """A small integer model: 2..4 columns in 0..3, 1..3 rows, integer data, either sense."""
    n, m = int(rng.integers(2, 5)), int(rng.integers(1, 4))
    model = LinearModel(maximize=bool(rng.integers(2)), offset=float(rng.integers(-4, 7)))
    cols = [model.add_col(float(rng.integers(-4, 7)), 0.0, 3.0) for _ in range(n)]
    for _ in range(m):
        vals = [float(v) for v in rng.integers(-4, 7, size=n)]
        lo, hi = sorted(float(v) for v in rng.integers(-6, 13, size=2))
        model.add_row(cols, vals, lo if rng.integers(2) else -math.inf, hi)
    return model


def brute(model: LinearModel) -> float | None:
    """The optimum by enumerating every integer point (None: none is feasible)."""
    best = None
    rows = model.rows()
    for x in itertools.product(range(4), repeat=model.n_cols):
        v = np.array(x, dtype=float)
        ok = all(
            model.row_lower[r] <= float(np.dot(vals, v[cols])) <= model.row_upper[r]
            for r, (cols, vals) in enumerate(rows)
        )
        if ok:
            obj = model.objective(v)
            better = best is None or (obj > best if model.maximize else obj < best)
            best = obj if better else best
    return best


def test_the_three_solvers_agree_with_enumeration():
    rng = np.random.default_rng(37)
    seen = set()
    for _ in range(60):
        model = random_model(rng)
        want = brute(model)
        seen.add(want is None)
        outs = {
            "highs": solve_highs(model),
            "cbc": solve_cbc(model),
            "cpsat": solve_cp(model, num_workers=1, seed=0),
        }
        for name, out in outs.items():
            if want is None:
                assert out.status is Status.INFEASIBLE and out.x is None, name
                continue
            assert out.status is Status.OPTIMAL and out.proven, (name, out)
            assert out.value == pytest.approx(want, abs=1e-6), name
            assert out.x is not None and model.objective(out.x) == pytest.approx(want, abs=1e-6)
    assert seen == {True, False}  # both outcomes held to the enumeration


def test_cpsat_takes_integers_only():
    model = LinearModel()
    model.add_col(0.5, 0.0, 1.0)
    with pytest.raises(ValueError, match="integers only"):
        to_cpsat(model)


def test_the_pulp_rule_reads_sol_status():
    import pulp

    assert pulp_solution(pulp.LpSolutionOptimal) == (True, True)
    assert pulp_solution(pulp.LpSolutionIntegerFeasible) == (True, False)  # PuLP says "Optimal"
    assert pulp_solution(pulp.LpSolutionNoSolutionFound) == (False, False)
    assert pulp_solution(pulp.LpSolutionInfeasible) == (False, False)


def test_the_work_cap():
    refuse_above(MAX_WORK, MAX_WORK, "x", "y")
    with pytest.raises(InvalidInput, match="above the work cap max_work=10 .--max-work.; use y"):
        refuse_above(11, 10, "x", "y")
    with pytest.raises(InvalidInput, match="more than 10"):
        refuse_above(math.inf, 10, "x", "y")
    meter = WorkMeter(3)
    assert [meter.spend() for _ in range(5)] == [False, False, False, True, True]
    assert meter.stopped and meter.done == 5


@pytest.mark.parametrize("maximize", [False, True])
def test_a_stopped_cbc_takes_the_bound_its_log_prints(monkeypatch, maximize):
    """Killed with no solution: the log's bound, lowered past its printed digits, in the
    model's sense and units (the constant is in the MPS file, so in CBC's log)."""
    from schedlab.solvers.kit import mip

    monkeypatch.setattr(mip, "run_cbc", lambda mps, opts, dl: ("Lower bound: 5.5\n", True))
    model = LinearModel(maximize=maximize, offset=3.0)
    model.add_row([model.add_col(1.0, 0.0, 9.0)], [1.0], hi=4.0)
    out = solve_cbc(model)
    assert out.x is None and out.status is Status.TIMEOUT and out.stats["cbc_killed"] == 1
    assert out.bound == pytest.approx(-5.4 if maximize else 5.4)


def test_a_forked_call_returns_its_value_and_raises_its_error():
    from schedlab.solvers.kit.forked import ForkedCallFailed, forking_available, run_forked
    from schedlab.solvers.validate import Deadline

    if not forking_available():
        pytest.skip("no fork on this platform: callers run in-process")

    def call(report):
        report({"step": 1, "x": np.zeros(100_000)})  # larger than a pipe's buffer
        report({"step": 2})
        return {"x": np.arange(3.0)}

    value, killed, progress = run_forked(call, Deadline.after(30.0))
    assert not killed and value is not None and value["x"].tolist() == [0.0, 1.0, 2.0]
    assert progress["step"] == 2 and len(progress["x"]) == 100_000

    def fails(report) -> None:
        raise ValueError("no model")

    with pytest.raises(ForkedCallFailed, match="ValueError: no model"):
        run_forked(fails, Deadline.after(30.0))


def test_a_forked_call_past_its_deadline_is_killed():
    import time

    from schedlab.solvers.kit.forked import forking_available, run_forked
    from schedlab.solvers.validate import Deadline

    if not forking_available():
        pytest.skip("no fork on this platform: callers run in-process")
    t = time.perf_counter()

    def hangs(report):
        report({"bound": 1.5})
        time.sleep(120)

    value, killed, progress = run_forked(hangs, Deadline.after(0.2), grace=0.1)
    assert killed and value is None and progress == {"bound": 1.5}
    assert time.perf_counter() - t < 60  # not the call's 120 s: it was killed


def test_a_daemonic_process_runs_the_call_in_process():
    """multiprocessing forbids children of daemonic processes (dask's and Pool's workers):
    there `forking_available` is false, and lpcut's MIP runs in-process."""
    import multiprocessing as mp

    from schedlab.solvers.kit.forked import forking_available

    if not forking_available():
        pytest.skip("no fork on this platform: callers run in-process")
    with mp.get_context("fork").Pool(1) as pool:
        assert pool.apply(forking_available) is False


def as_csc(model: LinearModel) -> CscModel:
    """The same model given whole as arrays."""
    starts, index, value = model.csc()
    return CscModel(
        np.asarray(model.cost), np.asarray(model.lower), np.asarray(model.upper), starts,
        index, value, np.asarray(model.row_lower), np.asarray(model.row_upper),
        np.asarray(model.integer, dtype=bool), maximize=model.maximize, offset=model.offset,
    )  # fmt: skip


@pytest.mark.parametrize("negate", [False, True])
def test_csc_model_hands_highs_what_the_linear_model_does(negate):
    rng = np.random.default_rng(41)
    for _ in range(20):
        model = random_model(rng)
        model.add_col(1.5, 0.0, 2.0, [0], [1.0], integer=False)  # a continuous column too
        a = as_csc(model).to_highs(integer=True, negate=negate)
        b = model.to_highs(integer=True, negate=negate)
        for name in ("col_cost_", "col_lower_", "col_upper_", "row_lower_", "row_upper_"):
            assert np.asarray(getattr(a, name)).tobytes() == np.asarray(getattr(b, name)).tobytes()
        for name in ("start_", "index_", "value_"):
            assert getattr(a.a_matrix_, name) == getattr(b.a_matrix_, name)
        assert list(a.integrality_) == list(b.integrality_)
        assert (a.sense_, a.offset_, a.num_col_, a.num_row_) == (
            b.sense_, b.offset_, b.num_col_, b.num_row_,
        )  # fmt: skip
        got, want = solve_highs(as_csc(model)), solve_highs(model)
        assert got.status == want.status and got.value == want.value


def test_csc_model_names_the_array_of_the_wrong_length():
    good = as_csc(random_model(np.random.default_rng(3)))
    with pytest.raises(ValueError, match=r"CscModel\.upper: .* expected"):
        CscModel(good.cost, good.lower, good.upper[:-1], good.starts, good.index, good.value,
                 good.row_lower, good.row_upper)  # fmt: skip
    with pytest.raises(ValueError, match=r"CscModel\.index: .* expected starts\[-1\]"):
        CscModel(good.cost, good.lower, good.upper, good.starts, good.index[:-1], good.value,
                 good.row_lower, good.row_upper)  # fmt: skip


def test_a_work_limited_highs_stop_is_a_timeout_not_an_error():
    """A market-split model (equalities over 0/1 columns) that HiGHS has not solved after one
    node: the node limit is a stop the caller asked for, so TIMEOUT with its bound, not ERROR."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 100, size=(4, 30))
    model = LinearModel()
    cols = [model.add_col(1.0, 0.0, 1.0) for _ in range(a.shape[1])]
    for row in a:
        rhs = float(row.sum() // 2)
        model.add_row(cols, [float(v) for v in row], rhs, rhs)
    out = solve_highs(model, options={"mip_max_nodes": 1})
    assert out.stats["highs_status"] == "Solution limit reached"
    assert out.status is Status.TIMEOUT
    assert out.value is None and not out.proven
