"""Snapshot and profile validation, JSON round trip, the shipped profiles and the generator."""

from __future__ import annotations

import copy
import json
import math

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.synergy import Cluster, Snapshot, default_profiles, generate_snapshot


def problems_of(data) -> list[str]:
    with pytest.raises(InvalidInput) as ei:
        Snapshot.from_dict(data)
    return ei.value.problems


def test_shipped_profiles_match_shared_data():
    prof = default_profiles()
    assert len(prof.models) == 10
    assert prof.cpu_values == (1, 2, 3, 4, 5, 6, 9, 12, 24)
    assert prof.mem_values == (20.83, 62.5, 125, 187.5, 250)
    k = prof.index("alexnet")
    # normalized to 1 at the proportional share (3 CPUs, 62.5 GB per GPU)
    for i in range(len(prof.models)):
        assert math.isclose(prof.tput(i, 3, 62.5), 1.0, rel_tol=1e-12)
    assert prof.ideal(k) == (12, 125)
    assert math.isclose(prof.tput(k, 12, 125), 2.94, rel_tol=1e-12)
    # step function: between grid points the largest covered point counts; below: 0
    assert math.isclose(prof.tput(k, 11.9, 200), 2.0, rel_tol=1e-12)
    assert prof.tput(k, 0.5, 62.5) == 0.0
    # gnmt's ideal 20 GB is rounded up to the grid point 20.83
    assert prof.ideal(prof.index("gnmt")) == (1, 20.83)


def test_round_trip(tmp_path):
    snap = generate_snapshot(3, 10, seed=4, gpu_mix="multi")
    p = tmp_path / "s.json"
    snap.save(p)
    again = Snapshot.load(p)
    assert again == snap
    assert "profiles" not in json.loads(p.read_text())  # default profiles are implied


def test_generator_is_seeded_and_valid():
    a = generate_snapshot(4, 30, seed=7, gpu_mix="multi")
    b = generate_snapshot(4, 30, seed=7, gpu_mix="multi")
    c = generate_snapshot(4, 30, seed=8, gpu_mix="multi")
    assert a == b and a != c
    assert {j.gpus for j in a.jobs} <= {1, 2, 4, 8}
    assert a.cluster == Cluster(4)


def test_proportional_set_is_greedy_by_gpu_count():
    data = {
        "cluster": {"servers": 1},
        "jobs": [
            {"id": "a", "model": "res18", "gpus": 4},
            {"id": "b", "model": "res18", "gpus": 8},
            {"id": "c", "model": "gnmt", "gpus": 2},
            {"id": "d", "model": "gnmt", "gpus": 4},
            {"id": "e", "model": "gnmt", "gpus": 2},
        ],
    }
    assert Snapshot.from_dict(data).proportional_set() == [0, 2, 4]


GOOD = {
    "cluster": {
        "servers": 2,
        "gpus_per_server": 8,
        "cpus_per_server": 24,
        "mem_gb_per_server": 500,
    },
    "jobs": [{"id": "a", "model": "res18", "gpus": 1, "remaining_s": 100}],
}


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda d: d["jobs"][0].update(model="vgg"), "job 'a': field 'model' is 'vgg'"),
        (lambda d: d["jobs"][0].pop("model"), "job 'a': field 'model' is missing"),
        (lambda d: d["jobs"][0].update(gpus=0), "job 'a': field 'gpus' must be a positive"),
        (lambda d: d["jobs"][0].update(gpus=1.5), "job 'a': field 'gpus' must be a positive"),
        (lambda d: d["jobs"][0].update(gpus=17), "more than the cluster's 16 GPUs"),
        (lambda d: d["jobs"][0].update(remaining_s=-1), "field 'remaining_s' must be"),
        (lambda d: d["jobs"][0].update(weight=2), "job 'a': unknown field(s) ['weight']"),
        (lambda d: d["jobs"].append({"id": "a", "model": "gnmt"}), "'id' is duplicated"),
        (lambda d: d["jobs"].append("x"), "job #1: must be an object"),
        (lambda d: d["cluster"].update(servers=0), "cluster: field 'servers' must be"),
        (lambda d: d["cluster"].update(cpus_per_server=-3), "field 'cpus_per_server' must be"),
        (lambda d: d["cluster"].update(cpus_per_server=4), "below the smallest profiled value"),
        (lambda d: d["cluster"].update(racks=2), "cluster: unknown field(s) ['racks']"),
        (lambda d: d.update(jobs=3), "field 'jobs' must be a list"),
        (lambda d: d.update(extra=1), "unknown top-level field(s) ['extra']"),
    ],
)
def test_each_validation_error(mutate, needle):
    data = copy.deepcopy(GOOD)
    mutate(data)
    probs = problems_of(data)
    assert any(needle in p for p in probs), probs


def test_all_problems_reported_together():
    data = copy.deepcopy(GOOD)
    data["jobs"] = [
        {"id": "x", "model": "nope", "gpus": -1},
        {"id": "y", "model": "res18", "gpus": 0},
    ]
    probs = problems_of(data)
    assert len(probs) == 3


def test_custom_profiles_are_validated():
    prof = default_profiles().to_dict()
    prof["models"]["res18"]["tput"][0] = [0.1, 0.2]  # wrong row length
    prof["models"]["alexnet"]["ideal_cpus_per_gpu"] = 3  # not a point of peak throughput
    data = {**copy.deepcopy(GOOD), "profiles": prof}
    probs = problems_of(data)
    assert any("'res18': field 'tput' must be 9 rows of 5" in p for p in probs), probs
    assert any("'alexnet': throughput at the ideal point" in p for p in probs), probs


def test_bad_json_names_the_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(InvalidInput) as ei:
        Snapshot.load(p)
    assert str(p) in str(ei.value) and "not valid JSON" in str(ei.value)
