"""SLAQ's simulator workload comes from the registry (`WORKLOADS`, scope "slaq")."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.registry import WORKLOADS, register_workload
from schedlab.experiments.slaq import simulator as sim
from schedlab.experiments.slaq.cli import simulate as simulate_cmd
from schedlab.experiments.slaq.simulator import DEFAULT_WORKLOAD, SimConfig, simulate, summarize
from schedlab.solvers.errors import InvalidInput

SMALL = SimConfig(jobs=4, cores=12, arrival_mean_s=6.0, seed=2)


def test_default_workload_is_registered_and_is_make_jobs():
    assert DEFAULT_WORKLOAD in WORKLOADS.names(scope="slaq")
    got = WORKLOADS.get(DEFAULT_WORKLOAD, scope="slaq").obj(SMALL)
    want = sim.make_jobs(SMALL)
    assert [(j.arrival_s, j.w) for j in got] == [(j.arrival_s, j.w) for j in want]
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a.curve, b.curve)


def test_the_simulator_runs_a_newly_registered_workload(monkeypatch):
    WORKLOADS.load()
    monkeypatch.setattr(WORKLOADS, "_entries", dict(WORKLOADS._entries))  # undone after the test
    register_workload("slaq", "first-two")(lambda cfg: sim.make_jobs(cfg)[:2])
    out = summarize(simulate(SMALL, "fair", "first-two"))
    assert out["jobs"] == out["finished_jobs"] == 2


def test_cli_offers_the_registered_names_and_unknown_is_invalid_input():
    opt = next(p for p in simulate_cmd.params if p.name == "workload")
    assert tuple(opt.type.choices) == tuple(WORKLOADS.names(scope="slaq"))  # type: ignore[attr-defined]
    with pytest.raises(InvalidInput, match="unknown slaq workload 'nope'"):
        simulate(SMALL, "fair", "nope")
