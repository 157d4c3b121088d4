"""Success models for the Philly trace: calibrated mean, scores, direction, bad input, CLI."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.experiments.sojourn.success_models import (
    MEAN_SUCCESS,
    SUCCESS_MODELS,
    calibrated_probs,
    cluster_score,
    feature_score,
    success_probs,
)
from schedlab.experiments.sojourn.workloads import philly_source
from schedlab.experiments.traces.philly import read_philly, sample_path
from schedlab.solvers.errors import InvalidInput


@pytest.fixture(scope="module")
def trace():
    with sample_path() as p:
        return read_philly(p)


def _probs(trace, model, h):
    return success_probs(model, h, trace.gpus, trace.duration_s, trace.cluster, trace.cluster_names)


@pytest.mark.parametrize("model", list(SUCCESS_MODELS))
@pytest.mark.parametrize("h", [0.0, 0.5, 2.0, -2.0, 8.0])
def test_mean_is_the_helios_share_for_every_model_and_strength(trace, model, h):
    pi = _probs(trace, model, h)
    assert math.isclose(float(pi.mean()), MEAN_SUCCESS, rel_tol=1e-9)
    assert np.all((pi > 0) & (pi < 1))
    if h == 0 or model == "uniform":
        assert np.all(pi == MEAN_SUCCESS)  # exactly today's model
    else:
        assert pi.std() > 0


def test_heterogeneity_spreads_the_probabilities(trace):
    spread = [np.ptp(_probs(trace, "by-duration", h)) for h in (0.0, 0.5, 1.0, 2.0)]
    assert spread[0] == 0 and all(b > a for a, b in zip(spread, spread[1:], strict=False))


def test_scores_by_hand():
    g = np.array([1, 2, 4, 8, 16, 64])
    assert np.allclose(
        feature_score("by-gpus", g, g * 0.0, g * 0, ["x"]), [1, 0.5, 0, -0.5, -1, -1]
    )
    d = np.array([60.0, 599.0, 600.0, 3599.0, 3600.0, 21600.0, 1e6])
    z = feature_score("by-duration", d * 0 + 1, d, np.zeros(7, dtype=int), ["x"])
    assert np.allclose(z, [1, 1, 1 / 3, 1 / 3, -1 / 3, -1, -1])
    # a cluster's score depends on its id only, in [-1, 1]
    assert cluster_score("6214e9") == cluster_score("6214e9")
    assert -1 <= cluster_score("6214e9") <= 1 and cluster_score("a") != cluster_score("b")
    z = feature_score("by-cluster", np.ones(3), np.ones(3), np.array([1, 0, 1]), ["a", "b"])
    assert z[0] == cluster_score("b") and z[1] == cluster_score("a")


def test_direction_and_its_reversal(trace):
    for h, sign in ((2.0, -1), (-2.0, 1)):
        pi = _probs(trace, "by-gpus", h)
        one, wide = pi[trace.gpus == 1].mean(), pi[trace.gpus >= 8].mean()
        assert sign * (wide - one) > 0  # h > 0: wider jobs succeed less often


def test_calibration_by_hand():
    z = np.array([-1.0, 1.0])
    pi = calibrated_probs(z, 1.0, mean=0.5)  # symmetric: c = 0
    assert np.allclose(pi, [1 / (1 + math.e), math.e / (1 + math.e)])


def test_bad_input_names_the_field(trace):
    with pytest.raises(InvalidInput, match="outcome_model"):
        _probs(trace, "by-moon", 1.0)
    with pytest.raises(InvalidInput, match="heterogeneity"):
        _probs(trace, "by-gpus", 50.0)


def test_workload_carries_the_model_and_h0_equals_today(trace):
    base = philly_source(None, 64, load=0.8)
    same = philly_source(None, 64, load=0.8, success_model="by-cluster", heterogeneity=0.0)
    assert np.array_equal(base.dists.probs, same.dists.probs)
    assert np.array_equal(base.arrival_s, same.arrival_s)
    het = philly_source(None, 64, load=0.8, success_model="by-cluster", heterogeneity=2.0)
    assert het.meta["success_model"] == "by-cluster" and het.meta["heterogeneity"] == 2.0
    assert math.isclose(float(het.dists.success_prob.mean()), MEAN_SUCCESS, rel_tol=1e-9)
    # the load is rescaled with the new E[X]: still the target
    assert math.isclose(het.offered_load(64), 0.8, rel_tol=1e-9)


def test_cli_choice_and_bad_value(tmp_path):
    from click.testing import CliRunner

    from schedlab.experiments.cli import cli

    args = ["sojourn", "simulate", "--workload", "philly", "--servers", "64", "--policy",
            "smith", "--load", "0.8", "--replications", "2"]  # fmt: skip
    r = CliRunner().invoke(cli, [*args, "--outcome-model", "by-gpus", "--heterogeneity", "2",
                                  "--json"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert '"success_model": "by-gpus"' in r.output
    r = CliRunner().invoke(cli, [*args, "--outcome-model", "by-moon"])
    assert r.exit_code == 2
    r = CliRunner().invoke(cli, [*args, "--outcome-model", "by-gpus", "--heterogeneity", "99"])
    assert r.exit_code == 2 and "heterogeneity" in r.output
