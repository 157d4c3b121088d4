"""Student-t quantiles against printed tables, intervals, and the policy key tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.experiments.sojourn.metrics import mean_ci
from schedlab.experiments.sojourn.policies import get_policy, policy_names
from schedlab.experiments.sojourn.workload_model import Workload
from schedlab.experiments.stats import t_quantile
from schedlab.solvers.errors import InvalidInput


@pytest.mark.parametrize(
    ("df", "q975"), [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452)]
)
def test_t_quantiles_match_tables(df, q975):
    assert math.isclose(t_quantile(0.975, df), q975, abs_tol=1e-4)
    assert math.isclose(t_quantile(0.025, df), -q975, abs_tol=1e-4)


def test_t_quantile_tends_to_normal():
    assert math.isclose(t_quantile(0.975, 100_000), 1.95996, abs_tol=1e-4)


def test_mean_ci():
    m, ci = mean_ci([1.0, 2.0, 3.0])
    half = 4.3027 * 1.0 / math.sqrt(3)
    assert m == 2.0 and math.isclose(ci[0], 2 - half, rel_tol=1e-4)
    assert mean_ci([5.0]) == (5.0, None)
    m, ci = mean_ci([float("nan"), 1.0, 1.0])
    assert m == 1.0 and ci == [1.0, 1.0]


def test_policy_keys():
    # job 0: sizes 2/10 (.5/.5); job 1: size 3 surely; job 2: sizes 1/4 with pi = 0
    dists = [([2.0, 10.0], [0.5, 0.5]), ([3.0], [1.0]), ([1.0, 4.0], [1.0, 0.0])]
    w = Workload.from_lists([0.0, 1.0, 2.0], [1, 1, 1], dists)
    lv = np.array([1, 0, 0])
    k = {name: get_policy(name).keys(w, lv) for name in policy_names()}
    assert k["fcfs"][:, 0].tolist() == [0.0, 1.0, 2.0]
    assert k["sept"][:, 0].tolist() == [6.0, 3.0, 1.0]
    np.testing.assert_allclose(k["smith"][:, 0], [-0.5 / 6, -1 / 3, 0.0])
    np.testing.assert_allclose(k["gamma"][0, :2], [-0.5 / 6, -0.5 / 4])
    np.testing.assert_allclose(k["serpt"][0, :2], [6.0, 8.0])
    np.testing.assert_allclose(k["gittins"][0, :2], [-max(0.5 / 2, 1 / 6), -1 / 8])
    # oracle: successful jobs by realized remaining size, cancelled ones after all of them
    o = k["oracle"]
    assert o[1, 0] < o[0, 0] < o[2, 0] and o[0, 1] == 8.0
    assert not any(get_policy(n).uses_outcomes for n in policy_names() if n != "oracle")
    with pytest.raises(InvalidInput, match="unknown"):
        get_policy("lifo")
