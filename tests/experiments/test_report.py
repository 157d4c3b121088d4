"""`schedlab report`: rows read from the results folder, missing and stale marked, --check."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.report.collect import collect
from schedlab.experiments.report.render import write_report
from schedlab.theory.catalogue import catalogues
from tests.experiments import report_fixtures
from tests.experiments.report_fixtures import LOGREG, SVM_NO_NAIVE


def results_folder(tmp_path, version: str | None = None):
    """A results folder with a slaq-prediction table (logreg, and svm-poly-mnist with no naive
    number) and its manifest (nothing else)."""
    return report_fixtures.results_folder(tmp_path, rows=[LOGREG, SVM_NO_NAIVE], version=version)


def rows_by_id(data):
    return {r.claim_id: r for r in data.rows}


def test_rows_read_from_the_results_folder_and_missing_ones_marked(tmp_path):
    res = results_folder(tmp_path)
    data = collect(res, "small", {"slaq": catalogues()["slaq"]})
    rows = rows_by_id(data)
    fit = rows["prediction-logreg-fit"]
    assert (fit.verdict, fit.freshness, fit.cpu_s) == ("reproduced", "fresh", 2.0)
    assert rows["prediction-svm-poly-mnist-fit"].verdict == "refuted"  # 9.46 vs 3.55: 2.7x
    empty = rows["prediction-svm-poly-mnist-naive"]
    assert (empty.verdict, empty.freshness) == ("missing", "missing")  # an empty value
    absent = rows["quality-up-to-73"]
    assert absent.verdict == "missing" and "no study slaq-quality in this run" in absent.reason
    assert rows["greedy-concave"].verdict == "missing"  # no verdict file


def test_a_row_of_size_full_only_says_why_and_how_at_small(tmp_path):
    data = collect(results_folder(tmp_path), "small", {"slaq": catalogues()["slaq"]})
    gbt = rows_by_id(data)["dat-gbt-fit"]
    assert gbt.verdict == "missing"
    assert gbt.reason.startswith("computed at size full only: the authors' weighted fit on gbt")
    assert "CPU-s" in gbt.reason
    assert gbt.command == "schedlab figure slaq-prediction --size full"


def test_report_files_and_check(tmp_path):
    res = results_folder(tmp_path)
    out = tmp_path / "report"
    paths = write_report(collect(res, "small"), out)
    assert [p.name for p in paths] == ["index.html", "report.md", "report.json"]
    data = json.loads((out / "report.json").read_text())
    assert {"subject", "claim_id", "kind", "verdict"} <= set(data["rows"][0])
    html = (out / "index.html").read_text()
    assert (
        "data:image/png;base64," in html
        and "<script" not in html
        and "http" not in html.split("<body>")[1].split("citation")[0]
    )
    res_cli = CliRunner().invoke(cli, ["report", "--check", str(out), "--json"])
    assert res_cli.exit_code == 0, res_cli.output
    assert json.loads(res_cli.output)["stale"] == []
    rows = data["rows"]
    for r in rows:
        if r["study"] == "slaq-prediction":
            r["code_version"] = "0000000000000000"
    (out / "report.json").write_text(json.dumps(data))
    stale = json.loads(CliRunner().invoke(cli, ["report", "--check", str(out), "--json"]).output)
    assert {s["study"] for s in stale["stale"]} == {"slaq-prediction"}


def test_a_result_of_other_code_is_stale(tmp_path):
    res = results_folder(tmp_path, version="0123456789abcdef")
    row = rows_by_id(collect(res, "small", {"slaq": catalogues()["slaq"]}))["prediction-logreg-fit"]
    assert (row.verdict, row.freshness) == ("reproduced", "stale")


def test_report_of_no_folder_is_a_clear_error(tmp_path):
    res = CliRunner().invoke(cli, ["report", "--results", str(tmp_path / "none")])
    assert res.exit_code == 2 and "run `schedlab reproduce` first" in res.output


@pytest.mark.browser
def test_report_page_in_headless_chromium(tmp_path):
    """Every image decodes and the console stays silent (Debian's Chromium, Playwright)."""
    from schedlab.experiments.report.browser import check_page, find_browser

    if find_browser() is None:
        pytest.skip("no Chromium here: apt-get install -y chromium-headless-shell")
    pytest.importorskip("playwright", reason="Playwright is not installed (pip install .[dev])")
    res = results_folder(tmp_path)
    write_report(collect(res, "small"), tmp_path / "report")
    shot = tmp_path / "report" / "screenshot.png"
    page = check_page(tmp_path / "report" / "index.html", shot)
    drawn = [s for s in catalogues() if f'alt="forest plot of {s}:' in html_of(tmp_path)]
    assert drawn == ["slaq"]  # the only paper with a row to draw (the others say so in words)
    assert page.images >= len(drawn)
    assert page.broken == [] and page.console_errors == []
    assert shot.stat().st_size > 10_000


def test_heuristic_section_takes_the_gap_tagged_studies(tmp_path):
    """sojourn-heuristics (tagged gap, no "gap" in its name) is in the section; an untagged
    study's table (slaq-quality) is not."""
    res = results_folder(tmp_path)
    for study, subject in (("sojourn-heuristics", "sojourn"), ("slaq-quality", "slaq")):
        table = res / subject / f"{study}.md"
        table.parent.mkdir(exist_ok=True)
        table.write_text(f"| method | gap |\n|---|---|\n| {study}-row | 0.1 |\n")
        manifest = json.loads((res / "manifests" / "slaq-prediction.json").read_text())
        manifest.update(study=study, subject=subject, files=[str(table)])
        (res / "manifests" / f"{study}.json").write_text(json.dumps(manifest))
    out = tmp_path / "report"
    write_report(collect(res, "small"), out)
    md = (out / "report.md").read_text()
    assert "sojourn-heuristics-row" in md
    assert "slaq-quality-row" not in md


def test_a_result_of_another_size_is_missing_not_borrowed(tmp_path):
    """The folder's slaq-prediction table is the small run's: a full-size report reads no number
    from it."""
    res = results_folder(tmp_path)
    rows = rows_by_id(collect(res, "full", {"slaq": catalogues()["slaq"]}))
    fit = rows["prediction-logreg-fit"]
    assert fit.verdict == "missing" and fit.ours == "-"
    assert "size-small run of slaq-prediction" in fit.reason


def test_figures_of_another_size_are_left_out(tmp_path):
    res = results_folder(tmp_path)
    for study, size in (("slaq-quality", "small"), ("slaq-gap", "full")):
        png = res / "slaq" / f"{study}.png"
        _tiny_png(png)
        manifest = json.loads((res / "manifests" / "slaq-prediction.json").read_text())
        manifest.update(study=study, size=size, files=[str(png)])
        (res / "manifests" / f"{study}.json").write_text(json.dumps(manifest))
    write_report(collect(res, "small"), tmp_path / "report")
    names = {p.name for p in (tmp_path / "report" / "figures").iterdir()}
    assert "slaq-quality--slaq-quality.png" in names
    assert "slaq-gap--slaq-gap.png" not in names


def _tiny_png(path):
    from PIL import Image

    Image.new("RGB", (8, 8), "white").save(path)


def html_of(tmp_path) -> str:
    return (tmp_path / "report" / "index.html").read_text()


NO_FOREST = "No forest plot: no claim has both a stated number and a decided number of ours"


def test_a_paper_with_no_row_to_draw_says_so_in_words_not_a_picture(tmp_path):
    """slaq has a decided row against a stated number: its forest plot is drawn. No row of the
    other papers has a result here: each says why in the page's text, with no image (and a
    forest picture an earlier report left in the folder is removed)."""
    out = tmp_path / "report"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "forest-sojourn.png").write_bytes(b"an earlier report's picture")
    write_report(collect(results_folder(tmp_path), "small"), out)
    html, md = html_of(tmp_path), (out / "report.md").read_text()
    others = sorted(set(catalogues()) - {"slaq"})
    assert others
    for s in catalogues():
        section = html.split(f'<h2 id="{s}">')[1].split("<h2 ")[0]
        md_section = md.split(f"\n## {s}\n")[1].split("\n## ")[0]
        drawn = s == "slaq"
        assert ('<img src="data:image/png;base64,' in section) is drawn, s
        assert (NO_FOREST in section, NO_FOREST in md_section) == (not drawn, not drawn), s
        assert (f"](figures/forest-{s}.png)" in md_section) is drawn, s
        assert (out / "figures" / f"forest-{s}.png").is_file() is drawn, s
