"""The engine's one door: LOLIB matrices and PACE graphs through `solve` (the "lop" scope of the
registry), the tuning passed in as one frozen object, and `schedlab lop study`."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.graph import random_ocr_graph
from schedlab.solvers.lop.graph_route import CrossingTuning, solve_graph
from schedlab.solvers.lop.lpcut.options import DEFAULT_TUNING, LpcutOptions, LpcutTuning
from schedlab.solvers.lop.matrix import LopMatrix, dense_io_matrix, solve_lop_benchmark
from schedlab.solvers.result import Status
from schedlab.solvers.solve import method_spec, solve
from schedlab.solvers.validate import NO_DEADLINE


def _same(a, b):
    assert (a.status, a.value, a.bound, a.solution) == (b.status, b.value, b.bound, b.solution)


def test_a_graph_goes_through_solve_and_gives_the_engines_answer():
    g = random_ocr_graph(60, 60, 7, mean_degree=3.0, span=25, isolated_share=0.0)
    r = solve(g, "lpcut", time_limit=60, seed=0)
    assert r.status is Status.OPTIMAL and r.method == "lpcut"
    assert r.value == g.crossings(r.solution) == r.bound
    _same(r, solve_graph(g, seed=0))
    no_fix = solve(g, "lpcut", seed=0, options={"fix_forced": False})
    _same(no_fix, solve_graph(g, seed=0, fix_forced=False))


def test_a_matrix_goes_through_solve_with_the_usual_statuses():
    mat = LopMatrix("d30", dense_io_matrix(30, 13000))
    r = solve(mat, "lpcut", time_limit=60, seed=0, options={"route": "lp"})
    assert r.status is Status.OPTIMAL and r.value == r.bound
    _same(r, solve_lop_benchmark(mat.M, seed=0, options=LpcutOptions(route="lp")))


def test_the_door_checks_the_limit_and_the_options_of_lop_problems():
    mat = LopMatrix("d5", dense_io_matrix(5, 1))
    with pytest.raises(InvalidInput, match="time_limit"):
        solve(mat, "lpcut", time_limit=-1.0)
    with pytest.raises(InvalidInput, match="route"):
        solve(mat, "lpcut", options={"route": "sideways"})
    with pytest.raises(InvalidInput, match="no_such"):
        solve(mat, "lpcut", options={"no_such": 1})
    spec = method_spec("lop", "lpcut")
    assert spec.meta["kinds"] == frozenset({"matrix", "crossings"}) and spec.meta["exact"]


def test_the_tuning_is_one_frozen_object_passed_to_the_block_model():
    from schedlab.solvers.lop.lpcut.model import HighsCutModel

    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_TUNING.per_pair = 3  # type: ignore[misc]
    W = dense_io_matrix(12, 3).T.copy()
    np.fill_diagonal(W, 0.0)
    one = HighsCutModel(W, gap_abs=0.0, seed=0, tuning=LpcutTuning(max_lp_rounds=1))
    one.offer(list(range(12)))
    assert one.lp_rounds(NO_DEADLINE)["lp_rounds"] == 1
    assert (
        one.tuning.max_lp_rounds == 1
        and HighsCutModel(W, gap_abs=0.0, seed=0).tuning is DEFAULT_TUNING
    )


def test_a_crossing_blocks_tuning_follows_its_free_share_and_size():
    t = CrossingTuning()
    sparse = np.triu(np.ones((4, 4)), 1)  # no free pair: the dual simplex, with its switch
    got = t.for_block(sparse)
    assert (got.lp_solver, got.ipm_switch_ratio, got.crossover_min_rows_per_n) == (
        "simplex",
        3.0,
        40.0,
    )
    assert (got.per_pair, got.start_kicks, got.start_patience, got.stall_general) == (
        6,
        1000,
        100,
        True,
    )
    dense = np.ones((4, 4)) - np.eye(4)  # every pair free: the interior point, no switch
    got = t.for_block(dense)
    assert (got.lp_solver, got.ipm_switch_ratio, got.crossover_min_rows_per_n) == (
        "ipm",
        None,
        None,
    )
    assert got.ipm_optimality_tol == 3e-10 and got.viol_tol == DEFAULT_TUNING.viol_tol


def test_the_study_commands_are_documented_commands():
    res = CliRunner().invoke(cli, ["lop", "study", "deficit-shares", "--ns", "10"])
    assert res.exit_code == 0, res.output
    assert "deficit share" in res.output and "10" in res.output
    bad = CliRunner().invoke(cli, ["lop", "study", "deficit-shares", "--ns", "10,x"])
    assert bad.exit_code == 2 and "comma-separated integers" in bad.output
    bad = CliRunner().invoke(cli, ["lop", "study", "component-sizes", "--ns", "0"])
    assert bad.exit_code == 2 and "1..1000" in bad.output


def test_the_packing_tuning_reaches_the_packer_through_lpcuts_tuning():
    from schedlab.solvers.lop.core import insertion_descent, preference_blocks
    from schedlab.solvers.lop.lpcut.model import HighsCutModel, block_close_abs
    from schedlab.solvers.lop.lpcut.options import PackingTuning
    from schedlab.solvers.sojourn.batch import linear_ordering_weights
    from schedlab.solvers.sojourn.generate import generate
    from schedlab.solvers.sojourn.objectives import Objective

    _, W = linear_ordering_weights(generate(40, 14000, family="cyclic"), Objective("B"))
    blk = max(preference_blocks(W), key=len)
    Wb = W[np.ix_(blk, blk)]
    start = insertion_descent(Wb, list(range(len(blk))))

    def rounds(tuning: LpcutTuning) -> int:
        m = HighsCutModel(Wb, gap_abs=0.0, close_abs=block_close_abs(Wb) * 1e-6, seed=0,
                          packing=True, route="packing", tuning=tuning)  # fmt: skip
        m.offer(start)
        return int(m.packing_certificate(NO_DEADLINE)["packing_rounds"])

    assert rounds(LpcutTuning(packing=PackingTuning(max_rounds=1))) == 1
    assert rounds(DEFAULT_TUNING) > 1  # a slack this tight is not met in one round
