"""Claim 13 (Synergy-TUNE never below GPU-proportional): holds for TUNE, fails when broken."""

from __future__ import annotations

import json

from schedlab.solvers.solve import solve
from schedlab.solvers.synergy.allocation import Allocation
from schedlab.solvers.synergy.generate import generate_snapshot
from schedlab.theory.claims import claims, run_claim
from schedlab.theory.synergy.claim_tune import proportional_floor, shortfalls

SMALL = {"servers": [1, 2], "per_servers": 3, "cpsat_every": 3}


def greedy_allocation(snap):
    """Synergy-GREEDY: skips a job that does not fit at its ideal demand."""
    return solve(snap, "greedy").solution


def drop_last_allocation(snap):
    """TUNE's allocation with the last running job left out (a broken allocator)."""
    alloc = solve(snap, "tune").solution
    return Allocation(alloc.jobs[:-1])


def test_proportional_floor_is_the_policy_order_prefix_that_fits():
    snap = generate_snapshot(1, 12, 5, gpu_mix="multi")
    floor, free = proportional_floor(snap), 8
    for job in snap.jobs:
        assert (job.id in floor) == (job.gpus <= free)
        free -= job.gpus if job.id in floor else 0
    assert shortfalls(snap, Allocation(())) == dict.fromkeys(floor, 1.0)


def test_claim13_holds_for_tune_and_beats_no_exact_optimum(tmp_path):
    v = run_claim(claims()["13"], "small", 0, outdir=tmp_path, **SMALL)
    assert v.verdict == "holds" and v.worst["value"] == 0.0
    ev = v.evidence
    assert ev["exact_proven"] == v.instances == 6 and ev["above_exact_optimum"] == 0
    assert ev["cpsat_checked"] >= 2 and ev["milp_cpsat_disagreements"] == 0
    assert 0.0 <= ev["gap_to_exact_optimum"]["max"] < 1.0


def test_claim13_fails_for_greedy_and_saves_the_snapshot(tmp_path):
    v = run_claim(claims()["13"], "small", 0, outdir=tmp_path, allocate_fn=greedy_allocation,
                  **SMALL)  # fmt: skip
    assert v.verdict == "fails" and v.worst["value"] == 1.0  # a job GREEDY skipped
    saved = json.loads((tmp_path / "theory" / "claim13-worst.json").read_text())
    assert len(saved["jobs"]) > 0


def test_claim13_fails_for_an_allocator_that_drops_a_job(tmp_path):
    v = run_claim(claims()["13"], "small", 0, outdir=tmp_path, allocate_fn=drop_last_allocation,
                  **SMALL)  # fmt: skip
    assert v.verdict == "fails" and v.evidence["snapshots_with_violations"] == v.instances
