"""The secondary-source family (six latencies from summaries, scaled by the measured ratios)
and the sourced evaluation apps (measured chains and DAGs)."""

from __future__ import annotations

import csv
import math
from importlib import resources

import pytest

from schedlab.experiments.esg.workloads import SOURCED_APPS, app_names, build_app
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.generate import measured_app
from schedlab.solvers.esg.limits import MEASURED_MODELS
from schedlab.solvers.esg.secondary import (
    SCALE_BATCHES,
    SCALE_SLICES,
    SUMMARY_MS,
    measured_ratio,
    summary_app,
    summary_function,
)


def _csv_latency(model: str) -> dict[tuple[int, int], float]:
    """batch / throughput (ms) per (batch, slices) from the raw file, by the csv module."""
    name = f"data/parvagpu_a100_{model}.csv"
    text = resources.files("schedlab.solvers.esg").joinpath(name).read_text()
    out = {}
    for row in csv.DictReader(text.splitlines()):
        if row["Workload Number"] == "1" and float(row["Throughput"]) > 0:
            b = int(row["Batch size"])
            out[(b, int(row["Mig instance"]))] = 1000.0 * b / float(row["Throughput"])
    return out


def test_ratio_is_the_geometric_mean_of_the_measured_models():
    r = measured_ratio()
    raw = [_csv_latency(m) for m in MEASURED_MODELS]
    for b in SCALE_BATCHES:
        for s in SCALE_SLICES:
            logs = [math.log(d[(b, s)] / d[(1, 1)]) for d in raw]
            assert r[(b, s)] == pytest.approx(math.exp(sum(logs) / len(logs)), rel=1e-12)
    assert r[(1, 1)] == 1.0
    assert r[(32, 1)] > r[(32, 7)] > r[(1, 1)]  # batching costs time, slices buy it back


def test_summary_functions_keep_the_reported_minimum_configuration():
    for name, ms in SUMMARY_MS.items():
        f = summary_function(name)
        base = [c for c in f.configs if c.batch == 1 and round(c.gpu_share * 7) == 1]
        assert len(base) == 1 and base[0].latency_ms == pytest.approx(ms)
        assert base[0].vcpus == 1.0
        assert len(f.configs) == len(SCALE_BATCHES) * len(SCALE_SLICES)
        assert not any(c.cpu_only for c in f.configs)
    assert SUMMARY_MS["background_removal"] == 1047.0 and SUMMARY_MS["super_resolution"] == 86.0
    with pytest.raises(InvalidInput, match="unknown 'nope'"):
        summary_function("nope")


def test_summary_and_measured_dags():
    app = summary_app(["deblur", "depth", "segmentation"], [(0, 1), (0, 2)], slo_ms=900.0)
    assert app.kind == "dag" and app.slo_ms == 900.0
    m = measured_app(["resnet50", "bert", "mobilenetv2"], edges=[(0, 1), (0, 2)])
    assert m.kind == "dag" and [len(f.configs) for f in m.functions] == [38, 45, 41]
    with pytest.raises(InvalidInput, match="edges"):
        measured_app(["resnet50", "bert"], edges=[(0, 5)])


def test_sourced_apps_are_registered_and_fixed():
    assert set(app_names("measured")) | set(app_names("secondary")) == set(SOURCED_APPS)
    for name in SOURCED_APPS:
        a, b = build_app(name, 0, 60), build_app(name, 7, 30)
        assert a == b  # fixed profiles: seeds change only the arrivals
        assert not any(c.cpu_only for f in a.functions for c in f.configs)
