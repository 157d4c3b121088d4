"""The measured A100 MIG profiles (data/parvagpu_a100_*.csv): what the loader makes of each row,
its refusal of bad rows, and A* = brute force on apps built from them."""

from __future__ import annotations

import csv
import io
import math
from importlib import resources

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.generate import (
    MEASURED_MODELS,
    measured_app,
    measured_configs,
    parva_configs,
)
from schedlab.solvers.result import Status
from schedlab.solvers.solve import solve

HEAD = "Mig instance,Batch size,Workload Number,Throughput,Latency"


def _raw(model: str) -> list[dict[str, str]]:
    """The shipped file's rows, parsed by the csv module (independent of the loader)."""
    name = f"data/parvagpu_a100_{model}.csv"
    text = resources.files("schedlab.solvers.esg").joinpath(name).read_text()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("model", MEASURED_MODELS)
def test_every_measured_row_becomes_one_configuration(model):
    rows = [r for r in _raw(model) if r["Workload Number"] == "1" and float(r["Throughput"]) > 0]
    configs = measured_configs(model)
    assert len(configs) == len(rows) >= 30
    for r, c in zip(rows, configs, strict=True):
        assert c.batch == int(r["Batch size"])
        assert c.gpu_share == int(r["Mig instance"]) / 7
        assert abs(c.latency_ms - 1000 * float(r["Latency"])) <= 0.5 + 1e-6  # file's rounding
        assert math.isclose(c.latency_ms * float(r["Throughput"]), 1000 * c.batch, rel_tol=1e-12)
        assert c.vcpus == 0.0
    # cost per request = share x GPU price x latency / batch (vCPUs not measured)
    app = measured_app([model], 100.0)
    c0 = app.functions[0].configs[0]
    want = c0.gpu_share * app.prices.gpu_s * c0.latency_ms / 1000 / c0.batch
    assert math.isclose(app.stage_cost()[0][0], want, rel_tol=1e-12)


def test_bad_rows_are_refused_each_named():
    text = "\n".join(
        [
            HEAD,
            "1,1,1,196.762,0.005",
            "5,1,1,200,0.005",  # no MIG profile of 5 slices
            "1,x,1,200,0.005",  # batch not an integer
            "1,2,1,-3,0.005",  # negative throughput
            "1,4,1,0,0.013",  # latency without throughput
            "1,8,1,358.277,0.05",  # batch / throughput = 22.3 ms, latency 50 ms
            "1,1,1,196.762,0.005",  # the first row again
            "1,16,1,385.714",  # a field missing
        ]
    )
    with pytest.raises(InvalidInput) as err:
        parva_configs(text, "bad.csv")
    msg = str(err.value)
    assert msg.startswith("bad.csv") and len(err.value.problems) == 7, msg
    parts = ["line 3.Mig instance", "line 4.Batch size", "line 5.Throughput", "line 6:"]
    parts += ["line 7: Batch size / Throughput", "line 8: a second row", "line 9: 4 fields"]
    for part in parts:
        assert part in msg, (part, msg)


def test_bad_header_unknown_model_and_empty_file_are_refused():
    with pytest.raises(InvalidInput, match="header"):
        parva_configs("a,b,c\n1,2,3", "x.csv")
    with pytest.raises(InvalidInput, match="model: unknown 'gpt'"):
        measured_configs("gpt")
    with pytest.raises(InvalidInput, match="no measured row"):
        parva_configs(HEAD + "\n1,64,1,0,0\n1,1,2,125.968,0.008", "x.csv")
    with pytest.raises(InvalidInput, match="models"):
        measured_app([], 10.0)


@pytest.mark.parametrize(
    "models", [["mobilenetv2", "resnet50"], ["resnet50", "densenet121", "bert"]]
)
def test_astar_equals_brute_force_on_measured_pipelines(models):
    statuses = set()
    for slo in (5.0, 20.0, 30.0, 40.0, 60.0, 120.0, 400.0):
        app = measured_app(models, slo)
        ref = solve(app, "brute", options={"backend": "numpy"})
        got = solve(app, "astar")
        statuses.add(ref.status)
        assert got.status is ref.status, (models, slo, got, ref)
        if ref.status is Status.OPTIMAL:
            assert math.isclose(got.value, ref.value, rel_tol=1e-9), (models, slo)
    assert statuses == {Status.OPTIMAL, Status.INFEASIBLE}
