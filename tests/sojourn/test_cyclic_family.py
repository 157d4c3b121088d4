"""The cyclic family: seeded, valid, and one preference component of >= 80% of the jobs."""

from __future__ import annotations

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.core import preference_blocks
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective


def largest_block(inst) -> int:
    _, W = linear_ordering_weights(inst, Objective("B"))
    return max(len(b) for b in preference_blocks(W))


@pytest.mark.parametrize("n", [10, 20, 40, 100, 200])
def test_largest_component_is_at_least_80_percent(n: int) -> None:
    for seed in range(5):
        inst = generate(n, seed, family="cyclic")
        assert largest_block(inst) >= 0.8 * n, (n, seed)


def test_default_family_is_transitive_mostly() -> None:
    # the contrast the family exists for: default instances split into (almost) single jobs
    assert max(largest_block(generate(40, s)) for s in range(5)) < 0.3 * 40


def test_seeded_and_unknown_family() -> None:
    a, b = generate(30, 7, family="cyclic"), generate(30, 7, family="cyclic")
    assert a.to_dict() == b.to_dict() and a.meta["family"] == "cyclic"
    assert generate(30, 8, family="cyclic").to_dict() != a.to_dict()
    with pytest.raises(InvalidInput, match="family"):
        generate(5, 0, family="nope")
