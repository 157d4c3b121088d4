"""The esg policy's factor ablations (--no-gpu-sharing, --no-batching, --no-replan, --pruning
paper): each restricts what the policy may do, and only that; refused for other policies."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.esg.policies import PRUNINGS, EsgPolicy, Factors, make_policy
from schedlab.experiments.esg.simulator import SimConfig, Simulation
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.astar import astar_chain
from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.problem import App


def _chosen(app, policy, load=0.3, requests=300):  # type: ignore[no-untyped-def]
    """Run one simulation and return (metrics, the configurations its batches ran)."""
    sim = Simulation([app], policy, SimConfig(load=load, requests=requests, seed=3))
    used: Counter[tuple[int, int]] = Counter()
    orig = sim._dispatch

    def spy(t, q):  # type: ignore[no-untyped-def]
        used[(q[1], sim.pending[q][0])] += 1
        orig(t, q)

    sim._dispatch = spy  # type: ignore[method-assign]
    return sim.run(), used


@pytest.fixture(scope="module")
def app():  # type: ignore[no-untyped-def]
    return generate(3, 60, 11, shares="mig", cpu_configs=30)


def test_no_gpu_sharing_runs_whole_gpus_or_cpu_only(app):  # type: ignore[no-untyped-def]
    m, used = _chosen(app, make_policy("esg", factors=Factors(gpu_sharing=False)))
    assert m["completed"] == 300
    shares = {app.functions[f].configs[k].gpu_share for f, k in used}
    assert shares <= {0.0, 1.0}
    _, full = _chosen(app, make_policy("esg"))
    assert any(0 < app.functions[f].configs[k].gpu_share < 1 for f, k in full)  # it can bite


def test_no_batching_runs_batch_one(app):  # type: ignore[no-untyped-def]
    _, used = _chosen(app, make_policy("esg", factors=Factors(batching=False)))
    assert {app.functions[f].configs[k].batch for f, k in used} == {1}
    _, full = _chosen(app, make_policy("esg"))
    assert any(app.functions[f].configs[k].batch > 1 for f, k in full)


def test_no_replan_takes_the_plan_made_at_arrival(app):  # type: ignore[no-untyped-def]
    pol = make_policy("esg", factors=Factors(replan=False))
    sim = Simulation([app], pol, SimConfig(load=0.3, requests=200, seed=5))
    seen = []
    orig = sim._dispatch

    def spy(t, q):  # type: ignore[no-untyped-def]
        head = sim.queues[q][0]
        seen.append((sim.req_plan[head][q[1]], sim.pending[q][0]))
        orig(t, q)

    sim._dispatch = spy  # type: ignore[method-assign]
    m = sim.run()
    assert m["completed"] == 200 and seen
    assert all(a == b for a, b in seen)
    # the plan is the per-stage rule at the planned starts: stage 0 with the full SLO
    st = sim.states[0]
    plan = pol.plan_request(st, [0, 1, 2], [[], [0], [1]], app.slo_ms, {0: 1})
    assert plan[0] == pol.decide(st, 0, app.slo_ms, 1)
    start = float(st.lat[0][plan[0]])
    assert plan[1] == pol.decide(st, 1, app.slo_ms - start, 1)


def test_replan_differs_from_plan_once(app):  # type: ignore[no-untyped-def]
    """At a load where queues build, re-planning per stage changes decisions (the ablation
    is not a no-op)."""
    a, used_a = _chosen(app, make_policy("esg"), load=0.5)
    b, used_b = _chosen(app, make_policy("esg", factors=Factors(replan=False)), load=0.5)
    assert used_a != used_b


def test_paper_pruning_plans_at_the_same_cost():
    """Both pruning settings are exact: the same optimal cost on every chain and budget."""
    rng = np.random.default_rng(0)
    for seed in range(12):
        app = generate(int(rng.integers(2, 6)), 20, 500 + seed)
        lats, costs = app.stage_latency(), app.stage_cost()
        for frac in (0.6, 0.8, 1.0, 1.3):
            b = app.slo_ms * frac
            a = astar_chain(lats, costs, b, PRUNINGS["schedlab"])
            p = astar_chain(lats, costs, b, PRUNINGS["paper"])
            assert (a.choice is None) == (p.choice is None)
            if a.choice is not None:
                assert p.cost == pytest.approx(a.cost, rel=1e-9)
    assert PRUNINGS["paper"].dp_buckets == 0 and not PRUNINGS["paper"].dominance


def test_factors_refused_elsewhere_and_when_nothing_is_left():
    with pytest.raises(InvalidInput, match="ablations of the esg policy only"):
        make_policy("greedy", factors=Factors(batching=False))
    with pytest.raises(InvalidInput, match="pruning"):
        EsgPolicy(factors=Factors(pruning="nope"))
    half = {"batch": 2, "vcpus": 1, "gpu_share": 0.5, "latency_ms": 5.0}
    whole = {"batch": 1, "vcpus": 1, "gpu_share": 1.0, "latency_ms": 3.0}
    two = App.from_dict(
        {
            "name": "two",
            "slo_ms": 20.0,
            "functions": [
                {"id": "ok", "configs": [half, whole]},
                {"id": "shared_only", "configs": [half]},
            ],
        }
    )
    pol = make_policy("esg", factors=Factors(gpu_sharing=False))
    with pytest.raises(InvalidInput, match="'shared_only'") as exc:
        pol.prepare(two, 10.0)
    assert "'ok'" not in str(exc.value)
    with pytest.raises(InvalidInput, match="'shared_only'"):
        make_policy("esg", factors=Factors(batching=False)).prepare(two, 10.0)
    make_policy("esg").prepare(two, 10.0)  # full ESG takes it


def test_cli_flags(tmp_path, app):  # type: ignore[no-untyped-def]
    path = tmp_path / "app.json"
    app.save(path)
    run = CliRunner().invoke
    base = ["esg", "simulate", "--apps", str(path), "--requests", "100", "--json"]
    out = run(cli, [*base, "--no-batching", "--no-replan"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    assert d["factors"] == {"gpu_sharing": True, "batching": False, "replan": False,
                            "pruning": "schedlab"}  # fmt: skip
    assert d["late"] == "drain"
    bad = run(cli, [*base, "--policy", "infless", "--no-gpu-sharing"])
    assert bad.exit_code == 2 and "--no-gpu-sharing" in bad.output
    bad = run(cli, [*base, "--pruning", "nope"])
    assert bad.exit_code == 2
