"""The one size ladder: a study's table read at a size, an unknown size refused by name."""

from __future__ import annotations

import pytest

from schedlab.experiments import ladder
from schedlab.experiments.gap.spec import LADDER_SIZES
from schedlab.solvers.errors import InvalidInput


def test_the_ladder_is_declared_once() -> None:
    assert ladder.SIZES == ("tiny", "small", "full")
    assert LADDER_SIZES is ladder.SIZES


def test_pick_reads_the_table_and_refuses_what_it_does_not_define() -> None:
    table = {"tiny": 1, "small": 2, "full": 3}
    assert [ladder.pick(s, table) for s in ladder.SIZES] == [1, 2, 3]
    with pytest.raises(InvalidInput, match=r"size: choose one of small, full \(got 'tiny'\)"):
        ladder.pick("tiny", {"small": 2, "full": 3})


def test_check_refuses_a_size_off_the_ladder() -> None:
    assert ladder.check("small") == "small"
    with pytest.raises(InvalidInput, match="size: choose one of tiny, small, full"):
        ladder.check("long")


@pytest.mark.parametrize("family", ["layered", "default", "queues", "astar", "split"])
def test_every_esg_gap_family_refuses_a_size_off_the_ladder(family: str) -> None:
    from schedlab.experiments.esg import gapspec

    build = getattr(gapspec, f"{family}_ladder")
    assert build("tiny") and build("full")
    with pytest.raises(InvalidInput, match="size: choose one of"):
        build("medium")
