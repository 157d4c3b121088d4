"""Dispatch has consequences in the simulator: placement-dependent transfer (locality saves
exactly the bandwidth difference), cold starts with keep-alive, and a locality-blind rule that
moves more data between invokers. Oracles: times computed by hand from the model in the
simulator's docstring (arrivals fixed, one configuration per function)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import schedlab.experiments.esg.simulator as simulator
from schedlab.experiments.cli import cli
from schedlab.experiments.esg.simulator import LOCAL_MB_S, REMOTE_MB_S, SimConfig, Simulation
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.dispatch import DISPATCH_RULES
from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.problem import App, Config, Function, Prices

PRICES = Prices(vcpu_s=1.0, gpu_s=10.0)


def _fixed_arrivals(monkeypatch: pytest.MonkeyPatch, times: list[float]) -> None:
    """Make every arrival process return `times` (ms), so the run is computed by hand."""

    def process(rate, n, rng, trace=None, *, max_steps=0):  # noqa: ARG001
        return np.array(times[:n], dtype=float)

    monkeypatch.setattr(simulator, "arrival_process", lambda kind: process)


def _chain(shares: list[float], lat: list[float], out_mb: float | None = None, **kw) -> App:
    """A chain of one-configuration functions (batch 1, 1 vCPU, the given GPU shares)."""
    fs = tuple(
        Function(f"f{i}", (Config(1, 1.0, s, la),), output_mb=out_mb, **kw)
        for i, (s, la) in enumerate(zip(shares, lat, strict=True))
    )
    edges = tuple((f"f{i}", f"f{i + 1}") for i in range(len(fs) - 1))
    return App("chain", 1e6, fs, edges, PRICES)


def _run(app: App, dispatch: str, n: int, **kw) -> tuple[Simulation, dict]:
    cfg = SimConfig(load=0.01, requests=n, invokers=2, dispatch=dispatch, **kw)
    sim = Simulation([app], "esg", cfg)
    if dispatch in ("esg", "no-locality"):
        sim.invokers[0].gpu = 0.3  # f0 (share 0.5) fits invoker 1 only
    return sim, sim.run()


def test_locality_saves_exactly_the_transfer_difference(monkeypatch):
    # f0 (share 0.5, 10 ms) passes 2 MB to f1 (share 0.25, 20 ms). Invoker 0 has a GPU share of
    # 0.3, so f0 goes to invoker 1. esg puts f1 beside it (local); no-locality takes the best
    # fit on GPU share, invoker 0 (0.3 free against 0.5 on invoker 1): remote.
    _fixed_arrivals(monkeypatch, [100.0])
    app = _chain([0.5, 0.25], [10.0, 20.0], out_mb=2.0)
    local_ms, remote_ms = 2.0 * 1000 / LOCAL_MB_S, 2.0 * 1000 / REMOTE_MB_S
    sim_l, near = _run(app, "esg", 1)
    sim_r, far = _run(app, "no-locality", 1)
    assert sim_l.req_where[0] == {0: 1, 1: 1} and sim_r.req_where[0] == {0: 1, 1: 0}
    assert near["p50_latency_ms"] == pytest.approx(10.0 + 20.0 + local_ms, abs=1e-9)
    assert far["p50_latency_ms"] == pytest.approx(10.0 + 20.0 + remote_ms, abs=1e-9)
    assert far["p50_latency_ms"] - near["p50_latency_ms"] == pytest.approx(remote_ms - local_ms)
    assert (near["mean_transfer_ms"], far["mean_transfer_ms"]) == pytest.approx(
        (local_ms, remote_ms)
    )
    assert (near["local_transfer_share"], far["local_transfer_share"]) == (1.0, 0.0)
    # transfer time is billed at f1's rate (1 vCPU + 0.25 GPU)
    rate = 1.0 * PRICES.vcpu_s + 0.25 * PRICES.gpu_s
    assert far["cost"] - near["cost"] == pytest.approx(rate * (remote_ms - local_ms) / 1000.0)
    assert near["dispatch"] == "esg" and far["dispatch"] == "no-locality"


def test_cold_start_then_warm_hit_within_keep_alive(monkeypatch):
    # One function (10 ms, cold start 5 ms), keep-alive 1 s: arrivals at 0, 100 (idle 85 ms:
    # warm) and 5,000 ms (idle 4,890 ms: expired, cold again).
    _fixed_arrivals(monkeypatch, [0.0, 100.0, 5000.0])
    app = _chain([0.5], [10.0], cold_start_ms=5.0)
    sim, m = _run(app, "esg", 3, keep_alive_s=1.0)
    assert m["cold_starts"] == 2
    assert sim.req_finish == [15.0, 110.0, 5015.0]
    rate = 1.0 * PRICES.vcpu_s + 0.5 * PRICES.gpu_s
    assert m["cost"] == pytest.approx(rate * (15.0 + 10.0 + 15.0) / 1000.0 / 3)
    # the run's default cold start applies to a function that gives none; no-warm pays it always
    _, never = _run(_chain([0.5], [10.0]), "no-warm", 3, keep_alive_s=1.0, cold_start_ms=7.0)
    assert never["cold_starts"] == 3 and never["p50_latency_ms"] == pytest.approx(17.0)


def test_locality_blind_dispatch_pays_more_transfers_on_a_chain(monkeypatch):
    # Requests far apart (no contention) through a 4-stage chain on 4 invokers: esg keeps every
    # stage on the first stage's invoker (all transfers local); random moves data between them.
    _fixed_arrivals(monkeypatch, [1000.0 * k for k in range(20)])
    app = _chain([0.25] * 4, [5.0] * 4)  # output_mb: the run's default (1 MB)
    runs = {}
    for rule in ("esg", "random"):
        cfg = SimConfig(load=0.01, requests=20, invokers=4, dispatch=rule, seed=3)
        runs[rule] = Simulation([app], "esg", cfg).run()
    esg, blind = runs["esg"], runs["random"]
    assert esg["local_transfer_share"] == 1.0
    assert esg["mean_transfer_ms"] == pytest.approx(1000.0 / LOCAL_MB_S)
    assert blind["local_transfer_share"] < 1.0
    assert blind["mean_transfer_ms"] > esg["mean_transfer_ms"]
    assert blind["p50_latency_ms"] >= esg["p50_latency_ms"] and blind["cost"] > esg["cost"]


def test_dispatch_rules_seeded_and_conserve_requests():
    apps = [generate(3, 20, 1), generate(4, 20, 2, shape="dag")]
    for rule in DISPATCH_RULES:
        cfg = SimConfig(load=0.3, requests=200, seed=4, dispatch=rule, cold_start_ms=5.0)
        a, b = Simulation(apps, "greedy", cfg).run(), Simulation(apps, "greedy", cfg).run()
        assert a["completed"] == 200
        for k in ("cost", "p99_latency_ms", "cold_starts", "mean_transfer_ms"):
            assert a[k] == b[k], (rule, k)


def test_output_mb_in_the_app_format_and_the_door():
    app = _chain([0.5, 0.5], [1.0, 1.0], out_mb=0.5)
    d = app.to_dict()
    assert d["functions"][0]["output_mb"] == 0.5
    assert App.from_dict(d) == app
    del d["functions"][0]["output_mb"]
    assert App.from_dict(d).functions[0].output_mb is None  # the simulator's default
    d["functions"][1]["output_mb"] = -1
    with pytest.raises(InvalidInput, match="output_mb"):
        App.from_dict(d)
    with pytest.raises(InvalidInput, match="dispatch"):
        SimConfig(dispatch="nearest").check()


def test_cli_dispatch_flag_and_json_keys(tmp_path):
    path = tmp_path / "app.json"
    path.write_text(generate(3, 10, 0).to_json())
    args = ["esg", "simulate", "--apps", str(path), "--requests", "100", "--json"]
    res = CliRunner().invoke(cli, [*args, "--dispatch", "random"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["dispatch"] == "random"
    assert isinstance(out["cold_starts"], int) and out["mean_transfer_ms"] >= 0
    bad = CliRunner().invoke(cli, [*args, "--dispatch", "nearest"])
    assert bad.exit_code == 2


def test_one_definition_of_load():
    # help text and simulator agree: same rate r per app, r x D = load x C (D by hand here)
    from schedlab.solvers.esg.limits import LOAD_DEFINITION

    res = CliRunner().invoke(cli, ["esg", "simulate", "--help"], terminal_width=10_000)
    assert " ".join(LOAD_DEFINITION.split()) in " ".join(res.output.split())
    a = _chain([0.5, 0.25], [10.0, 20.0])
    b = App("b", 1e6, (Function("g", (Config(1, 1.0, 1.0, 8.0), Config(4, 1.0, 0.1, 8.0))),), ())
    cfg = SimConfig(load=0.4, requests=10, invokers=3, gpus_per_invoker=2.0)
    sim = Simulation([a, b], "esg", cfg)
    demand = 0.5 * 10.0 + 0.25 * 20.0 + 1.0 * 8.0  # g: its batch-1 configuration only
    r = 0.4 * 3 * 2.0 * 1000.0 / demand
    assert sim.rates == pytest.approx([r, r])


def test_decision_time_with_and_without_cache_hits():
    apps = [generate(3, 20, 1)]
    sim = Simulation(apps, "esg", SimConfig(load=0.3, requests=300, seed=2))
    m = sim.run()
    computed = sum(len(st.cache) for st in sim.states)  # one cache entry per computed decision
    assert m["decisions"] - m["decisions_cached"] == computed == len(sim.decisions.miss_ms)
    assert 0 < computed < m["decisions"]  # this run has both hits and misses
    assert m["decision_ms_p99_computed"] >= 0 and m["decision_ms_p99"] >= 0


def test_blocked_queue_replans_from_its_budget(monkeypatch):
    # One invoker (GPU 1). slow: 1 vCPU, share 0.5, 30 ms (cost 6 x 30); fast: 8 vCPUs, share
    # 0.5, 15 ms (cost 13 x 15, dearer). SLO 50. Requests at 0, 1, 2 pick slow; the third finds
    # no room. At 30 the first finishes: 22 ms of budget left, slow no longer fits, fast does:
    # it runs 30..45 (latency 43, a hit). Keeping slow would finish at 60 (latency 58, a miss).
    _fixed_arrivals(monkeypatch, [0.0, 1.0, 2.0])
    slow, fast = Config(1, 1.0, 0.5, 30.0), Config(1, 8.0, 0.5, 15.0)
    app = App("one", 50.0, (Function("f", (slow, fast)),), (), PRICES)
    sim = Simulation([app], "greedy", SimConfig(load=0.01, requests=3, invokers=1))
    m = sim.run()
    assert sim.req_finish == [30.0, 31.0, 45.0]
    assert m["slo_hit_rate"] == 1.0


def test_a_files_wait_ms_is_planned_with_and_waited(monkeypatch):
    # batch 4 with wait_ms 5 (10 ms run): a lone request leaves at 5 and finishes at 15; the
    # (b - 1) / rate estimate (minutes at this load) is neither waited nor planned with.
    _fixed_arrivals(monkeypatch, [0.0])
    c = Config(4, 1.0, 0.5, 10.0, wait_ms=5.0)
    app = App("one", 100.0, (Function("f", (c,)),), (), PRICES)
    sim = Simulation([app], "greedy", SimConfig(load=0.01, requests=1, invokers=1))
    assert sim.states[0].lat[0].tolist() == [15.0]  # latency + wait_ms, no estimate on top
    sim.run()
    assert sim.req_finish == [15.0]
    # no wait_ms: the estimate, planned and waited (partial batch of 1 at the timeout)
    app2 = App("two", 1e9, (Function("f", (Config(4, 1.0, 0.5, 10.0),)),), (), PRICES)
    sim2 = Simulation([app2], "greedy", SimConfig(load=0.01, requests=1, invokers=1))
    est = 3 * 1000.0 / sim2.rates[0]
    assert sim2.states[0].lat[0].tolist() == [pytest.approx(10.0 + est)]
    sim2.run()
    assert sim2.req_finish == [pytest.approx(est + 10.0)]


def test_partial_batches_pay_for_the_requests_they_carry(monkeypatch):
    # Same size (1 vCPU, share 0.5) at batch 1 / 2 / 4: 8 / 12 / 20 ms; greedy takes batch 4
    # (cheapest per request), timeout wait_ms 5. A lone request leaves at 5 as a batch of 1 and
    # runs the batch-1 profile (8 ms): finish 13, billed 8 ms. Three at once: batch 4's 20 ms.
    cs = (Config(1, 1.0, 0.5, 8.0), Config(2, 1.0, 0.5, 12.0), Config(4, 1.0, 0.5, 20.0, 5.0))
    rate = 1.0 * PRICES.vcpu_s + 0.5 * PRICES.gpu_s
    for times, finish, run in (([0.0], [13.0], 8.0), ([0.0, 0.0, 0.0], [25.0] * 3, 20.0)):
        _fixed_arrivals(monkeypatch, times)
        app = App("one", 1000.0, (Function("f", cs),), (), PRICES)
        cfg = SimConfig(load=0.01, requests=len(times), invokers=1)
        sim = Simulation([app], "greedy", cfg)
        m = sim.run()
        assert sim.req_finish == finish
        assert m["cost"] == pytest.approx(rate * run / 1000.0 / len(times))
