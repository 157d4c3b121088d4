"""Application files: round trip, defaults, and validation that lists every problem."""

from __future__ import annotations

import json

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.generate import family_configs, generate
from schedlab.solvers.esg.problem import App, Config, Prices


def test_round_trip_and_kind():
    for shape in ("chain", "dag"):
        app = generate(5, 7, 3, shape=shape)
        back = App.from_dict(json.loads(app.to_json()))
        assert back == app
    assert generate(3, 4, 0).kind == "chain"


def test_chain_when_edges_omitted_and_cost_formula():
    app = App.from_dict(
        {
            "slo_ms": 100,
            "prices": {"vcpu_s": 1e-5, "gpu_s": 1e-4},
            "functions": [
                {
                    "id": "a",
                    "configs": [{"batch": 4, "vcpus": 2, "gpu_share": 0.25, "latency_ms": 40}],
                },
                {
                    "id": "b",
                    "configs": [{"batch": 1, "vcpus": 1, "gpu_share": 1, "latency_ms": 10}],
                },
            ],
        }
    )
    assert app.edges == (("a", "b"),) and app.kind == "chain"
    c = Config(4, 2, 0.25, 40.0)
    assert c.cost(Prices(1e-5, 1e-4)) == pytest.approx((2 * 1e-5 + 0.25 * 1e-4) * 40 / 1000 / 4)


BAD = {"batch": 1.5, "vcpus": 1, "gpu_share": 1.5, "latency_ms": -1}
PARTS = ("slo_ms", "extra", "batch", "gpu_share", "latency_ms", "configs", "duplicate", "zz")


def test_validation_lists_every_problem():
    with pytest.raises(InvalidInput) as exc:
        App.from_dict(
            {
                "slo_ms": 0,
                "extra": 1,
                "functions": [
                    {
                        "id": "a",
                        "configs": [{"batch": 1.5, "vcpus": 1, "gpu_share": 1.5, "latency_ms": -1}],
                    },
                    {"id": "a", "configs": []},
                ],
                "edges": [["a", "zz"]],
            }
        )
    text = str(exc.value)
    for part in (
        "slo_ms",
        "extra",
        "batch",
        "gpu_share",
        "latency_ms",
        "configs",
        "duplicate",
        "zz",
    ):
        assert part in text, part
    assert len(exc.value.problems) >= 8


def test_cycle_is_rejected():
    cfg = [{"batch": 1, "vcpus": 1, "gpu_share": 1.0, "latency_ms": 1.0}]
    with pytest.raises(InvalidInput, match="cycle"):
        App.from_dict(
            {
                "slo_ms": 5,
                "functions": [{"id": "a", "configs": cfg}, {"id": "b", "configs": cfg}],
                "edges": [["a", "b"], ["b", "a"]],
            }
        )


def test_profile_families_batching_amortizes():
    cs = family_configs("detect")
    per_item = {c.batch: c.latency_ms / c.batch for c in cs if c.vcpus == 1 and c.gpu_share == 1.0}
    assert per_item[32] < per_item[1]


def test_generate_is_seeded():
    assert generate(4, 30, 5) == generate(4, 30, 5)
    assert generate(4, 30, 5) != generate(4, 30, 6)
    assert len(generate(2, 500, 1).functions[0].configs) == 500
