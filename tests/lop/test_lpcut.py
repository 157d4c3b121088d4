"""lpcut's Lagrangian bound arithmetic against exact rationals, and the route and LP solver
it picks per block (pinned on one generated instance of each family where they differ)."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from schedlab.solvers.lop.core import insertion_descent, order_from_before, preference_tournament
from schedlab.solvers.lop.lpcut.lp_model import lagrangian_value
from schedlab.solvers.lop.lpcut.model import HighsCutModel, block_close_abs
from schedlab.solvers.lop.matrix import core_costs, dense_io_matrix, solve_lop_benchmark
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve
from schedlab.solvers.validate import Deadline


def random_rows(n: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """k random 3-cycle rows over n jobs in lpcut's layout: (cols, coef, rhs) and the pair
    columns' index table."""
    col = np.full((n, n), -1, dtype=np.int64)
    iu = np.triu_indices(n, 1)
    col[iu] = np.arange(len(iu[0]))
    C = np.stack([rng.choice(n, 3, replace=False) for _ in range(k)])
    U, V = C, C[:, [1, 2, 0]]
    fwd = U < V
    cols = col[np.minimum(U, V), np.maximum(U, V)]
    return cols, np.where(fwd, 1.0, -1.0), 2.0 - (~fwd).sum(axis=1)


def exact_lagrangian(W, cols, coef, rhs, y, s) -> Fraction:
    """The Lagrangian value C + sum_j min(0, D_j + s (A^T y)_j) - s y r in exact rationals,
    with D and C from W itself (no scaling, no rounding): the oracle."""
    n = W.shape[0]
    a, b = np.triu_indices(n, 1)
    F = [[Fraction(float(W[i, j])) for j in range(n)] for i in range(n)]
    C = sum((F[j][i] for i, j in zip(a, b, strict=True)), Fraction(0))
    g = [Fraction(0)] * len(a)
    for r in range(len(rhs)):
        for t in range(3):
            g[int(cols[r, t])] += Fraction(float(coef[r, t])) * Fraction(float(y[r]))
    S = Fraction(s)
    pairs = enumerate(zip(a.tolist(), b.tolist(), strict=True))
    red = sum((min(Fraction(0), F[i][j] - F[j][i] + S * g[p]) for p, (i, j) in pairs), Fraction(0))
    yr = sum(
        (Fraction(float(v)) * Fraction(float(w)) for v, w in zip(y, rhs, strict=True)), Fraction(0)
    )
    return C + red - S * yr


@pytest.mark.parametrize("seed", range(6))
def test_lagrangian_value_never_exceeds_the_exact_value_and_is_close(seed):
    rng = np.random.default_rng(seed)
    n = 9
    scale = 10.0 ** rng.uniform(-6, 6)  # costs of any magnitude, real entries
    W = scale * rng.lognormal(0.0, 2.0, (n, n))
    np.fill_diagonal(W, 0.0)
    cols, coef, rhs = random_rows(n, 60, rng)
    y = rng.exponential(0.05, len(rhs)) * (rng.random(len(rhs)) < 0.7)
    iu = np.triu_indices(n, 1)
    D = (W - W.T)[iu]
    s = float(np.max(np.abs(D)))
    const = math.fsum(np.tril(W, -1).ravel())
    got = lagrangian_value(D / s, s, const, cols, coef, rhs, y)
    exact = exact_lagrangian(W, cols, coef, rhs, y, s)
    assert Fraction(got) <= exact  # sound whatever the rounding
    # and not loose: within 1e-12 of the cost scale (the former margin was about 1e-10 here)
    assert float(exact - Fraction(got)) <= 1e-12 * s * len(D)


def test_dense_block_is_closed_by_simplex_lp_rounds_without_a_mip():
    # dense n = 60, seed 16000 (the route study's instance): before the exact margin the LP
    # rounds reached the optimum in round 3 but the bound's fixed margin (3x the closing
    # slack) kept it open until the stall rule handed it to the MIP
    r = solve_lop_benchmark(dense_io_matrix(60, 16000), deadline=Deadline.after(60))
    assert r.status is Status.OPTIMAL and r.stats["routes"] == ["lp"]
    assert r.stats["lp_solver_simplex"] == 1 and r.stats["closed_by_lp"] == 1
    assert "mip_nodes" not in r.stats and r.stats["lp_stalled"] == 0


def test_cyclic_block_takes_the_packing_and_its_lp_rounds_the_interior_point():
    problem = SojournProblem(generate(30, 13000, family="cyclic"), Objective("B"))
    auto = solve(problem, "lpcut", seed=0)
    assert auto.status is Status.OPTIMAL and auto.stats["routes"] == ["packing"]
    lp = solve(problem, "lpcut", seed=0, options={"route": "lp"})
    assert lp.status is Status.OPTIMAL and lp.stats["lp_solver_ipm"] == 1
    assert lp.value == pytest.approx(auto.value, rel=1e-12)


def test_an_lp_round_cut_off_by_the_limit_sizes_the_mip_root(monkeypatch):
    """A round cut off by the limit counts in `lp_rounds` and records its own run time in
    `last_lp_s`, which sizes the MIP's root (`mip_root_factor` times it): a MIP whose root
    does not fit in the time left is skipped (its presolve, not always interruptible, would
    overrun the limit). On a fake clock that only HiGHS's runs advance, round 1 (no
    rows) takes 0.001 s and ends optimal and round 2 (round 1's cuts) takes 5 s, past the 1 s
    limit, and ends at HiGHS's time limit, whatever the machine's speed."""
    from schedlab.solvers import validate
    from schedlab.solvers.lop.lpcut import rounds
    from schedlab.solvers.lop.lpcut.mip import MipRun

    clock = [0.0]
    fake_time = SimpleNamespace(perf_counter=lambda: clock[0])
    monkeypatch.setattr(validate, "time", fake_time)
    monkeypatch.setattr(rounds, "time", fake_time)
    W = core_costs(dense_io_matrix(30, 40000))[0]
    model = HighsCutModel(W, gap_abs=0.0, close_abs=block_close_abs(W), seed=0)
    model.offer(insertion_descent(W, order_from_before(preference_tournament(W))))
    model.lp_solver = model.pick_lp_solver()
    assert model.lp_solver == "simplex"
    h, real_run, rows = model.h, model.h.run, []
    cut_off = model.hs.HighsModelStatus.kTimeLimit

    def run():
        rows.append(h.getNumRow())
        if len(rows) == 1:
            clock[0] += 0.001
            return real_run()
        clock[0] += 5.0
        monkeypatch.setattr(h, "getModelStatus", lambda: cut_off)
        return model.hs.HighsStatus.kWarning

    monkeypatch.setattr(h, "run", run)
    stats = model.lp_rounds(Deadline.after(1.0))
    assert rows == [0, stats["lp_cuts"]] and stats["lp_cuts"] > 0
    assert stats["lp_rounds"] == 2 and not model.closed_by_lp
    assert model.last_lp_s == pytest.approx(5.0)  # the cut-off round's, not round 1's 0.001 s
    root_s = model.tuning.mip_root_factor * 5.0
    mips: list[Deadline] = []

    def run_mip(deadline: Deadline) -> MipRun:
        mips.append(deadline)
        return MipRun(False, None, -math.inf, 0)

    monkeypatch.setattr(model, "_run_mip", run_mip)
    skipped = model._mip_phase(Deadline.after(0.9 * root_s), {})
    assert skipped.stats.get("mip_skipped_for_time") == 1 and mips == []
    started = model._mip_phase(Deadline.after(1.1 * root_s), {})
    assert "mip_skipped_for_time" not in started.stats and len(mips) == 1


def test_the_mip_phase_in_its_forked_child_matches_the_in_process_run(monkeypatch):
    """route full goes straight to HiGHS's MIP (`HighsCutModel._run_mip`): the forked child's
    answer, sent back through the pipe, gives the value and proof of the in-process run."""
    from schedlab.solvers.kit.forked import forking_available
    from schedlab.solvers.lop.lpcut import mip as exact_lpcut

    if not forking_available():
        pytest.skip("no fork on this platform: the MIP runs in-process")
    problem = SojournProblem(generate(24, 13100, family="cyclic"), Objective("B"))
    forked = solve(problem, "lpcut", seed=0, time_limit=60, options={"route": "full"})
    monkeypatch.setattr(exact_lpcut, "forking_available", lambda: False)
    inproc = solve(problem, "lpcut", seed=0, time_limit=60, options={"route": "full"})
    assert forked.status is inproc.status is Status.OPTIMAL
    assert forked.value == pytest.approx(inproc.value, rel=1e-12)
    assert forked.stats["mip_s"] > 0 and "mip_killed" not in forked.stats


@pytest.mark.parametrize("reported", [False, True])
def test_a_mip_that_overruns_its_limit_is_killed_with_a_sound_answer(monkeypatch, reported):
    """A MIP that does not stop at the deadline (HiGHS's root LP does not poll its interrupt:
    PACE #68) is killed shortly after it. With nothing reported, the start order and the
    bound before the MIP stand, `feasible`; what the child reported before it hung is used:
    here a dual bound at the start order's cost, which is the optimum (the unhurried solve
    proves it), so the killed run proves it too."""
    import time
    from types import SimpleNamespace

    from schedlab.solvers import validate
    from schedlab.solvers.kit.forked import forking_available
    from schedlab.solvers.lop.lpcut import model as exact_lpcut

    if not forking_available():
        pytest.skip("no fork on this platform: the MIP runs in-process")
    problem = SojournProblem(generate(24, 13100, family="cyclic"), Objective("B"))
    best = solve(problem, "lpcut", seed=0, time_limit=60)
    assert best.status is Status.OPTIMAL

    def hang(self, report):
        if reported:
            report({"dual": (self.order_cost - self.const) / self.s})
        time.sleep(120)

    # on a fake clock that stands still until the MIP starts, then leaves it 1 s: the model is
    # built and the MIP reached whatever the machine's speed (the large limit is a hang guard)
    limit, clock = 600.0, [0.0]
    real_run = exact_lpcut.HighsCutModel._run_mip

    def run_late(self, deadline):
        clock[0] = limit - 1.0
        return real_run(self, deadline)

    monkeypatch.setattr(validate, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    monkeypatch.setattr(exact_lpcut.HighsCutModel, "_run_mip", run_late)
    monkeypatch.setattr(exact_lpcut.HighsCutModel, "_report_progress", hang)
    t = time.perf_counter()
    r = solve(problem, "lpcut", seed=0, time_limit=limit, options={"route": "full"})
    assert time.perf_counter() - t < 60  # not the child's 120 s
    assert r.stats["mip_killed"] == 1
    assert r.value == pytest.approx(best.value, rel=1e-12)  # the start order (pinned)
    assert r.bound is not None and r.bound <= best.value + 1e-9 * abs(best.value)
    if reported:
        assert r.status is Status.OPTIMAL
    else:
        assert r.status is Status.FEASIBLE and r.bound < best.value - 1e-6
