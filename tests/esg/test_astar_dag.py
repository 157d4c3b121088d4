"""Whole-DAG A* (no SLO split) is exact: equal to brute force on small DAGs and chains, to the
MILP on larger ones; stopped early it reports a sound bound and never a better plan."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.esg.generate import generate
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve


@pytest.mark.parametrize("seed", range(16))
def test_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    shape = "dag" if seed % 4 else "chain"
    app = generate(int(rng.integers(4, 8)), int(rng.integers(3, 8)), 900 + seed, shape=shape)
    lats = app.stage_latency()
    fastest = float(sum(x.min() for x in lats))
    for budget in (app.slo_ms, 0.5 * app.slo_ms, 1.5 * app.slo_ms, 0.3 * fastest):
        a = app.with_budget(budget)
        got, ref = solve(a, "astar_dag"), solve(a, "brute")
        assert got.status == ref.status
        if ref.value is not None:
            assert got.value == pytest.approx(ref.value, rel=1e-9)
            assert got.solution.latency_ms <= budget + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_equals_milp_on_larger_dags(seed):
    app = generate(9, 12, 950 + seed, shape="dag")
    got, ref = solve(app, "astar_dag", time_limit=60), solve(app, "milp")
    assert got.status == ref.status == Status.OPTIMAL
    assert got.value == pytest.approx(ref.value, rel=1e-7)


def test_stopped_search_is_sound():
    app = generate(12, 30, 7, shape="dag")
    opt = solve(app, "milp")
    cut = solve(app, "astar_dag", options={"max_nodes": 200})
    assert cut.stats.get("stopped")
    assert cut.status in (Status.FEASIBLE, Status.TIMEOUT, Status.OPTIMAL)
    assert cut.bound is not None and cut.bound <= opt.value * (1 + 1e-9)
    if cut.value is not None:
        assert cut.value >= opt.value * (1 - 1e-9)
    nodom = solve(generate(6, 6, 3, shape="dag"), "astar_dag", options={"dominance": False})
    assert nodom.status == solve(generate(6, 6, 3, shape="dag"), "brute").status
