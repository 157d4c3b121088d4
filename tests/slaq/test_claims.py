"""Claims 9 and 10: each check holds or fails as it should, and can be made to fail."""

from __future__ import annotations

import numpy as np

from schedlab.solvers.slaq.generate import random_snapshot
from schedlab.theory.claims import claims, run_claim
from schedlab.theory.slaq.claim_greedy import family_concavity, greedy_gap


def round_robin(qs, base, free):
    """A broken 'greedy': free cores one each in turn, ignoring the gains."""
    extra = [0] * len(qs)
    for i in range(free):
        extra[i % len(qs)] += 1
    return extra


def bumpy_tables(rng, n, free):
    """Non-concave tables: random increasing gains in random order."""
    return [np.concatenate([[0.0], np.cumsum(rng.exponential(1.0, free))]) for _ in range(n)]


SMALL9 = {"tables": 60, "snapshots": 3}
SMALL10 = {"snapshots": 25, "local_steps": 5}


def test_symbolic_facts():
    s = family_concavity()
    assert s["exponential_convex"] and s["inverse_poly_numerator_matches"]
    assert s["inverse_poly_can_be_concave"]


def test_claim9_holds(tmp_path):
    v = run_claim(claims()["9"], "small", 0, outdir=tmp_path, **SMALL9)
    assert v.verdict == "holds" and v.worst["value"] <= 1e-9


def test_claim9_fails_with_broken_greedy(tmp_path):
    v = run_claim(claims()["9"], "small", 0, outdir=tmp_path, greedy_fn=round_robin, **SMALL9)
    assert v.verdict == "fails" and v.worst["value"] > 0.01


def test_claim9_fails_on_non_concave_tables(tmp_path):
    v = run_claim(claims()["9"], "small", 0, outdir=tmp_path, tables_fn=bumpy_tables, **SMALL9)
    assert v.verdict == "fails" and v.evidence["instances_with_non_concave_q"] > 0


def test_claim10_finds_a_loss_and_saves_it(tmp_path):
    v = run_claim(claims()["10"], "small", 1, outdir=tmp_path, **SMALL10)
    assert v.verdict == "fails" and v.worst["value"] > 1e-6
    assert (tmp_path / "theory" / "claim10-worst.json").exists()


def test_claim10_holds_on_concave_inputs(tmp_path):
    def concave_only(rng, max_jobs, max_cores):
        return random_snapshot(3, 20, int(rng.integers(1 << 30)), model="exponential")

    v = run_claim(claims()["10"], "small", 0, outdir=tmp_path, snapshot_fn=concave_only, **SMALL10)
    assert v.verdict == "holds"


def test_greedy_gap_zero_for_exponential_fits():
    gap, concave = greedy_gap(random_snapshot(4, 30, 5, model="exponential"))
    assert concave and gap <= 1e-9
