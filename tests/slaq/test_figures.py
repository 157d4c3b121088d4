"""Figures slaq-quality and slaq-prediction at tiny size: files, table, resuming."""

from __future__ import annotations

import csv

import pytest

from schedlab.experiments.registry import figures
from schedlab.experiments.slaq import fig_prediction, fig_quality
from schedlab.theory.catalogue import catalogues


def read(path):
    return list(csv.DictReader(path.open()))


def test_quality_figure_tiny_and_resume(tmp_path, monkeypatch):
    spec = figures()["slaq-quality"]
    assert spec.meta["in_reproduce"]
    paths = spec.obj("tiny", 0, tmp_path)
    d = tmp_path / "slaq"
    for name in ("slaq-quality.csv", "slaq-quality.md", "slaq-quality.png", "slaq-quality.pdf"):
        assert d / name in paths
    rows = read(d / "slaq-quality.csv")
    assert {r["workload"] for r in rows} == {"shipped-curves", "authors", "authors/offers/curves"}
    authors = {r["family"]: r for r in rows if r["workload"] == "authors"}
    assert set(authors) == {"all", "svm", "logreg", "linreg", "mlpc"}
    assert (authors["all"]["token_model"], authors["all"]["iterations"]) == ("fluid", "driver")
    variant = next(r for r in rows if r["workload"] == "authors/offers/curves")
    assert (variant["token_model"], variant["iterations"]) == ("offers", "curves")
    assert float(authors["all"]["offered_load"]) < float(variant["offered_load"])  # shorter runs
    assert all(int(r["seeds"]) == (1 if "/" in r["workload"] else 2) for r in rows)
    assert all(r["slaq_starved_pct"] != "" for r in rows if r["family"] == "all")
    assert float(authors["all"]["paper_quality_up_to_pct"]) == 73.0
    assert float(authors["all"]["paper_delay_reduction_pct"]) == 44.0
    for r in rows:  # "up to" is a maximum over epochs; the time average cannot exceed it
        if r["quality_up_to_pct"] and r["quality_time_avg_pct"]:
            assert float(r["quality_time_avg_pct"]) <= float(r["quality_up_to_pct"]) + 1e-9
    assert "73 / 44" in (d / "slaq-quality.md").read_text()
    runs = read(d / "slaq-quality-runs.csv")
    assert len(runs) == 2 * 2 * 2 + 2  # workloads x policies x seeds, + the variant's seed
    ours = {r["family"]: r for r in rows if r["workload"] == "shipped-curves"}["all"]
    assert int(ours["slaq_fits"]) > 0 and int(ours["fair_fits"]) == 0  # fallbacks counted
    assert int(ours["slaq_fallbacks_too_few_points"]) > 0
    assert "geometric=" in ours["slaq_fallbacks_to"]

    def boom(*a, **k):
        raise AssertionError("a finished row was recomputed")

    monkeypatch.setattr(fig_quality, "run_row", boom)
    spec.obj("tiny", 0, tmp_path)  # every row is in the journal


def test_prediction_figure_tiny(tmp_path, monkeypatch):
    monkeypatch.setattr(fig_prediction, "AHEADS", (1, 10))
    monkeypatch.setattr(fig_prediction, "TIGHT_CURVES", ("logreg",))
    paths = figures()["slaq-prediction"].obj("tiny", 0, tmp_path)
    rows = {r["curve"]: r for r in read(tmp_path / "slaq" / "slaq-prediction.csv")}
    assert set(rows) == {"logreg", "svm-poly-mnist"}
    svm = rows["svm-poly-mnist"]
    assert float(svm["authors_naive_pct"]) == pytest.approx(52.54648303054411, rel=1e-12)
    assert svm["authors_family"] == "inverse-poly"
    assert float(svm["authors_dat_naive_pct"]) == pytest.approx(52.54648303054411, rel=1e-12)
    assert svm["authors_dat_source"] == fig_prediction.LATER_DAT
    assert "paper_naive_pct" not in svm  # the authors' data is not labelled as the paper's
    assert float(rows["logreg"]["authors_fit_tight_pct"]) > 0 and not svm["authors_fit_tight_pct"]
    long = read(tmp_path / "slaq" / "slaq-prediction-horizons.csv")
    assert len(long) == 2 * (5 + 3) + 1 and all(float(r["err_10_pct"]) >= 0 for r in long)
    assert any(p.suffix == ".png" for p in paths)


#: Which cell (scoring, model, decay) each column of slaq-prediction.csv that a row reads is.
_COLUMN_CELL = {
    "authors_fit_pct": ("authors", "auto", 0.8),
    "authors_naive_pct": ("authors", "naive", 0.8),
    "authors_unweighted_pct": ("authors", "auto", 1.0),
}


def test_every_prediction_row_is_computed_at_the_sizes_it_names():
    small = {(k["curve"], k["scoring"], k["model"], k["decay"]) for k in
             fig_prediction.cell_keys("small")}  # fmt: skip
    rows = [c for c in catalogues()["slaq"].claims if c.ours.study == "slaq-prediction"]
    checked = 0
    for c in rows:
        cell = _COLUMN_CELL.get(c.ours.column)
        if cell is None:
            continue
        runs = (c.ours.where["curve"], *cell) in small
        assert runs == ("small" in c.sizes), (c.id, runs, c.sizes)
        checked += 1
    assert checked >= 16
    # the naive rule (no fit) on every curve; the costly fits are left to size full
    assert ("gbt", "authors", "naive", 0.8) in small
    assert ("gbt", "authors", "auto", 0.8) not in small


def _authors_numbers(prefix):
    """{claim id: (authors_number value, its source)} of the slaq catalogue's rows `prefix`*."""
    cat = catalogues()["slaq"]
    return {
        c.id: (c.authors_number.value, c.authors_number.source)
        for c in cat.claims
        if c.id.startswith(prefix) and c.authors_number is not None
    }


def test_authors_dat_agrees_with_the_catalogue():
    """Every dat-<curve>-naive/-fit row's authors_number is the module's table entry, from the
    file and commit the module names for that curve."""
    rows = _authors_numbers("dat-")
    assert len(rows) == 2 * len(fig_prediction.AUTHORS_DAT)
    for curve, (naive, _, fit) in fig_prediction.AUTHORS_DAT.items():
        path, commit = fig_prediction.AUTHORS_DAT_SOURCE[curve].split(" ")
        for kind, mine in (("naive", naive), ("fit", fit)):
            value, source = rows[f"dat-{curve}-{kind}"]
            assert mine == pytest.approx(value, rel=1e-12), (curve, kind)
            assert f"{path} {commit}," in source, (curve, kind, source)


def test_quoted_numbers_are_the_authors_dat_rounded():
    """The prediction-* rows (4.27, 6.15, 3.55, 52.5) are the module's `.dat` entries rounded to
    three significant digits."""
    rows = _authors_numbers("prediction-")
    dat = fig_prediction.AUTHORS_DAT
    want = {
        "prediction-logreg-fit": dat["logreg"][2],
        "prediction-logreg-naive": dat["logreg"][0],
        "prediction-svm-poly-mnist-fit": dat["svm-poly-mnist"][2],
        "prediction-svm-poly-mnist-naive": dat["svm-poly-mnist"][0],
    }
    assert set(rows) == set(want)
    for key, mine in want.items():
        assert float(f"{mine:.3g}") == rows[key][0], key


def test_gap_figure_tiny_every_heuristic_against_the_optimum(tmp_path):
    from schedlab.solvers.solve import METHODS

    spec = figures()["slaq-gap"]
    assert spec.meta["in_reproduce"]
    paths = spec.obj("tiny", 0, tmp_path)
    d = tmp_path / "slaq"
    for name in ("slaq-gap.csv", "slaq-gap-snapshots.csv", "slaq-gap.md", "slaq-gap.png"):
        assert d / name in paths
    summary = read(d / "slaq-gap.csv")
    compared = {r["method"] for r in summary if r["role"] == "method"}
    assert compared == set(METHODS.names(scope="slaq", tag="heuristic"))
    for r in summary:
        assert int(r["proven"]) == int(r["instances"]) == 3  # the DP proves every snapshot
        assert float(r["mean_gap"]) >= -1e-9 and int(r["disagree"]) == 0  # milp = dp
    greedy_sum = next(r for r in summary if r["method"] == "greedy" and r["kind"] == "sum")
    assert float(greedy_sum["worst_gap"]) <= 1e-9  # greedy is optimal for concave sums
