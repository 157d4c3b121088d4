"""Figures `sojourn-online` and `sojourn-online-grid` at a tiny size: files, rows, pairing,
rankings and resume from the journal."""

from __future__ import annotations

import csv
import json
import math

import pytest

import schedlab.experiments.sojourn.fig_online as fig
import schedlab.experiments.sojourn.online_study as study
from schedlab.experiments.registry import figures
from schedlab.experiments.sojourn.online_report import ranking_text, rankings
from schedlab.experiments.sweep import SweepError
from schedlab.solvers.errors import InvalidInput


def tiny(**kw) -> study.StudyConfig:
    base = dict(
        synthetic_servers=(2,),
        synthetic_loads=(0.5, 0.8),
        synthetic_jobs=150,
        synthetic_replications=2,
        philly_trace=None,
        philly_servers=(32,),
        philly_loads=(0.7,),
        philly_replications=2,
        sweep_h=(1.0,),
        sweep_loads=(0.7,),
    )
    return study.StudyConfig(**{**base, **kw})


def test_figures_are_registered_reduced_grid_in_reproduce():
    assert figures()["sojourn-online"].meta["in_reproduce"]
    assert not figures()["sojourn-online-grid"].meta["in_reproduce"]


def test_keys_cover_every_setting_once():
    cfg = tiny(philly_loads=(0.7, 0.9), sweep_h=(0.5, 2.0), sweep_loads=(0.9,))
    keys = cfg.keys()
    settings = {tuple(k[f] for f in study.SETTING_FIELDS) for k in keys}
    assert len(keys) == len(settings) * len(study.POLICIES)
    phil = {s for s in settings if s[0] == "philly"}
    # paired: uniform + 3 models at h = 2 at two loads; sweep: 3 models at h = 0.5 at 0.9
    # (h = 2 at 0.9 and the uniform end at 0.9 already counted)
    assert len(phil) == 4 * 2 + 3
    assert ("philly", "uniform", 0.0, 32, 0.9) in phil
    assert ("philly", "by-gpus", 0.5, 32, 0.9) in phil
    assert ("philly", "by-gpus", 0.5, 32, 0.7) not in phil


def test_config_refuses_unpaired_designs():
    with pytest.raises(InvalidInput, match="at least 2"):
        tiny(philly_replications=1)
    with pytest.raises(InvalidInput, match="policies"):
        tiny(policies=("gamma", "fcfs"))


def test_tiny_figure_writes_everything_and_resumes(tmp_path, monkeypatch):
    cfg = tiny()
    paths = fig.build(cfg, 3, tmp_path, "tiny")
    stem = "sojourn-online"
    assert sorted(p.name for p in paths) == sorted(
        [f"{stem}.csv", f"{stem}-paired.csv", f"{stem}-ranking.csv", f"{stem}-paired.md",
         f"{stem}.json"]
        + [f"{stem}{x}.{e}" for x in ("", "-paired", "-sensitivity") for e in ("png", "pdf")]
    )  # fmt: skip
    d = tmp_path / "sojourn"
    rows = list(csv.DictReader(open(d / f"{stem}.csv")))
    settings = len(cfg.keys()) // len(study.POLICIES)
    assert len(rows) == len(cfg.keys()) and settings == 2 + 4 + 3
    pair = list(csv.DictReader(open(d / f"{stem}-paired.csv")))
    assert len(pair) == settings * len(study.APPROACHES) * len(study.BASELINES)
    for col in ("outcome_model", "baseline", "diff", "ci_low", "ci_high", "verdict"):
        assert col in pair[0]
    assert {r["verdict"] for r in pair} <= {"better", "worse", "no difference"}
    # Sevcik's rank is 1 / Gittins: the same runs, so the same paired rows
    for r in pair:
        if r["baseline"] == "sevcik":
            twin = next(
                q for q in pair if q["baseline"] == "gittins" and q["approach"] == r["approach"]
                and all(q[f] == r[f] for f in study.SETTING_FIELDS)
            )  # fmt: skip
            assert twin["diff"] == r["diff"] and twin["diff_p99"] == r["diff_p99"]
    md = (d / f"{stem}-paired.md").read_text()
    assert "## Where the claim holds" in md and "vs sevcik" in md and "p99" in md
    ranks = list(csv.DictReader(open(d / f"{stem}-ranking.csv")))
    assert {r["changed_vs_uniform"] for r in ranks if r["outcome_model"] == "by-cluster"} <= {
        "yes",
        "no",
    }
    meta = json.loads((d / f"{stem}.json").read_text())
    assert "outcome model" in meta["caption"] and meta["config"]["sweep_h"] == [1.0]

    # rerun: every row comes from the journal, nothing is simulated again
    def boom(*a, **k):
        raise AssertionError("recomputed a finished row")

    monkeypatch.setattr(study, "evaluate_policy", boom)
    for name in ("load_curves", "paired_heatmaps", "sensitivity"):
        monkeypatch.setattr(fig.online_plots, name, lambda *a, **k: [])
    fig.build(cfg, 3, tmp_path, "tiny")
    # a different configuration does not reuse the journal
    with pytest.raises(SweepError, match="recomputed"):
        fig.build(tiny(synthetic_loads=(0.6,)), 3, tmp_path, "tiny")


def test_full_size_needs_the_trace(monkeypatch, tmp_path):
    monkeypatch.delenv("SCHEDLAB_PHILLY_TRACE", raising=False)
    monkeypatch.setattr(fig, "SHARED_TRACE", tmp_path / "absent.csv")
    for config in (fig.config_for, fig.grid_config_for):
        with pytest.raises(InvalidInput, match="SCHEDLAB_PHILLY_TRACE"):
            config("full")


def test_each_size_is_its_own_configuration_and_an_unknown_one_is_refused(monkeypatch, tmp_path):
    monkeypatch.delenv("SCHEDLAB_PHILLY_TRACE", raising=False)
    monkeypatch.setattr(fig, "SHARED_TRACE", tmp_path / "absent.csv")
    for config in (fig.config_for, fig.grid_config_for):
        assert config("tiny") == fig.TINY  # not the full grid, and no trace needed
        assert config("small").philly_trace is None
        with pytest.raises(InvalidInput, match="size: choose one of tiny, small, full"):
            config("medium")


def _row(policy, means, *, om="uniform", h=0.0, load=0.9, p99=None):
    return {"workload": "philly", "outcome_model": om, "heterogeneity": h, "servers": 8,
            "load": load, "policy": policy, "replications": len(means),
            "mean_sojourn_successful": sum(means) / len(means), "rep_mean_successful": means,
            "rep_p90_successful": means, "rep_p99_successful": p99 or means,
            "rep_mean_all": means}  # fmt: skip


def test_paired_differences_by_hand():
    rows = [_row(p, [10.0, 30.0]) for p in study.APPROACHES]
    rows += [_row(b, [20.0, 40.0]) for b in study.BASELINES]
    pair = study.paired(rows)
    assert len(pair) == len(study.APPROACHES) * len(study.BASELINES)
    p = pair[0]
    assert p["approach"] == "gamma" and p["baseline"] == "fcfs"
    # per replication 10/20 - 1 = -.5 and 30/40 - 1 = -.25: mean -.375, s / sqrt(2) = .125,
    # t(.975, 1) = 12.7062
    assert math.isclose(p["diff"], -0.375)
    half = 12.706204736 * 0.125
    assert math.isclose(p["ci_high"], -0.375 + half, rel_tol=1e-6)
    assert p["verdict"] == "no difference"  # two replications: a wide interval
    assert study.verdict_of([-0.3, -0.1]) == "better"
    assert study.verdict_of([0.1, 0.3]) == "worse"
    assert study.verdict_of([-0.1, 0.1]) == "no difference"


def test_rankings_ties_and_swaps_by_hand():
    assert ranking_text({"a": 2.0, "b": 1.0, "c": 2.0}) == "b < a = c"
    uni = [_row("gamma", [10.0, 11.0, 12.0]), _row("sept", [20.0, 21.0, 22.0])]
    het = [
        _row("gamma", [30.0, 31.0, 32.0], om="by-gpus", h=2.0),
        _row("sept", [20.0, 21.0, 22.0], om="by-gpus", h=2.0),
    ]
    ranks = {(r["outcome_model"], r["metric"]): r for r in rankings(uni + het)}
    assert ranks[("uniform", "mean")]["ranking"] == "gamma < sept"
    assert ranks[("uniform", "mean")]["changed_vs_uniform"] == ""
    r = ranks[("by-gpus", "mean")]
    assert r["ranking"] == "sept < gamma" and r["best"] == "sept"
    assert r["changed_vs_uniform"] == "yes" and r["swaps"] == "sept<gamma"
    assert r["significant_swaps"] == "sept<gamma"
