"""The compiled round placement (`packing.pack_round`) against the job-by-job Python reference
(`heuristics.reference_round` on `Placer.place` / `Placer.serve`): identical decisions,
configurations, throughputs, placements and counters on random rounds, including rounds where
TUNE reclaims from peers and multi-GPU jobs spread over servers."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.synergy.allocators import RoundAllocator
from schedlab.solvers.synergy.heuristics import reference_round
from schedlab.solvers.synergy.problem import Cluster
from schedlab.solvers.synergy.profiles import default_profiles

CLUSTERS = [
    Cluster(3, 8, 24, 500),
    Cluster(2, 4, 48, 500),
    Cluster(4, 8, 16, 250),
    Cluster(5, 2, 6, 125),
    Cluster(16, 8, 24, 500),
]


def _rounds(seed: int, n_rounds: int):
    rng = np.random.default_rng(seed)
    n_models = len(default_profiles().models)
    for _ in range(n_rounds):
        cl = CLUSTERS[int(rng.integers(len(CLUSTERS)))]
        n = int(rng.integers(1, 3 * cl.total_gpus))
        models = rng.integers(0, n_models, n).tolist()
        top = min(cl.total_gpus, 2 * cl.gpus_per_server)
        gpus = rng.choice([1, 1, 1, 2, 3, 4, 8, top], n).clip(1, cl.total_gpus).tolist()
        yield cl, models, gpus


@pytest.mark.parametrize("name", ["proportional", "greedy", "tune"])
def test_compiled_round_equals_reference(name: str) -> None:
    seen = {"reclaimed": 0, "spread": 0}
    for cl, models, gpus in _rounds(7, 120):
        ra = RoundAllocator(cl)
        got = ra.allocate(name, models, gpus)
        want = reference_round(ra, name, models, gpus)
        assert got.run.tolist() == want.run.tolist()
        assert got.cpus_per_gpu.tolist() == want.cpus_per_gpu.tolist()
        assert got.mem_gb_per_gpu.tolist() == want.mem_gb_per_gpu.tolist()
        assert got.tput_per_gpu.tolist() == want.tput_per_gpu.tolist()
        assert got.placements() == want.placements()
        assert got.stats == want.stats
        seen["reclaimed"] += int(want.stats.get("peers_reset", 0) > 0)
        seen["spread"] += sum(len(p) > 1 for p in want.placements())
    if name == "tune":
        assert seen["reclaimed"] > 0  # the cases exercise reclaim
    assert seen["spread"] > 0  # and multi-server placements


def test_round_result_sums_match_its_placements() -> None:
    cl, models, gpus = next(_rounds(3, 1))
    rr = RoundAllocator(cl).allocate("tune", models, gpus)
    on = [j for j in range(len(gpus)) if rr.run[j]]
    assert rr.n_run == len(on) and rr.used_gpus == sum(gpus[j] for j in on)
    assert all(sum(n for _s, n in rr.placement(j)) == gpus[j] for j in on)
    assert all(rr.placement(j) == [] for j in range(len(gpus)) if not rr.run[j])
    assert rr.total_tput == sum(gpus[j] * float(rr.tput_per_gpu[j]) for j in on)


@pytest.mark.parametrize(("policy", "alloc"), [("srtf", "tune"), ("fifo", "greedy")])
def test_simulation_equals_reference_allocator(monkeypatch, policy: str, alloc: str) -> None:
    """A whole simulation (saturated, multi-GPU, every round validated) is the same with the
    compiled rounds as with the job-by-job reference allocator."""
    from schedlab.experiments.synergy.simulator import SimConfig, simulate
    from schedlab.experiments.synergy.workloads import multi_gpu

    cfg = SimConfig(policy=policy, alloc=alloc, servers=3, check=True)
    fast = simulate(multi_gpu(12.0, 5, max_jobs=150), cfg)

    def reference(self, method, options=None):
        return lambda models, gpus, deadline=None: reference_round(self, method, models, gpus)

    monkeypatch.setattr(RoundAllocator, "allocator", reference)
    ref = simulate(multi_gpu(12.0, 5, max_jobs=150), cfg)
    a, b = fast.to_dict(), ref.to_dict()
    a.pop("runtime_s"), b.pop("runtime_s")
    assert a == b
    np.testing.assert_array_equal(fast.completion_s, ref.completion_s)
    assert fast.allocator_calls > 10
