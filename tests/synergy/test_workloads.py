"""Workloads and trace loaders: documented distributions (seeded, loose), exact class split,
shipped traces, and clear errors for bad files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from schedlab.experiments.synergy.catalog import default_catalog
from schedlab.experiments.synergy.metrics import resolve_window
from schedlab.experiments.synergy.traces import builtin_trace, load_philly, load_synergy_trace
from schedlab.experiments.synergy.workloads import (
    ClassAssigner,
    expected_work_s,
    multi_gpu,
    philly_derived,
)
from schedlab.solvers.errors import InvalidInput

N = 20_000


@pytest.fixture(scope="module")
def single() -> list:
    return philly_derived(6.0, seed=11).take(N)


def test_poisson_arrivals_at_the_given_rate(single: list) -> None:
    gaps = np.diff([0.0] + [j.arrival_s for j in single])
    assert gaps.min() > 0
    assert gaps.mean() == pytest.approx(3600 / 6.0, rel=0.03)
    # Exponential: coefficient of variation 1, P(gap > mean) = e^-1.
    assert gaps.std() / gaps.mean() == pytest.approx(1.0, rel=0.05)
    assert (gaps > 600).mean() == pytest.approx(np.exp(-1), abs=0.015)


def test_durations_follow_the_two_log_uniform_classes(single: list) -> None:
    x = np.log10(np.array([j.work_s for j in single]) / 60.0)
    assert x.min() >= 1.5 and x.max() <= 4.0
    long = x > 3.0
    assert long.mean() == pytest.approx(0.2, abs=0.01)
    # Within each class the exponent is uniform: quartiles at a quarter of the range.
    for part, (lo, hi) in ((x[~long], (1.5, 3.0)), (x[long], (3.0, 4.0))):
        q = np.quantile(part, [0.25, 0.5, 0.75])
        np.testing.assert_allclose(q, lo + (hi - lo) * np.array([0.25, 0.5, 0.75]), atol=0.03)
    mean = np.mean([j.work_s for j in single])
    assert mean == pytest.approx(expected_work_s(), rel=0.06)
    assert expected_work_s() == pytest.approx(60361.75, rel=1e-6)  # closed form, by hand


def test_single_gpu_and_class_split_exact(single: list) -> None:
    assert {j.gpus for j in single} == {1}
    cat = default_catalog()
    counts = Counter(cat.tasks[j.model] for j in single)
    # Deterministic assignment: every prefix is within one job of the 20/70/10 target.
    assert abs(counts["image"] - 0.2 * N) <= 1
    assert abs(counts["language"] - 0.7 * N) <= 1
    assert abs(counts["speech"] - 0.1 * N) <= 1
    # Round-robin within a class, in profile order; the first job is an image job.
    image = [j.model for j in single if cat.tasks[j.model] == "image"][:10]
    assert image == cat.models_of("image") * 2
    assert single[0].model == "alexnet"


def test_class_assigner_follows_the_largest_deficit() -> None:
    a = ClassAssigner(default_catalog(), (0.2, 0.7, 0.1))
    seq = [default_catalog().tasks[a.next()] for _ in range(10)]
    # After 1 image: language deficit .7 wins; after [1,1,0]: .2 vs .1 -> language; then speech.
    assert seq[:4] == ["image", "language", "language", "speech"]
    assert Counter(seq) == Counter({"language": 7, "image": 2, "speech": 1})


def test_multi_gpu_demand_probabilities_and_shared_stream() -> None:
    jobs = multi_gpu(6.0, seed=11).take(N)
    c = Counter(j.gpus for j in jobs)
    for g, p in zip((1, 2, 4, 8), (0.70, 0.10, 0.15, 0.05), strict=True):
        assert c[g] / N == pytest.approx(p, abs=0.012)
    # Same seed: the same arrivals and durations as the single-GPU stream.
    one = philly_derived(6.0, seed=11).take(50)
    assert [j.arrival_s for j in one] == [j.arrival_s for j in jobs[:50]]
    assert [j.work_s for j in one] == [j.work_s for j in jobs[:50]]


def test_streams_are_seeded_and_bounded() -> None:
    a = philly_derived(3.0, seed=1).take(1500)
    assert a == philly_derived(3.0, seed=1).take(1500)
    assert a != philly_derived(3.0, seed=2).take(1500)
    assert len(philly_derived(3.0, seed=1, max_jobs=7).take(100)) == 7
    assert [j.job_id for j in a[:5]] == [0, 1, 2, 3, 4]


def test_windows() -> None:
    assert resolve_window(None, None, open_stream=True)[0] == (4000, 5000)
    assert resolve_window(None, 1000, open_stream=True)[0] == (400, 800)
    assert resolve_window(None, 100, open_stream=False)[0] == (0, 100)
    w, note = resolve_window((4000, 5000), 4500, open_stream=True)
    assert w == (4000, 4500) and "requested" in note


def test_shipped_traces_and_work_conversion() -> None:
    cat = default_catalog()
    static = builtin_trace("static-100job")
    dynamic = builtin_trace("dynamic-100job")
    assert static.static and not dynamic.static
    sj, dj = static.take(200), dynamic.take(200)
    assert len(sj) == len(dj) == 100
    assert {j.arrival_s for j in sj} == {0.0}
    # First dynamic row: 0,alexnet,8,23349,1 -> work = 23349 iterations x 0.6 s.
    assert dj[0].arrival_s == 8.0 and dj[0].model == "alexnet"
    assert dj[0].work_s == pytest.approx(23349 * cat.iter_time_s("alexnet"), rel=1e-12)
    assert dj[0].iterations() == pytest.approx(23349, rel=1e-12)
    assert [j.arrival_s for j in dj] == sorted(j.arrival_s for j in dj)


def test_philly_sample_loads_sorted_with_exclusions() -> None:
    wl = load_philly(max_gpus=128)
    jobs = wl.take(5000)
    assert len(jobs) == 2000 and wl.excluded == 0
    arr = [j.arrival_s for j in jobs]
    assert arr[0] == 0.0 and arr == sorted(arr)
    small = load_philly(max_gpus=1, max_jobs=100)
    assert small.excluded > 0 and len(small.take(500)) == 100
    assert {j.gpus for j in small.take(500)} == {1}


def _write(tmp_path: Path, text: str, name: str = "t.csv") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("0,notamodel,0,100,1", "field model_name"),
        ("0,res18,-5,100,1", "field arrival_s"),
        ("0,res18,0,zero,1", "field num_iterations"),
        ("0,res18,0,100,1.5", "field gpu_demand"),
        ("0,res18,0,100", "expected 5 fields"),
    ],
)
def test_bad_synergy_trace_names_file_row_and_field(tmp_path: Path, line: str, field: str) -> None:
    p = _write(tmp_path, "0,res18,0,100,1\n" + line + "\n")
    with pytest.raises(InvalidInput) as exc:
        load_synergy_trace(p)
    msg = str(exc.value)
    assert str(p) in msg and "row 2" in msg and field in msg


def test_bad_trace_reports_every_row(tmp_path: Path) -> None:
    p = _write(tmp_path, "0,x,0,1,1\n1,res18,0,-1,1\n")
    with pytest.raises(InvalidInput) as exc:
        load_synergy_trace(p)
    assert len(exc.value.problems) == 2


def test_missing_and_empty_trace_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="file not found"):
        load_synergy_trace(tmp_path / "nope.csv")
    with pytest.raises(InvalidInput, match="no jobs"):
        load_synergy_trace(_write(tmp_path, "\n"))


def test_bad_philly_rows(tmp_path: Path) -> None:
    head = "timestamp,duration,num_gpus,gpu_time,cluster\n"
    ok = "2017-10-01 00:00:00,100,1,100,a\n"
    p = _write(tmp_path, head + ok + "2017-13-01 00:00:00,0,x,0,a\n")
    with pytest.raises(InvalidInput) as exc:
        load_philly(p, max_gpus=128)
    msg = str(exc.value)
    for part in ("row 3", "field 'timestamp'", "field 'duration'", "field 'num_gpus'", str(p)):
        assert part in msg
    with pytest.raises(InvalidInput, match="missing column"):
        load_philly(_write(tmp_path, "time,duration\n1,2\n", "h.csv"), max_gpus=128)
