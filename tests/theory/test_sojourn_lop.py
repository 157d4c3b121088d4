"""The block-decomposition lemma holds numerically, and wrong variants of it are caught."""

from __future__ import annotations

import pytest

from schedlab.solvers.sojourn.generate import generate
from schedlab.theory.sojourn.lop import (
    check_block_rule,
    check_stable_sort_step,
    check_swap_identity,
    cyclic_instances,
)
from tests.conftest import random_instances

CYCLIC = [(8, 757, 4), (8, 1863, 2), (8, 12633, 4), (8, 14360, 2), (8, 14858, 4), (8, 21629, 4)]


@pytest.fixture(scope="module")
def cyclic():
    return [generate(n, s, max_checkpoints=mc) for n, s, mc in CYCLIC]


def test_block_rule_holds_for_b_and_a(cyclic):
    mixed = cyclic + random_instances(40, max_n=7, seed0=900)
    ev = check_block_rule(mixed, "B", "blocks")
    assert ev.holds and ev.worst_rel_excess <= 1e-9
    assert ev.cyclic_instances == len(cyclic)  # the evidence includes non-trivial blocks
    assert ev.details["largest_block"] >= 3
    assert check_block_rule(mixed[:20], "A", "blocks").holds


@pytest.mark.parametrize("rule", ["score-order", "pairwise"])
def test_wrong_rules_are_detected(cyclic, rule):
    ev = check_block_rule(cyclic, "B", rule)
    assert not ev.holds
    assert ev.worst_rel_excess > 1e-5 and ev.counterexample is not None


def test_wrong_rules_look_fine_without_cycles():
    # on acyclic preferences all three rules agree, so the cyclic instances are what matters
    acyclic = random_instances(12, max_n=6, seed0=50)
    for rule in ("blocks", "score-order", "pairwise"):
        ev = check_block_rule(acyclic, "B", rule)
        assert ev.cyclic_instances == 0 and ev.holds


def test_stable_sort_step_and_swap_identity(cyclic):
    assert check_stable_sort_step(cyclic, samples=50, seed=0).holds
    assert check_swap_identity(cyclic + random_instances(12, max_n=6)) < 1e-12


def test_cyclic_instance_search_is_reproducible():
    assert cyclic_instances(1, start=1860) == [(8, 1863, 2)]
