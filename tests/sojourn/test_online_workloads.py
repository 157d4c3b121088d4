"""Synthetic generator, Philly loader and outcome model, load scaling, exclusion."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.experiments.sojourn.workload_model import Workload
from schedlab.experiments.sojourn.workload_philly import (
    SUCCESS_PROB,
    outcome_model,
    philly_workload,
    read_trace,
    sample_path,
)
from schedlab.experiments.sojourn.workload_synthetic import random_distributions, synthetic_workload
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.problem import Instance


@pytest.fixture(scope="module")
def sample_trace():
    with sample_path() as p:
        return read_trace(p)


def test_random_distributions_are_valid_instances():
    d = random_distributions(500, np.random.default_rng(3), max_checkpoints=3)
    assert set(d.counts.tolist()) == {1, 2, 3, 4}
    sizes = [d.sizes[i, : d.counts[i]].tolist() for i in range(d.n)]
    probs = [d.probs[i, : d.counts[i]].tolist() for i in range(d.n)]
    inst = Instance.from_arrays(sizes, probs)  # validates increasing sizes, probs summing to 1
    assert np.all((inst.m >= 1) & (inst.m <= 100))
    np.testing.assert_allclose(d.mean, inst.mean, rtol=1e-12)


def test_synthetic_load_and_seeding():
    w = synthetic_workload(20_000, 0.7, 4, np.random.default_rng(1), gpu_mix="philly")
    assert abs(w.offered_load(4) - 0.7) < 0.03
    assert set(w.gpus.tolist()) <= {1, 2, 4}  # the mix is restricted to counts <= servers
    again = synthetic_workload(20_000, 0.7, 4, np.random.default_rng(1), gpu_mix="philly")
    assert np.array_equal(w.arrival_s, again.arrival_s)
    with pytest.raises(InvalidInput) as ei:
        synthetic_workload(0, -1.0, 0, np.random.default_rng(0))
    assert len(ei.value.problems) == 3


def test_sampled_outcomes_follow_the_probabilities():
    dists = [([1.0, 2.0, 3.0, 4.0], [0.1, 0.0, 0.6, 0.3])] * 40_000
    w = Workload.from_lists(np.zeros(40_000), [1] * 40_000, dists)
    lv = w.sample_levels(np.random.default_rng(0))
    freq = np.bincount(lv, minlength=4) / len(lv)
    assert freq[1] == 0.0  # a zero-probability size is never drawn
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.01)


def test_sample_is_shipped_and_readable(sample_trace):
    assert sample_trace.n == 2000
    assert np.all(np.diff(sample_trace.arrival_s) >= 0) and sample_trace.arrival_s[0] == 0
    assert len(sample_trace.cluster_names) == 10
    assert int((sample_trace.gpus > 8).sum()) == 20


def test_outcome_model_follows_its_documented_rule(sample_trace):
    tr = sample_trace
    d = outcome_model(tr.duration_s, tr.cluster)
    rows = np.arange(d.n)
    np.testing.assert_array_equal(d.success_size, tr.duration_s)
    np.testing.assert_allclose(d.success_prob, SUCCESS_PROB)
    for i in np.random.default_rng(0).choice(d.n, 60, replace=False):
        k = d.counts[i]
        cps = d.sizes[i, : k - 1]
        assert np.all(np.diff(d.sizes[i, :k]) > 0) and 1 <= k - 1 <= 3
        np.testing.assert_allclose(d.probs[i, : k - 1], (1 - SUCCESS_PROB) / (k - 1))
        hist = np.sort(tr.duration_s[(tr.cluster == tr.cluster[i])])
        below = hist[hist < tr.duration_s[i]]
        if below.size:
            want = sorted({below[int(math.floor(q * (below.size - 1)))] for q in (0.25, 0.5, 0.75)})
        else:
            want = [q * tr.duration_s[i] for q in (0.25, 0.5, 0.75)]
        np.testing.assert_allclose(cps, want)
    assert math.isclose(float(d.probs[rows, d.counts - 1].mean()), 0.624)


def test_load_scaling_and_exclusion(sample_trace):
    w = philly_workload(sample_trace, 8, load=0.8)
    assert w.excluded_jobs == 20 and w.n == 1980
    assert math.isclose(w.offered_load(8), 0.8, rel_tol=1e-12)
    head = philly_workload(sample_trace, 64, jobs=100, load=0.5)
    assert head.n == 100 and head.excluded_jobs == 0
    assert math.isclose(head.offered_load(64), 0.5, rel_tol=1e-12)
    with pytest.raises(InvalidInput, match="servers"):
        philly_workload(sample_trace, 0)


def write(tmp_path, text, name="t.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


GOOD = (
    "timestamp,duration,num_gpus,gpu_time,cluster\n"
    "2017-10-09 07:01:55,66.0,1,66.0,a\n"
    "2017-10-09 06:13:03,2951.0,2,5902.0,b\n"
)


def test_trace_rows_are_sorted_and_clusters_coded(tmp_path):
    tr = read_trace(write(tmp_path, GOOD))
    assert tr.arrival_s.tolist() == [0.0, 48 * 60 + 52.0]
    assert tr.line.tolist() == [3, 2] and tr.gpus.tolist() == [2, 1]


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("2017-13-09 07:01:55,66.0,1,66.0,a", "timestamp"),
        ("2017-10-09 07:01:55,-3,1,66.0,a", "duration"),
        ("2017-10-09 07:01:55,nan,1,66.0,a", "duration"),
        ("2017-10-09 07:01:55,66.0,1.5,66.0,a", "num_gpus"),
        ("2017-10-09 07:01:55,66.0,0,66.0,a", "num_gpus"),
        ("2017-10-09 07:01:55,66.0,1,66.0,", "cluster"),
    ],
)
def test_bad_trace_rows_name_file_row_and_field(tmp_path, row, field):
    p = write(tmp_path, GOOD + row + "\n")
    with pytest.raises(InvalidInput) as ei:
        read_trace(p)
    msg = str(ei.value)
    assert str(p) in msg and "row 4" in msg and f"'{field}'" in msg


def test_bad_trace_files(tmp_path):
    with pytest.raises(InvalidInput, match="cannot read"):
        read_trace(tmp_path / "missing.csv")
    with pytest.raises(InvalidInput, match="missing column"):
        read_trace(write(tmp_path, "timestamp,duration\n2017-10-09 07:01:55,3\n"))
    with pytest.raises(InvalidInput, match="no job rows"):
        read_trace(write(tmp_path, "timestamp,duration,num_gpus,gpu_time,cluster\n"))
    with pytest.raises(InvalidInput, match="row 2: wrong number of fields"):
        read_trace(write(tmp_path, "timestamp,duration,num_gpus,gpu_time,cluster\n1,2\n"))
    many = GOOD + "".join("x,1,1,1,a\n" for _ in range(50))
    with pytest.raises(InvalidInput) as ei:
        read_trace(write(tmp_path, many))
    assert len(ei.value.problems) == 21  # 20 problems, then a note that it stopped
