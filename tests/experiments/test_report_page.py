"""The report page: per row one number of ours (the decided point, with its interval and where),
the band, the verdict with its reading, the reference with its source tag; every swept point
folded away and drawn as a strip; the summary counts like for like and "our reading" apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedlab.experiments.report.collect import ClaimRow, ReportData
from schedlab.experiments.report.environment import environment
from schedlab.experiments.report.pictures import strip_svg
from schedlab.experiments.report.render import source_tag, write_report
from schedlab.theory.catalogue import catalogues

SWEPT = "quality-up-to-73"  # a catalogue row whose paper number's source is the abstract
POINTS = [
    {"value": 11.111, "low": 10.5, "high": 11.9, "at": "x=1", "seeds": 5},
    {"value": 22.222, "low": 21.5, "high": 23.1, "at": "x=2", "seeds": 5},
    {"value": 33.333, "low": 32.5, "high": 34.4, "at": "x=3", "seeds": 5},
]


def row(claim_id: str, **change: object) -> ClaimRow:
    base = dict(subject="slaq", claim_id=claim_id, kind="paper", locator="abstract",
                statement="a statement", metric="m", primary="p", alternatives=[], quote="",
                paper_number="up to 73 %", authors_number="-", reference="paper", ours="-",
                ours_points=[], like_for_like={"workload": "yes", "metric": "unknown",
                                               "baseline": "no", "scale": "unknown"},
                deviations=[], withdrawn_theorem=False, verify="", verdict="missing",
                reason="no result row", evidence="", study="slaq-quality", command="cmd",
                freshness="missing", code_version="", current_version="", wall_s=None,
                cpu_s=None, peak_mb=None,
                paper_setup={"workload": "w", "baseline": "b", "scale": "s"})  # fmt: skip
    base.update(change)
    return ClaimRow(**base)  # type: ignore[arg-type]


def swept_row() -> ClaimRow:
    return row(
        SWEPT,
        ours="11.11 ...; 22.22 ...; 33.33 ...",
        ours_points=POINTS,
        verdict="reproduced",
        reading="our reading",
        reason="22.22 [21.5, 23.1] at x=2 lies inside the paper band [20, 25]",
        decided=POINTS[1],
        band=[20.0, 25.0],
        reference_band=[22.5, 20.0, 25.0],
        paper_point={"at": "x=2", "why": "the paper's setting"},
        source="abstract",
        freshness="fresh",
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page")
    rows = [swept_row(), row("delay-up-to-44")]
    data = ReportData(
        out, "small", {"slaq": catalogues()["slaq"]}, rows, {}, {}, environment({}), {}
    )
    write_report(data, out / "report")
    return out / "report"


def html_row(page: Path, claim_id: str) -> str:
    html = (page / "index.html").read_text()
    rows = [r for r in html.split("<tr>") if f"<b>{claim_id}</b>" in r]
    assert len(rows) == 1, claim_id
    return rows[0].split("</tr>")[0]


def test_the_row_shows_the_decided_point_and_not_the_others(page):
    tr = html_row(page, SWEPT)
    ours = re.search(r'<td class="ours">(.*?)</td>', tr, re.S)
    assert ours is not None
    assert "22.22 [21.5, 23.1]" in ours.group(1) and "at x=2" in ours.group(1)
    assert "11.11" not in ours.group(1) and "33.33" not in ours.group(1)
    unfolded = re.sub(r"<details>.*?</details>|<svg.*?</svg>", "", tr, flags=re.S)
    assert "11.11" not in unfolded and "33.33" not in unfolded  # only folded away or drawn
    assert "all 3 swept points" in tr and "11.11" in tr  # the folded list keeps them
    assert "[20, 25]" in unfolded  # the band
    assert "reproduced under our reading" in unfolded
    assert "73 %" in unfolded and "(abstract)" in unfolded  # the reference and its source
    md = [ln for ln in (page / "report.md").read_text().splitlines() if ln.startswith(f"| {SWEPT}")]
    assert len(md) == 1 and "22.22 [21.5, 23.1] % at x=2" in md[0]
    assert "11.11" not in md[0] and "33.33" not in md[0]


def test_a_swept_row_gets_a_strip_with_the_decided_point_ringed(page):
    tr = html_row(page, SWEPT)
    assert tr.count('<svg class="strip"') == 1
    assert tr.count('class="decided"') == 1
    assert "3 points of ours" in tr
    assert "<svg" not in html_row(page, "delay-up-to-44")  # nothing to draw: no strip


def test_strip_draws_every_other_point_and_the_band():
    svg = strip_svg(swept_row())
    assert svg is not None
    others = re.findall(r'<path d="([^"]*)" stroke="#8c8c8c"', svg)
    assert len(others) == 1 and others[0].count("M") == 2  # two intervals besides the decided
    assert svg.count("<rect") == 2  # the frame and the band
    assert strip_svg(row("x")) is None


def test_summary_counts_readings_apart_and_spells_out_the_checklist(page):
    html = (page / "index.html").read_text()
    table = html.split('<table class="summary">')[1].split("</table>")[0]
    heads = re.findall(r"<th[^>]*>(.*?)</th>", table)
    assert len(heads) == len(set(heads))  # no two columns headed alike
    cells = re.findall(r"<td[^>]*>(.*?)</td>", table.split("</tr>")[1])
    by_head = dict(zip(heads, cells, strict=True))
    assert by_head["reproduced (our reading)"] == "1" and by_head["reproduced"] == "0"
    assert by_head["missing"] == "1"
    md = (page / "report.md").read_text()
    assert "workload yes, metric ?, baseline no, scale ?" in md
    assert "<li>baseline no</li>" in html


def test_a_source_is_tagged_by_its_kind():
    assert source_tag("authors' data: andrewor14/spark (branch andrew-as) plotting/x.dat") == (
        "authors' data"
    )
    assert source_tag("summary (secondary): ../shared/papers.md, tag [summary]") == (
        "summary (secondary)"
    )
    assert source_tag("abstract") == "abstract"
