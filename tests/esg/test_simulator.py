"""The serverless simulator conserves requests, is seeded, and ESG meets the SLO at light load."""

from __future__ import annotations

import ast
import inspect
import json

import pytest
from click.testing import CliRunner

import schedlab.experiments.esg.simulator as simulator
from schedlab.experiments.cli import cli
from schedlab.experiments.esg.simulator import (
    SimConfig,
    Simulation,
    arrival_times,
    requests_per_app,
    simulate,
)
from schedlab.solvers.esg.generate import generate

POLICIES = ("esg", "greedy", "batch", "infless", "static")


@pytest.fixture(scope="module")
def apps():
    return [generate(3, 20, 1, cpu_configs=8), generate(4, 20, 2, shape="dag", cpu_configs=8)]


@pytest.mark.parametrize("arrivals", ["poisson", "bursty", "azure"])
@pytest.mark.parametrize("policy", POLICIES)
def test_every_request_completes_once(apps, policy, arrivals):
    cfg = SimConfig(load=0.3, arrivals=arrivals, requests=300, seed=3, cold_start_ms=50.0)
    sim = Simulation(apps, policy, cfg)
    m = sim.run()
    assert m["requests"] == m["completed"] == 300
    # every function of every request ran exactly once
    assert sim.req_done_fns == [len(apps[a].functions) for a in sim.req_app]
    assert not any(sim.queues.values()) and not sim.pending
    assert 0 <= m["slo_hit_rate"] <= 1 and m["cost"] > 0


def test_seeded_and_esg_meets_slo_at_light_load(apps):
    cfg = SimConfig(load=0.1, requests=400, seed=5)
    a, b = simulate(apps, "esg", cfg), simulate(apps, "esg", cfg)
    assert {k: v for k, v in a.items() if "ms_p" not in k and k != "wall_s"} == {
        k: v for k, v in b.items() if "ms_p" not in k and k != "wall_s"
    }
    assert a["slo_hit_rate"] >= 0.95


def test_arrival_rates_match():
    import numpy as np

    rng = np.random.default_rng(0)
    for kind in ("poisson", "bursty", "azure"):
        t = arrival_times(kind, 20.0, 4000, rng)
        rate = len(t) / (t[-1] / 1000.0)
        assert 10.0 < rate < 40.0, kind  # bursty and azure are far from Poisson: loose band
        assert (np.diff(t) >= 0).all()


def test_simulate_cli_json(tmp_path):
    app = tmp_path / "app.json"
    app.write_text(generate(3, 10, 0).to_json())
    res = CliRunner().invoke(
        cli,
        ["esg", "simulate", "--apps", str(app), "--policy", "esg", "--requests", "200", "--json"],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    for key in ("slo_hit_rate", "cost", "p99_latency_ms", "decision_ms_p99"):
        assert key in out
    res = CliRunner().invoke(cli, ["esg", "simulate", "--apps", str(tmp_path / "no.json")])
    assert res.exit_code == 2


def test_warm_up_prefix_is_left_out_of_the_metrics(apps):
    cfg = SimConfig(load=0.3, requests=200, seed=2, warmup_frac=0.25)
    sim = Simulation(apps, "greedy", cfg)
    m = sim.run()
    assert m["measured_requests"] == 150 and m["completed"] == 200
    order = sorted(range(200), key=lambda r: sim.req_arrival[r])[50:]
    hits = [
        sim.req_finish[r] - sim.req_arrival[r] <= apps[sim.req_app[r]].slo_ms + 1e-9 for r in order
    ]
    assert m["slo_hit_rate"] == pytest.approx(sum(hits) / 150, rel=1e-12)
    assert m["cost"] == pytest.approx(sum(sim.req_cost[r] for r in order) / 150, rel=1e-12)
    # the per-request shares add up to what the runs cost
    assert sum(sim.req_cost) == pytest.approx(sim.cost, rel=1e-9)


#: The simulator's metric keys, in the order its JSON output gives them.
METRIC_KEYS = ["requests", "completed", "measured_requests", "slo_hit_rate", "slo_hits", "cost",
               "p50_latency_ms", "p99_latency_ms", "decision_ms_p50", "decision_ms_p99",
               "decision_ms_p99_computed", "decision_cpu_ms_p50", "decision_cpu_ms_p99",
               "decisions", "decisions_cached", "dispatch", "split", "cold_starts",
               "mean_transfer_ms", "local_transfer_share", "rate_per_s", "configs_too_large",
               "work_steps", "wall_s", "per_app"]  # fmt: skip


def test_metrics_keep_their_keys_and_order_across_the_parts(apps):
    """The metrics gathered from the run's parts (requests, decisions, transfers) come out in
    one fixed order, and the requests are split over the apps as evenly as possible."""
    sim = Simulation(apps, "esg", SimConfig(load=0.2, requests=101, seed=1))
    assert sim.per_app == requests_per_app(2, 101) == [51, 50]
    assert requests_per_app(3, 10) == [4, 3, 3]
    assert list(sim.run()) == METRIC_KEYS


def test_no_simulator_class_is_over_300_lines():
    """The class-size rule (300 lines) for the simulator's module."""
    tree = ast.parse(inspect.getsource(simulator))
    sizes = {n.name: n.end_lineno - n.lineno + 1 for n in ast.walk(tree)
             if isinstance(n, ast.ClassDef) and n.end_lineno is not None}  # fmt: skip
    assert sizes["Simulation"] > 100 and max(sizes.values()) <= 300, sizes
