"""Every registered figure, drawn at size tiny, cannot mislead at a glance: `check_figure`
finds no panel without data, no axis spanning less than its tick labels show, no one-value sweep
on a numeric axis and no caption outside the canvas or over a panel, in any figure it saves.

A figure without a tiny size gets one here (the few settings its own tests use), so each draws
in seconds; what it computes is its own, only smaller."""

from __future__ import annotations

import sys

import pytest

from schedlab.experiments.plotting import check_figure, observe_figures
from schedlab.experiments.registry import figures

#: Registered "figures" that write tables only (no drawing to check; not run here).
TABLE_ONLY = {"synergy-authors", "synergy-authors-switches", "synergy-motivation"}


def _scale_tiny(mp: pytest.MonkeyPatch) -> None:
    from schedlab.experiments.esg import fig_esg_scale as sc

    mp.setitem(sc.SIZES, "tiny", sc.ScaleConfig((3, 5), (6, 10), 6, 3, 1, 20.0))


def _prediction_tiny(mp: pytest.MonkeyPatch) -> None:
    from schedlab.experiments.slaq import fig_prediction

    mp.setattr(fig_prediction, "AHEADS", (1, 10))
    mp.setattr(fig_prediction, "TIGHT_CURVES", ("logreg",))


def _paper_tiny(mp: pytest.MonkeyPatch) -> None:
    from schedlab.experiments.synergy import fig_paper

    mp.setitem(fig_paper.SMALL, "window", [30, 60])


TINY = {
    **{
        n: _paper_tiny
        for n in (
            "synergy-fig1",
            "synergy-fig6",
            "synergy-fig7",
            "synergy-fig9",
            "synergy-fig12",
            "synergy-cpu-ratio",
        )
    },  # fmt: skip
    "esg-scale": _scale_tiny,
    "slaq-prediction": _prediction_tiny,
}


def test_the_table_only_figures_draw_nothing() -> None:
    for name in TABLE_ONLY:
        module = sys.modules[figures()[name].obj.__module__]
        assert not any(n in vars(module) for n in ("save_figure", "new_figure")), name


@pytest.mark.parametrize("name", sorted(set(figures()) - TABLE_ONLY))
def test_the_figure_at_size_tiny_cannot_mislead(name, tmp_path, monkeypatch) -> None:
    if name in TINY:
        TINY[name](monkeypatch)
    with observe_figures() as seen:
        figures()[name].obj("tiny", 0, tmp_path)
    assert seen, f"{name} saved no figure (a table-only one goes in TABLE_ONLY)"
    found = {stem.name: check_figure(fig) for fig, stem in seen}
    assert not {k: v for k, v in found.items() if v}, found
