"""The baselines choose as their original systems do (INFless, BATCH), on hand-computed tiny
cases, and a head's own stage is planned with the fill wait ahead of its queue."""

from __future__ import annotations

import pytest

from schedlab.experiments.esg.policies import attach_fill, make_policy
from schedlab.experiments.esg.simulator import SimConfig, Simulation
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.problem import App


def _app(configs: list[dict[str, float]], slo_ms: float = 40.0) -> App:
    """One function with the given configurations."""
    return App.from_dict(
        {"name": "one", "slo_ms": slo_ms, "functions": [{"id": "f", "configs": configs}]}
    )


def _cfg(batch: int, vcpus: float, share: float, lat: float) -> dict[str, float]:
    return {"batch": batch, "vcpus": vcpus, "gpu_share": share, "latency_ms": lat}


# INFless case, SLO 40 ms. Per-request costs (1e-5 per vCPU-s, 1e-4 per GPU-s, share 0.25):
# k0 b=1 30 ms: 1.05e-6; k1 b=4 25 ms: 2.19e-7 (cheapest, but 25 > 40 / 2);
# k2 b=2 18 ms: 3.15e-7 (18 <= 20: INFless's pick); k3 CPU-only b=1 8 vCPUs 35 ms: 2.8e-6.
INFLESS_CASE = [_cfg(1, 1, 0.25, 30), _cfg(4, 1, 0.25, 25), _cfg(2, 1, 0.25, 18), _cfg(1, 8, 0, 35)]


def test_infless_batches_only_when_exec_fits_half_the_slo():
    p = make_policy("infless")
    st = p.prepare(_app(INFLESS_CASE), 1000.0)
    assert p.decide(st, 0, 40.0) == 2  # not k1: 25 ms > SLO / 2
    assert p.batch_timeout_ms(st, 0, 2, 40.0) == pytest.approx(40.0 - 18.0)
    # budget 30: SLO / 2 = 15 rules out every batch > 1; b = 1 must fit 30 ms: k0
    assert p.decide(st, 0, 30.0) == 0
    assert p.batch_timeout_ms(st, 0, 0, 30.0) == 0.0


def test_infless_shares_at_most_half_a_gpu_or_cpu_only():
    p = make_policy("infless")
    cfgs = [_cfg(1, 1, 1.0, 5), _cfg(1, 1, 0.75, 6), _cfg(1, 1, 0.5, 20), _cfg(1, 8, 0, 30)]
    st = p.prepare(_app(cfgs), 1000.0)
    # the whole and 3/4 GPU are cheaper here (5.5e-7, 5.1e-7 vs 1.2e-6; CPU-only 2.4e-6) but
    # not INFless's
    assert p.decide(st, 0, 40.0) == 2
    assert p.decide(st, 0, 40.0, queued=5) == 2


def test_infless_timeout_is_waited_by_the_simulator():
    # a lone request takes k2 (b = 2): it waits the timeout 40 - 18 = 22 ms, then runs as a
    # batch of one at the least latency of its size at batch 1..2 (k2's 18 ms): latency 40
    m = Simulation([_app(INFLESS_CASE)], "infless", SimConfig(load=0.1, requests=1)).run()
    assert m["p50_latency_ms"] == pytest.approx(40.0)
    assert m["slo_hit_rate"] == 1.0


# BATCH case, SLO 50 ms, rate 100/s (fill wait (b - 1) x 10 ms). k0 GPU b=1 share 0.5 4 ms
# (2.4e-7, the cheapest of all); CPU-only: k1 b=1 4 vCPUs 30 ms (1.2e-6), k2 b=4 2 vCPUs 60 ms
# (3e-7, but 60 + 30 ms fill > 50), k3 b=1 16 vCPUs 10 ms (1.6e-6).
BATCH_CASE = [_cfg(1, 1, 0.5, 4), _cfg(1, 4, 0, 30), _cfg(4, 2, 0, 60), _cfg(1, 16, 0, 10)]


def test_batch_is_cpu_only_and_meets_the_slo_with_its_timeout():
    p = make_policy("batch")
    st = p.prepare(_app(BATCH_CASE, slo_ms=50.0), 100.0)
    assert p.decide(st, 0, 50.0) == 1
    assert p.decide(st, 0, 20.0) == 3  # only the 16-vCPU configuration fits 20 ms
    # nothing fits (late): the drain rule takes the cheapest a lone request fills (k1, b=1),
    # with 4 queued the cheapest of all (k2, b=4); never the GPU's k0
    assert p.decide(st, 0, 5.0) == 1
    assert p.decide(st, 0, 5.0, queued=4) == 2
    old = make_policy("batch", late="cheapest")
    assert old.decide(old.prepare(_app(BATCH_CASE, slo_ms=50.0), 100.0), 0, 5.0) == 2
    # four requests waiting: k2 needs no fill wait (60 ms still > 50): k1 again
    assert p.decide(st, 0, 50.0, queued=4) == 1
    assert p.decide(st, 0, 70.0, queued=4) == 2


@pytest.mark.parametrize(
    ("policy", "needs"), [("batch", "CPU-only"), ("infless", "GPU share of 10-50 %")]
)
def test_a_baseline_refuses_an_app_with_nothing_of_its_kind(policy, needs):
    app = _app([_cfg(1, 1, 1.0, 5), _cfg(2, 1, 0.75, 6)])
    with pytest.raises(InvalidInput, match=needs) as exc:
        make_policy(policy).prepare(app, 100.0)
    assert "'f'" in str(exc.value) and "--cpu-configs" in str(exc.value)


def test_own_stage_planned_with_the_fill_wait_ahead_of_its_queue():
    # k0 b=1 10 ms (6e-7); k1 b=4 12 ms (1.8e-7), fill (4 - 1) / 100 per s = 30 ms.
    app = _app([_cfg(1, 1, 0.5, 10), _cfg(4, 1, 0.5, 12)], slo_ms=20.0)
    p = make_policy("greedy")
    st = p.prepare(app, 100.0)
    attach_fill(st, app, 100.0)
    assert p.decide(st, 0, 20.0) == 0  # alone: 12 + 30 > 20
    assert p.decide(st, 0, 20.0, queued=2) == 0  # two more to come: 12 + 20 > 20
    assert p.decide(st, 0, 20.0, queued=4) == 1  # a full batch waits: 12 <= 20
    assert p.decide(st, 0, 20.0, queued=9) == 1
