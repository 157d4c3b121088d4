"""Snapshot validation (every problem at once), JSON round trip, base cores."""

from __future__ import annotations

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.slaq.generate import random_snapshot
from schedlab.solvers.slaq.problem import Snapshot


def test_round_trip(tmp_path):
    s = random_snapshot(4, 40, seed=1)
    s.save(tmp_path / "s.json")
    assert Snapshot.load(tmp_path / "s.json") == s
    assert s.kind == "sum" and Snapshot.subject == "slaq"


def test_all_problems_reported_at_once():
    bad = {
        "total_cores": -1,
        "objective": "avg",
        "jobs": [
            {"id": "a", "losses": [1.0, "x"], "core_s_per_iter": 0},
            {"id": "a", "losses": [1.0], "core_s_per_iter": 1.0, "foo": 1},
        ],
        "extra": 1,
    }
    with pytest.raises(InvalidInput) as e:
        Snapshot.from_dict(bad)
    msg = str(e.value)
    for part in (
        "total_cores",
        "objective",
        "jobs[0] (a).losses[1]",
        "core_s_per_iter",
        "duplicate id",
        "jobs[1].foo",
        "extra: unknown",
    ):
        assert part in msg, part


def test_base_cores_and_free():
    d = {
        "total_cores": 20,
        "min_cores": 3,
        "jobs": [
            {"id": "new", "losses": [1.0], "core_s_per_iter": 1.0},
            {"id": "a", "losses": [3.0, 2.0], "core_s_per_iter": 1.0},
            {"id": "b", "losses": [3.0, 2.0], "core_s_per_iter": 1.0},
        ],
    }
    s = Snapshot.from_dict(d)
    assert s.base_cores() == [6, 3, 3] and s.free_cores() == 8
    s2 = Snapshot.from_dict({**d, "total_cores": 5})  # fair share 1 caps the minimum
    assert s2.base_cores() == [1, 1, 1] and s2.free_cores() == 2


def test_bad_json_file(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{")
    with pytest.raises(InvalidInput, match="x.json"):
        Snapshot.load(p)
