"""`batchlocal` (solvers/sojourn/batchlocal.py): proven optima on small instances, feasibility,
every backend, TK/DK, and the CLI. The 200-instance check against CP-SAT is marked slow."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.batchlocal import kick, start_orders
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve

B = Objective("B")


def instances(count, seed0, lo=6, hi=16):
    return [generate(lo + i % (hi - lo + 1), seed0 + i) for i in range(count)]


def test_reaches_the_dp_optimum_on_small_instances():
    smith_misses = 0
    for i, inst in enumerate(instances(20, 70_000)):
        opt = solve(SojournProblem(inst, B), "dp")
        res = solve(SojournProblem(inst, B), "batchlocal", seed=i, options={"backend": "cpu"})
        assert res.status is Status.FEASIBLE and res.bound is None
        order = inst.order_from_ids(res.solution)
        assert res.value == pytest.approx(evaluate(inst, order, B), rel=1e-12)
        assert res.value >= opt.value * (1 - 1e-9)  # never better than a proven optimum
        assert res.value <= opt.value * (1 + 1e-9), (inst.name, res.value, opt.value)
        smith_misses += solve(SojournProblem(inst, B), "smith").value > opt.value * (1 + 1e-9)
    assert smith_misses > 0  # the check is not vacuous: Smith's rule alone misses some


def test_numpy_backend_and_objective_a():
    for i, inst in enumerate(instances(4, 71_000, 8, 12)):
        opt = solve(SojournProblem(inst, B), "dp").value
        res = solve(
            SojournProblem(inst, B),
            "batchlocal",
            seed=i,
            options={"backend": "numpy", "restarts": 8, "rounds": 3},
        )
        assert res.value == pytest.approx(opt, rel=1e-9)
        a = solve(
            SojournProblem(inst, Objective("A")),
            "batchlocal",
            options={"backend": "cpu", "restarts": 4, "rounds": 1},
        )
        assert a.value == pytest.approx(
            solve(SojournProblem(inst, Objective("A")), "dp").value, rel=1e-9
        )


@pytest.mark.parametrize("obj", [Objective("TK", 2), Objective("DK", 3)], ids=lambda o: o.label)
def test_truncated_objectives_use_full_neighbourhoods(obj):
    inst = generate(9, 5)
    res = solve(SojournProblem(inst, obj), "batchlocal", options={"backend": "cpu"})
    assert res.value == pytest.approx(solve(SojournProblem(inst, obj), "dp").value, rel=1e-9)
    assert res.stats["orders_evaluated"] >= 9 * 8


def test_time_limit_and_stats():
    inst = generate(300, 4)
    res = solve(SojournProblem(inst, B), "batchlocal", time_limit=1e-9, options={"backend": "cpu"})
    assert res.stats["stopped_by_time"] and res.status is Status.FEASIBLE
    assert res.value <= res.stats["smith_value"]
    full = solve(SojournProblem(inst, B), "batchlocal", seed=1, options={"backend": "cpu"})
    assert not full.stats["stopped_by_time"]
    assert full.value <= res.value and full.stats["improvement_over_smith"] >= 0
    assert full.stats["rank"] < full.stats["nodes_kept"] <= full.stats["nodes_total"]


def test_starts_and_kicks_are_permutations():
    inst = generate(25, 2)
    rng = np.random.default_rng(0)
    for rows in (start_orders(inst, 12, rng), kick(np.arange(25), 12, rng)):
        assert rows.shape == (12, 25)
        assert all(sorted(r) == list(range(25)) for r in rows)


def test_bad_options():
    inst = generate(5, 1)
    with pytest.raises(InvalidInput, match="restarts"):
        solve(SojournProblem(inst, B), "batchlocal", options={"restarts": 0})
    with pytest.raises(InvalidInput, match="backend: .* must be one of auto, numpy, cpu, cuda"):
        solve(SojournProblem(inst, B), "batchlocal", options={"backend": "tpu"})
    with pytest.raises(InvalidInput, match="has no option 'solver'"):
        solve(SojournProblem(inst, B), "batchlocal", options={"solver": "highs"})


def test_cli_solve_batchlocal(tmp_path):
    path = tmp_path / "inst.json"
    generate(12, 3).save(path)
    runner = CliRunner()
    args = ["sojourn", "solve", str(path), "--objective", "B", "--method", "batchlocal"]
    out = runner.invoke(cli, [*args, "--backend", "cpu", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "feasible" and data["stats"]["backend"] == "cpu"
    assert len(data["solution"]) == 12
    bad = runner.invoke(cli, [*args, "--backend", "gpu"])
    assert bad.exit_code == 2


@pytest.mark.slow
def test_hit_rate_on_200_instances_against_cpsat(tmp_path):
    from schedlab.experiments.sojourn.bench_kernels import hit_rate

    hr = hit_rate(quick=False, outdir=tmp_path)
    assert hr["proven"] >= 190
    assert hr["below_optimum"] == 0
    assert hr["hits"] >= 0.99 * hr["proven"], hr
