"""The one Philly reader: the union of accepted formats, validation, the shared sample."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.sojourn.workload_philly import read_trace
from schedlab.experiments.synergy.traces import load_philly
from schedlab.experiments.traces.philly import (
    MAX_REPORTED,
    ONE_CLUSTER,
    parse_timestamp,
    read_philly,
    read_sample,
    sample_path,
)
from schedlab.solvers.errors import InvalidInput

HEAD = "timestamp,duration,num_gpus,gpu_time,cluster\n"


def write(tmp_path, text, name="t.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_shipped_sample_is_the_one_both_subjects_read():
    tr = read_sample()
    assert tr.n == 2000 and len(tr.cluster_names) == 10
    assert np.all(np.diff(tr.arrival_s) >= 0) and tr.arrival_s[0] == 0
    assert "shipped sample" in tr.source
    with sample_path() as p:
        assert (p.parent / "ATTRIBUTION.md").read_text().count("CC-BY-4.0") >= 1
        sojourn = read_trace(p)
    np.testing.assert_array_equal(sojourn.duration_s, tr.duration_s)
    jobs = load_philly(max_gpus=10_000).take(5000)
    assert [j.work_s for j in jobs] == tr.duration_s.tolist()
    assert [j.gpus for j in jobs] == tr.gpus.tolist()
    assert [j.arrival_s for j in jobs] == tr.arrival_s.tolist()


@pytest.mark.parametrize(
    "text",
    [
        "2017-10-09 07:00:00",
        "2017-10-09T07:00:00",
        "2017-10-09T09:00:00+02:00",
        "2017-10-09 07:00:00.000",
        "1507532400",
        "1507532400.0",
    ],
)
def test_timestamp_formats_name_the_same_instant(text):
    assert parse_timestamp(text) == 1507532400.0  # a time without an offset is UTC


@pytest.mark.parametrize("text", ["", "yesterday", "2017-13-09 07:00:00", "nan", "inf"])
def test_bad_timestamps(text):
    assert parse_timestamp(text) is None


def test_formats_of_both_former_readers_are_accepted(tmp_path):
    # columns in another order, spaces in the header, no cluster column, gpus as "2.0",
    # plain seconds, a quoted field, blank lines
    text = ' num_gpus , timestamp , duration , note\n2.0,100,30.5,"a, b"\n\n1,40,10,x\n   \n'
    tr = read_philly(write(tmp_path, text))
    assert tr.arrival_s.tolist() == [0.0, 60.0]
    assert tr.duration_s.tolist() == [10.0, 30.5]
    assert tr.gpus.tolist() == [1, 2] and tr.gpus.dtype == np.int64
    assert tr.line.tolist() == [4, 2]
    assert tr.cluster_names == (ONE_CLUSTER,) and tr.cluster.tolist() == [0, 0]


def test_ties_keep_file_order_and_clusters_are_coded(tmp_path):
    text = HEAD + "2017-10-09 07:00:00,5,1,5,b\n2017-10-09 07:00:00,6,1,6,a\n"
    text += "2017-10-09 06:59:00,7,1,7,b\n"
    tr = read_philly(write(tmp_path, text))
    assert tr.duration_s.tolist() == [7.0, 5.0, 6.0]
    assert tr.cluster_names == ("a", "b") and tr.cluster.tolist() == [1, 1, 0]


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("2017-13-09 07:01:55,66.0,1,66.0,a", "timestamp"),
        ("2017-10-09 07:01:55,0,1,66.0,a", "duration"),
        ("2017-10-09 07:01:55,inf,1,66.0,a", "duration"),
        ("2017-10-09 07:01:55,66.0,two,66.0,a", "num_gpus"),
        ("2017-10-09 07:01:55,66.0,-1,66.0,a", "num_gpus"),
        ("2017-10-09 07:01:55,66.0,1,66.0, ", "cluster"),
    ],
)
def test_each_bad_field_names_file_row_and_field(tmp_path, row, field):
    p = write(tmp_path, HEAD + "2017-10-09 07:01:55,66.0,1,66.0,a\n" + row + "\n")
    with pytest.raises(InvalidInput) as ei:
        read_philly(p)
    assert ei.value.problems[0].startswith(f"row 3, field '{field}'")
    assert str(p) in str(ei.value)


def test_every_problem_is_reported_at_once(tmp_path):
    p = write(tmp_path, HEAD + "x,0,y,1,\n" + "2017-10-09 07:01:55,1,1,1\n")
    with pytest.raises(InvalidInput) as ei:
        read_philly(p)
    fields = [m.split(":")[0] for m in ei.value.problems]
    assert fields == [
        "row 2, field 'timestamp'",
        "row 2, field 'duration'",
        "row 2, field 'num_gpus'",
        "row 2, field 'cluster'",
        "row 3",
    ]
    assert "wrong number of fields (expected 5, found 4)" in ei.value.problems[-1]
    many = HEAD + "".join("x,1,1,1,a\n" for _ in range(50))
    with pytest.raises(InvalidInput) as ei:
        read_philly(write(tmp_path, many))
    assert len(ei.value.problems) == MAX_REPORTED + 1
    assert ei.value.problems[-1] == f"stopped after {MAX_REPORTED} problems"


def test_bad_files(tmp_path):
    with pytest.raises(InvalidInput, match="file not found") as ei:
        read_philly(tmp_path / "missing.csv")
    assert "missing.csv" in str(ei.value)
    with pytest.raises(InvalidInput, match=r"missing column\(s\) \['num_gpus'\]"):
        read_philly(write(tmp_path, "timestamp,duration\n2017-10-09 07:01:55,3\n"))
    with pytest.raises(InvalidInput, match="missing column"):
        read_philly(write(tmp_path, ""))
    with pytest.raises(InvalidInput, match="no job rows"):
        read_philly(write(tmp_path, HEAD + "\n"))
    with pytest.raises(InvalidInput, match="not UTF-8 text"):
        (tmp_path / "bin.csv").write_bytes(HEAD.encode() + b"\xff\xfe,1,1,1,a\n")
        read_philly(tmp_path / "bin.csv")
