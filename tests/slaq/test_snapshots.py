"""Seeded SLAQ snapshots: deterministic, valid, refused when absurd; methods agree on them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.generate import generate_snapshot
from schedlab.solvers.slaq.problem import Snapshot
from schedlab.solvers.solve import solve


def test_same_seed_same_snapshot_and_round_trip():
    a, b = generate_snapshot(7, 40, 3), generate_snapshot(7, 40, 3)
    assert a.to_dict() == b.to_dict()
    assert generate_snapshot(7, 40, 4).to_dict() != a.to_dict()
    assert Snapshot.from_dict(a.to_dict()).to_dict() == a.to_dict()


def test_absurd_sizes_are_refused_all_at_once():
    with pytest.raises(InvalidInput) as err:
        generate_snapshot(0, 0, 1)
    assert len(err.value.problems) == 2


@pytest.mark.parametrize("seed", range(6))
def test_greedy_never_beats_the_proven_optimum(seed):
    snap = generate_snapshot(4, 16, seed)
    best = solve(snap, "enum")
    assert best.status == "optimal"
    assert solve(snap, "dp").value == pytest.approx(best.value, rel=1e-9)
    greedy = solve(snap, "greedy")
    assert greedy.status == "feasible"
    assert greedy.value <= best.value + 1e-9 * max(1.0, abs(best.value))


def test_cli_snapshot_verb():
    runner = CliRunner()
    ok = runner.invoke(cli, ["slaq", "snapshot", "--jobs", "3", "--cores", "12", "--seed", "2"])
    assert ok.exit_code == 0
    assert len(json.loads(ok.stdout)["jobs"]) == 3
    bad = runner.invoke(cli, ["slaq", "snapshot", "--jobs", "0", "--cores", "12", "--seed", "2"])
    assert bad.exit_code == 2
