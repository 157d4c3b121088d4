"""CPU-only configurations (gpu_share 0): validated at the door, generated with the documented
latency model, and left out of the load's GPU demand; the share grids of the generator."""

from __future__ import annotations

import pytest

from schedlab.experiments.esg.simulator import SimConfig, simulate
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.generate import (
    CPU_GRID_BATCH,
    CPU_GRID_VCPUS,
    CPU_MODEL_EXP,
    CPU_MODEL_SLOWDOWN,
    generate,
    latency_ms,
    profile_data,
)
from schedlab.solvers.esg.problem import App, Config, Function


def _file(share: float, vcpus: float) -> dict[str, object]:
    cfg = {"batch": 1, "vcpus": vcpus, "gpu_share": share, "latency_ms": 5.0}
    return {"slo_ms": 10, "functions": [{"id": "f", "configs": [cfg]}]}


def test_cpu_only_configuration_is_accepted_with_vcpus():
    app = App.from_dict(_file(0, 2))
    c = app.functions[0].configs[0]
    assert c.cpu_only and c.gpu_share == 0
    assert c.cost(app.prices) == pytest.approx(2 * 1e-5 * 5 / 1000)


@pytest.mark.parametrize(
    ("share", "vcpus", "says"),
    [
        (0, 0, "gpu_share 0 (CPU-only) with vcpus 0 holds no resource"),
        (-0.1, 1, "gpu_share: must be in [0, 1]"),
        (1.5, 1, "gpu_share: must be in [0, 1]"),
    ],
)
def test_bad_resources_are_named_with_the_fix(share, vcpus, says):
    with pytest.raises(InvalidInput, match=r"configs\[0\]") as exc:
        App.from_dict(_file(share, vcpus))
    assert says in str(exc.value)


def test_python_built_app_is_held_to_the_same_rule():
    f = Function("f", (Config(1, 0.0, 0.0, 5.0),))
    with pytest.raises(InvalidInput, match="vcpus > 0"):
        App("a", 10.0, (f,), ())


def test_cpu_latency_model():
    fam = {"setup_ms": 2.0, "cpu_ms": 1.0, "cpu_exp": 0.5, "gpu_ms": 3.0, "gpu_exp": 0.7}
    want = 2.0 + 4 * (1.0 / 4**0.5 + 3.0 * CPU_MODEL_SLOWDOWN / 4**CPU_MODEL_EXP)
    assert latency_ms(fam, 4, 4, 0.0) == pytest.approx(want, rel=1e-12)
    assert latency_ms(fam, 4, 4, 0.5) == pytest.approx(2.0 + 4 * (0.5 + 3.0 / 0.5**0.7))


def test_generated_cpu_configs_and_unchanged_defaults():
    app = generate(3, 20, 1, cpu_configs=7)
    for f in app.functions:
        cpu = [c for c in f.configs if c.cpu_only]
        assert len(cpu) == 7 and len(f.configs) == 27
        assert all(c.batch in CPU_GRID_BATCH and c.vcpus in CPU_GRID_VCPUS for c in cpu)
    assert generate(3, 20, 1, cpu_configs=0) == generate(3, 20, 1)
    assert not any(c.cpu_only for f in generate(3, 20, 1).functions for c in f.configs)


def test_mig_grid_and_dag_layers():
    mig = set(profile_data()["share_grids"]["mig"]["shares"])
    app = generate(5, 40, 2, shape="dag", shares="mig", cpu_configs=3, layers=[3])
    assert {c.gpu_share for f in app.functions for c in f.configs} <= mig | {0.0}
    preds = app.preds()
    assert preds[4] == [1, 2, 3] and all(preds[i] == [0] for i in (1, 2, 3))
    with pytest.raises(InvalidInput, match="layers"):
        generate(5, 10, 2, shape="dag", layers=[2])
    with pytest.raises(InvalidInput, match="'mig' share grid"):
        generate(3, 500, 2, shares="mig")


def test_load_counts_gpu_configurations_only():
    both = {
        "slo_ms": 100,
        "functions": [
            {
                "id": "f",
                "configs": [
                    {"batch": 1, "vcpus": 1, "gpu_share": 0.5, "latency_ms": 10.0},
                    {"batch": 1, "vcpus": 8, "gpu_share": 0, "latency_ms": 1.0},
                ],
            }
        ],
    }
    m = simulate([App.from_dict(both)], "esg", SimConfig(load=0.2, requests=20, invokers=1))
    assert m["rate_per_s"] == pytest.approx(0.2 * 1000.0 / (0.5 * 10.0))
    cpu_only = App.from_dict(_file(0, 2))
    with pytest.raises(InvalidInput, match="--load: the applications have no GPU configuration"):
        simulate([cpu_only], "esg", SimConfig(load=0.2, requests=20))
