"""Exact B where it is hard: every backend on the cyclic family (one large preference block),
against the subset DP and brute force; lazy re-solves; stopped runs keep a sound bound."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.solvers.lop.core import insertion_descent, lop_cost
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, b_weights
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve

B = Objective("B")
REL = 1e-9
BACKENDS = [
    ("cpsat", {"num_workers": 1}),
    ("cpsat", {"num_workers": 1, "hint": True}),
    ("milp", {"solver": "highs"}),
    ("milp", {"solver": "cbc"}),
    ("lpcut", {}),
    ("lpcut", {"hint": False}),
]


def close(a: float, b: float) -> bool:
    return abs(a - b) <= REL * max(1.0, abs(b))


@pytest.mark.parametrize(("method", "opts"), BACKENDS, ids=str)
def test_backends_equal_the_dp_on_cyclic_instances(method, opts):
    for n, seed in ((12, 1), (14, 2), (16, 3)):
        inst = generate(n, seed, family="cyclic")
        ref = solve(SojournProblem(inst, B), "dp").value
        r = solve(SojournProblem(inst, B), method, seed=0, options=opts)
        assert r.status is Status.OPTIMAL, (n, seed, r.stats)
        assert close(r.value, ref), (n, seed, r.value, ref)
        assert r.bound is not None and r.bound <= r.value
        assert r.stats["solver_calls"] >= 1 and r.stats["largest_block"] >= 0.8 * n
        assert r.stats["lazy_rounds"] >= 1


@pytest.mark.parametrize("seed", range(4))
def test_lpcut_equals_brute_force(seed):
    inst = generate(8, seed, family="cyclic")
    ref = solve(SojournProblem(inst, B), "brute").value
    r = solve(SojournProblem(inst, B), "lpcut", seed=0)
    assert r.status is Status.OPTIMAL and close(r.value, ref)


def test_lazy_re_solve_runs_and_stays_exact():
    # the first tournament of the 20-job block still has 3-cycles: a second round is needed
    inst = generate(20, 12_000, family="cyclic")
    r = solve(SojournProblem(inst, B), "cpsat", seed=0, options={"num_workers": 1})
    assert r.stats["lazy_rounds"] >= 2 and r.stats["solver_calls"] >= 2
    assert r.status is Status.OPTIMAL and close(r.value, solve(SojournProblem(inst, B), "dp").value)


@pytest.fixture(scope="module")
def hard():
    inst = generate(45, 14_500, family="cyclic")
    ref = solve(SojournProblem(inst, B), "lpcut", seed=0)
    assert ref.status is Status.OPTIMAL  # the best known value, proven
    return inst, ref.value


@pytest.mark.parametrize(
    ("method", "opts", "limit"),
    [
        ("cpsat", {"num_workers": 1, "hint": True, "max_deterministic_time": 0.05}, None),
        ("milp", {"solver": "highs"}, 0.3),
        ("milp", {"solver": "cbc"}, 0.3),
        ("lpcut", {}, 0.05),
    ],
    ids=str,
)
def test_stopped_runs_stay_feasible_with_a_sound_bound(hard, method, opts, limit):
    inst, best = hard
    r = solve(SojournProblem(inst, B), method, time_limit=limit, seed=0, options=opts)
    assert r.status in (Status.OPTIMAL, Status.FEASIBLE), r.stats
    assert r.value >= best * (1 - REL)
    assert r.bound is None or r.bound <= best * (1 + REL)
    if r.status is Status.OPTIMAL:
        assert close(r.value, best)
    if method == "cpsat":  # deterministic stop with an incumbent: not proven, bound kept
        assert r.status is Status.FEASIBLE and r.bound is not None


def test_insertion_descent_never_worsens():
    _, W = b_weights(generate(30, 4, family="cyclic"))
    start = list(range(30))
    out = insertion_descent(W, start)
    assert sorted(out) == start and lop_cost(W, out) <= lop_cost(W, start)


def test_cli_reports_solver_calls_block_and_rounds(tmp_path):
    runner = CliRunner()
    gen = runner.invoke(cli, ["sojourn", "generate", "--n", "14", "--seed", "2", "--family",
                              "cyclic"], catch_exceptions=False)  # fmt: skip
    assert gen.exit_code == 0
    path = tmp_path / "c.json"
    path.write_text(gen.stdout)
    out = runner.invoke(cli, ["sojourn", "solve", str(path), "--objective", "B", "--method",
                              "lpcut", "--json"], catch_exceptions=False)  # fmt: skip
    d = json.loads(out.stdout)
    assert d["status"] == "optimal"
    assert d["stats"]["solver_calls"] >= 1 and d["stats"]["largest_block"] >= 12
    assert d["stats"]["lazy_rounds"] >= 1


def test_incumbent_cycles_are_tight_at_the_order_and_violated():
    # every returned cycle a -> b -> c -> a has a before b before c in the order (its row is
    # tight there) and is a 3-cycle of the tournament Y; at most `per_pair` per reversed pair
    import numpy as np

    from schedlab.solvers.lop.lpcut.model import HighsCutModel
    from schedlab.solvers.lop.lpcut.options import DEFAULT_TUNING
    from schedlab.solvers.lop.lpcut.separation import incumbent_cycles

    rng = np.random.default_rng(5)
    n = 12
    _, W = b_weights(generate(n, 3, family="cyclic"))
    order = [int(i) for i in rng.permutation(n)]
    Y = (rng.random((n, n)) < 0.5).astype(float)
    Y = np.triu(Y, 1) + np.tril(1.0 - Y.T, -1)
    np.fill_diagonal(Y, 0.0)
    C = incumbent_cycles(Y, order, W - W.T)
    assert len(C) > 0
    pos = {j: k for k, j in enumerate(order)}
    for a, b, c in C.tolist():
        assert pos[a] < pos[b] < pos[c]
        assert Y[a, b] + Y[b, c] + Y[c, a] == 3.0
    _, counts = np.unique(C[:, [0, 2]], axis=0, return_counts=True)
    assert counts.max() <= DEFAULT_TUNING.per_pair
    # the rows the model writes for these cycles are violated by Y's x and satisfied by order
    m = HighsCutModel(W, gap_abs=0.0, seed=0)
    m.add_cycle_rows(C)
    cols, coef, rhs = m.rows_cols[0], m.rows_coef[0], m.rows_rhs[0]
    x_y = Y[m.iu]
    x_o = np.array([pos[i] < pos[j] for i, j in zip(*m.iu, strict=True)], dtype=float)
    assert np.all((coef * x_y[cols]).sum(axis=1) > rhs)
    assert np.allclose((coef * x_o[cols]).sum(axis=1), rhs)  # tight at the order
