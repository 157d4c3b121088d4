"""Figure `sojourn-online` at a tiny size: files, rows, and resume from the journal."""

from __future__ import annotations

import csv
import json

import pytest

import schedlab.experiments.sojourn.fig_online as fig
from schedlab.experiments.registry import figures
from schedlab.experiments.sweep import SweepError


def tiny() -> fig.Config:
    return fig.Config(2, (0.5, 0.8), 150, 2, None, 32, (0.7,), 2)


def test_figure_is_registered_for_reproduce():
    spec = figures()["sojourn-online"]
    assert spec.meta["in_reproduce"]


def test_tiny_figure_writes_everything_and_resumes(tmp_path, monkeypatch):
    paths = fig.build(tiny(), 3, tmp_path, "tiny")
    names = sorted(p.name for p in paths)
    assert names == sorted(
        [
            "sojourn-online.csv",
            "sojourn-online-philly.csv",
            "sojourn-online-paired.csv",
            "sojourn-online.png",
            "sojourn-online.pdf",
            "sojourn-online.json",
        ]
    )
    d = tmp_path / "sojourn"
    syn = list(csv.DictReader(open(d / "sojourn-online.csv")))
    phil = list(csv.DictReader(open(d / "sojourn-online-philly.csv")))
    assert len(syn) == 2 * 7 and len(phil) == 7
    assert {r["policy"] for r in phil} == set(fig.policy_names())
    assert all(int(r["excluded_jobs"]) == 0 for r in phil)  # sample's widest job is 32 GPUs
    meta = json.loads((d / "sojourn-online.json").read_text())
    assert "outcome model" in meta["philly_caption"]
    pair = list(csv.DictReader(open(d / "sojourn-online-paired.csv")))
    assert len(pair) == 3 * 6 and all(r["policy"] != "gamma" for r in pair)

    # rerun: every row comes from the journal, nothing is simulated again
    def boom(*a, **k):
        raise AssertionError("recomputed a finished row")

    monkeypatch.setattr(fig, "evaluate_policy", boom)
    monkeypatch.setattr(fig, "plot", lambda *a, **k: [])  # plotting was checked above
    fig.build(tiny(), 3, tmp_path, "tiny")
    # a different configuration does not reuse the journal
    with pytest.raises(SweepError, match="recomputed"):  # a failing cell, reported by the sweep
        fig.build(fig.Config(2, (0.6,), 150, 2, None, 32, (0.7,), 2), 3, tmp_path, "tiny")


def test_full_size_needs_the_trace(monkeypatch, tmp_path):
    monkeypatch.delenv("SCHEDLAB_PHILLY_TRACE", raising=False)
    monkeypatch.setattr(fig, "SHARED_TRACE", tmp_path / "absent.csv")
    with pytest.raises(fig.InvalidInput, match="SCHEDLAB_PHILLY_TRACE"):
        fig.config_for("full")


def test_paired_reduction_by_hand():
    rows = [
        {"part": "synthetic", "load": 0.9, "policy": "gamma", "rep_means_successful": [10.0, 30.0]},
        {"part": "synthetic", "load": 0.9, "policy": "fcfs", "rep_means_successful": [20.0, 40.0]},
    ]
    (p,) = fig.paired(rows)
    assert p["policy"] == "fcfs" and p["replications"] == 2
    assert abs(p["gamma_reduction"] - (0.5 + 0.25) / 2) < 1e-12
    assert p["ci95_low"] < p["gamma_reduction"] < p["ci95_high"]
