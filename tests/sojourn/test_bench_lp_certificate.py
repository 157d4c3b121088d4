"""The LP-certificate study: a basic certificate is far smaller than lpcut's last LP, and its
rows alone prove the block; every bound stays at or below the best order (sound)."""

from __future__ import annotations

import numpy as np

from schedlab.experiments.sojourn import bench_lp_certificate as blc
from schedlab.solvers.lop.core import block_gap_abs
from schedlab.solvers.lop.lpcut.model import HighsCutModel, block_close_abs
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective


def test_basic_certificate_is_small_and_proves_alone():
    c = blc.study(40, 14_000)
    assert c.interior_gap <= 1.0  # lpcut's rounds closed the block
    assert c.basic_support <= 40 * 39 // 2  # a basic dual: at most one per column
    assert c.basic_support < c.rows / 3
    assert c.support_only_gap <= 1.0  # the support's rows alone prove it
    assert c.perturbed_support < c.interior_support / 3  # relaxed rhs: a sparse dual
    for gap in (c.interior_gap, c.perturbed_gap, c.basic_gap, c.support_only_gap):
        assert gap >= 0.0  # no bound above a feasible order's cost


def test_keep_rows_keeps_highs_and_stored_rows_in_step():
    _, W = linear_ordering_weights(generate(30, 13_000, family="cyclic"), Objective("B"))
    m = HighsCutModel(W, gap_abs=block_gap_abs(W), close_abs=block_close_abs(W), seed=0)
    m.lp_rounds()
    k = m.h.getNumRow()
    keep = np.arange(k) % 3 != 0
    assert m.keep_rows(keep) == int((~keep).sum())
    assert m.h.getNumRow() == int(keep.sum()) == len(np.concatenate(m.rows_rhs))
    assert m.keep_rows(np.ones(m.h.getNumRow(), dtype=bool)) == 0


def test_quick_run_prints_the_table(capsys):
    blc.run(quick=True)
    out = capsys.readouterr().out
    assert "basic support" in out and "\n60 " in out
