"""ESG's arrival processes come from the registry (`WORKLOADS`, scope "esg")."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.esg.cli import simulate_cmd
from schedlab.experiments.esg.simulator import SimConfig, arrival_process, arrival_times, simulate
from schedlab.experiments.registry import WORKLOADS, register_workload
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.generate import generate


def test_the_three_processes_wrap_the_generators_unchanged():
    assert WORKLOADS.names(scope="esg", tag="arrivals") == ["poisson", "bursty", "azure"]
    assert WORKLOADS.names(scope="esg", trace=True) == ["azure"]
    for kind in ("poisson", "bursty", "azure"):
        got = arrival_process(kind)(20.0, 500, np.random.default_rng(1), None, max_steps=1e8)
        want = arrival_times(kind, 20.0, 500, np.random.default_rng(1))
        np.testing.assert_array_equal(got, want)


def test_cli_offers_the_registered_names():
    opt = next(p for p in simulate_cmd.params if p.name == "arrivals")
    want = tuple(WORKLOADS.names(scope="esg", tag="arrivals"))
    assert tuple(opt.type.choices) == want  # type: ignore[attr-defined]


def test_the_simulator_runs_a_newly_registered_process(monkeypatch):
    WORKLOADS.load()
    monkeypatch.setattr(WORKLOADS, "_entries", dict(WORKLOADS._entries))  # undone after the test

    def evenly(rate, n, rng, trace, *, max_steps):
        return np.arange(1, n + 1) * 1000.0 / rate

    register_workload("esg", "evenly", tags=("arrivals",))(evenly)
    m = simulate([generate(3, 10, 0)], "esg", SimConfig(arrivals="evenly", requests=50, load=0.2))
    assert m["requests"] == m["completed"] == 50


def test_unknown_process_names_the_choices():
    with pytest.raises(InvalidInput, match="arrivals: unknown 'nope'; choose one of: poisson"):
        simulate([generate(3, 10, 0)], "esg", SimConfig(arrivals="nope", requests=5))


def test_evaluation_apps_are_registered_with_their_shapes():
    from schedlab.experiments.esg.workloads import app_names, build_app

    assert app_names() == ("chain3", "chain6", "dag-wide", "dag-deep")
    assert "chain3" not in WORKLOADS.names(scope="esg", tag="arrivals")
    shapes = {"chain3": ("chain", 3), "chain6": ("chain", 6), "dag-wide": ("dag", 5),
              "dag-deep": ("dag", 7)}  # fmt: skip
    for name, (kind, n) in shapes.items():
        app = build_app(name, 0, 20, shares="mig", cpu_configs=4)
        assert (app.kind, len(app.functions), app.name) == (kind, n, name)
        assert all(sum(c.cpu_only for c in f.configs) == 4 for f in app.functions)
    wide, deep = build_app("dag-wide", 1, 10), build_app("dag-deep", 1, 10)
    assert wide.preds()[4] == [1, 2, 3]  # fan-in of three
    assert deep.preds()[3] == [1, 2] and deep.preds()[6] == [4, 5]  # two diamonds
    assert build_app("chain3", 1, 10) == build_app("chain3", 1, 10)
    assert build_app("chain3", 1, 10) != build_app("chain3", 2, 10)
