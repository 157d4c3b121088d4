"""The scale study's cells and table: every method on one small DAG, exact ones equal, the
split never cheaper than the optimum, online decisions timed one per function."""

from __future__ import annotations

import pytest

from schedlab.experiments.esg import fig_esg_scale as sc

CFG = {"functions": [6], "configs": [6], "base_configs": 6, "base_functions": 6,
       "instances": 1, "time_limit_s": 20.0}  # fmt: skip


def test_cells_and_table():
    rows = []
    for m in sc.METHODS:
        key = {"sweep": "functions", "size": 6, "i": 0, "method": m}
        rows.append({**key, **sc.cell(key, CFG, 0)})
    by = {r["method"]: r for r in rows}
    assert by["milp"]["status"] == by["astar_dag"]["status"] == "optimal"
    assert by["astar_dag"]["value"] == pytest.approx(by["milp"]["value"], rel=1e-7)
    for m in ("split", "split_opt", "policy-split", "policy-nosplit"):
        if by[m]["value"] is not None:
            assert by[m]["value"] >= by["milp"]["value"] * (1 - 1e-9), m
    assert len(by["policy-split"]["times_ms"]) == 6  # one decision per function
    cfg = sc.ScaleConfig((6,), (6,), 6, 6, 1, 20.0)
    tab = {r["method"]: r for r in sc.table(rows, cfg)}
    assert tab["milp"]["gap_pct"] == pytest.approx(0.0, abs=1e-6)
    assert tab["split"]["gap_pct"] >= -1e-9
    assert tab["milp"]["in_limit"] and tab["policy-split"]["within_10ms"]
    assert sc._late(dict(by["milp"], status="timeout"), 20.0)
    assert sc._late(dict(by["milp"], status="feasible"), 20.0)  # stopped before its proof
    assert not sc._late(by["milp"], 20.0)
    assert not sc._late(dict(by["milp"], wall_ms=[30_000.0]), 20.0)  # proven: load, not limit
