"""Exact methods: MILP (HiGHS and CBC) = CP-SAT = enumeration on small snapshots; heuristics
never beat a proven optimum; solves stopped by a work limit never claim optimality."""

from __future__ import annotations

import math

import pytest

from schedlab.solvers.result import Status
from schedlab.solvers.synergy import Cluster, check_allocation, generate_snapshot, solve
from schedlab.solvers.synergy.configs import all_configs, candidate_configs
from schedlab.solvers.synergy.exact_model import build_structure, relaxation_bound

SHAPES = [
    Cluster(2, 2, 6, 125),
    Cluster(1, 4, 12, 250),
    Cluster(3, 2, 6, 125),
    Cluster(2, 4, 12, 250),
]


def tiny(i: int):
    cl = SHAPES[i % 4]
    return generate_snapshot(
        cl.servers,
        3 + i % 3,
        i,
        gpu_mix="multi" if i % 2 else "single",
        task_mix=(0.5, 0.2, 0.3),
        cluster=cl,
    )


PROP_CASES = [1, 3, 4, 5, 8, 9, 12, 16, 17, 20, 24, 28, 36, 37]
ANY_CASES = [1, 9, 12, 13, 21, 24, 25, 33, 36, 37]
CPSAT = {"max_deterministic_time": 20.0, "num_workers": 1}
REL = 1e-9


def exact_value(snap, method, **kw):
    res = solve(snap, method, options=kw)
    assert res.status is Status.OPTIMAL, (snap.name, method, res.status, res.stats)
    a = res.solution
    need = kw.get("run_set", "proportional") == "proportional"
    assert check_allocation(snap, a, require_proportional_set=need) == [], (snap.name, method)
    assert math.isclose(res.bound, res.value, rel_tol=REL)
    return res.value


@pytest.mark.parametrize("i", PROP_CASES)
def test_milp_cpsat_enum_agree_proportional_set(i):
    snap = tiny(i)
    ref = exact_value(snap, "enum")
    assert math.isclose(exact_value(snap, "milp"), ref, rel_tol=REL)
    assert math.isclose(exact_value(snap, "milp", solver="cbc"), ref, rel_tol=REL)
    assert math.isclose(exact_value(snap, "cpsat", **CPSAT), ref, rel_tol=REL)
    # without the relaxation cut and the hint, the bare models agree too
    assert math.isclose(exact_value(snap, "milp", relaxation_cut=False), ref, rel_tol=REL)
    bare = exact_value(snap, "cpsat", relaxation_cut=False, hint=False, **CPSAT)
    assert math.isclose(bare, ref, rel_tol=REL)
    # heuristics in the same feasible set never beat it
    for m in ("proportional", "tune", "opt"):
        assert solve(snap, m).value <= ref * (1 + REL), m


@pytest.mark.parametrize("i", ANY_CASES)
def test_milp_cpsat_enum_agree_any_subset(i):
    snap = tiny(i)
    ref = exact_value(snap, "enum", run_set="any")
    assert math.isclose(exact_value(snap, "milp", run_set="any"), ref, rel_tol=REL)
    assert math.isclose(exact_value(snap, "cpsat", run_set="any", **CPSAT), ref, rel_tol=REL)
    # the any-subset optimum bounds every valid allocation, GREEDY's included
    prop_opt = exact_value(snap, "milp")
    assert prop_opt <= ref * (1 + REL)
    for m in ("proportional", "greedy", "tune", "opt"):
        assert solve(snap, m).value <= ref * (1 + REL), m


def test_any_subset_can_beat_the_proportional_set():
    # case 9: one server of 4 GPUs; an m5 job with 4 GPUs blocks the 1-GPU jobs behind it
    snap = tiny(9)
    assert exact_value(snap, "enum", run_set="any") > exact_value(snap, "enum") * 1.1


def test_pareto_pruning_keeps_only_non_dominated_configs():
    snap = tiny(3)
    for k in range(len(snap.profiles.models)):
        full = all_configs(snap.profiles, snap.cluster, k)
        kept = candidate_configs(snap.profiles, snap.cluster, k)
        assert set(kept) <= set(full) and kept
        for c, m, t in full:  # every dropped configuration has a dominating one kept
            assert any(c2 <= c and m2 <= m and t2 >= t for c2, m2, t2 in kept)


MEDIUM = [
    generate_snapshot(2, 24, 0, task_mix=(0.5, 0.3, 0.2)),
    generate_snapshot(2, 12, 0, gpu_mix="multi", task_mix=(0.5, 0.3, 0.2)),
    generate_snapshot(4, 48, 3, task_mix=(0.6, 0.2, 0.2)),
]


@pytest.mark.parametrize("snap", MEDIUM, ids=lambda s: s.name)
def test_heuristics_never_beat_the_optimum_medium(snap):
    opt = exact_value(snap, "milp")
    assert math.isclose(exact_value(snap, "cpsat", **CPSAT), opt, rel_tol=REL)
    assert relaxation_bound(build_structure(snap)) >= opt * (1 - REL)
    for m in ("proportional", "tune", "opt"):
        res = solve(snap, m)
        assert res.value <= opt * (1 + REL), m
        assert res.stats["in_exact_feasible_set"], m


def _work_limited_snapshot():
    """A round neither solver finishes within the work limits below (its optimum, about 159.66
    GPU-throughput, needs HiGHS's root node; the MIP start is about 150.04)."""
    return generate_snapshot(16, 150, 0, gpu_mix="multi", task_mix=(0.5, 0.3, 0.2))


def test_work_limited_cpsat_does_not_claim_optimality():
    snap = _work_limited_snapshot()
    res = solve(
        snap,
        "cpsat",
        options={"max_deterministic_time": 0.05, "hint": False, "relaxation_cut": False},
    )
    assert res.status in (Status.FEASIBLE, Status.TIMEOUT)
    assert res.bound is not None
    if res.status is Status.FEASIBLE:
        assert res.bound >= res.value * (1 - REL)
        assert check_allocation(snap, res.solution) == []


@pytest.mark.parametrize(("hint", "status"), [(True, Status.FEASIBLE), (False, Status.TIMEOUT)])
def test_work_limited_milp_does_not_claim_optimality(hint: bool, status: Status):
    """HiGHS stopped by the node limit (a work count, not the clock: the same stop on any
    machine) before it proves anything: the MIP start unproven, or no allocation, and a sound
    bound (the cluster-totals relaxation) either way."""
    snap = _work_limited_snapshot()
    opts = {"relaxation_cut": False, "hint": hint, "max_nodes": 0}
    res = solve(snap, "milp", options=opts)
    assert res.stats["highs_status"] == "Solution limit reached"
    assert res.status is status
    assert res.bound == pytest.approx(relaxation_bound(build_structure(snap, "proportional")))
    if hint:
        assert res.value is not None and res.bound is not None
        assert res.bound > res.value * (1 + REL)
        assert check_allocation(snap, res.solution) == []
    else:
        assert res.value is None and res.solution is None


def test_milp_work_limit_is_highs_only():
    from schedlab.solvers.errors import InvalidInput

    with pytest.raises(InvalidInput, match="max_nodes: a HiGHS work limit"):
        solve(tiny(0), "milp", options={"solver": "cbc", "max_nodes": 10})


def test_enum_refuses_large_snapshots():
    from schedlab.solvers.errors import InvalidInput

    with pytest.raises(InvalidInput, match="too large for enumeration"):
        solve(generate_snapshot(8, 20, 0), "enum")


def test_empty_snapshot_is_optimal_zero():
    snap = generate_snapshot(2, 0, 0)
    for m in ("milp", "cpsat", "enum", "opt", "tune"):
        res = solve(snap, m)
        assert res.value == 0.0


# Found by tests/core/test_exact_status.py. HAIR_BELOW: the CPU capacity 1e-10 (relative) below
# what the optimum uses, inside the validator's tolerance (enum said `infeasible`, and 0.0 for
# run set "any", where milp said 2.0; cpsat refused the non-decimal data). TINY_CAPS: capacities
# of 1e-3 (OPT, the MILP's start, returned an allocation the validator refuses: an exception).
HAIR_BELOW = {
    "cluster": {
        "servers": 1,
        "gpus_per_server": 2,
        "cpus_per_server": 2.69999999973,
        "mem_gb_per_server": 37.275990620403284,
    },
    "jobs": [{"id": "j0", "model": "m0", "gpus": 2}],
    "profiles": {
        "cpu_values_per_gpu": [1.35, 4.770612309775342],
        "mem_values_gb_per_gpu": [18.63799531020164, 20.0],
        "models": {
            "m0": {
                "ideal_cpus_per_gpu": 4.770612309775342,
                "ideal_mem_gb_per_gpu": 20.0,
                "tput": [[1.0, 1.5], [2.0, 2.5]],
            }
        },
    },
}
TINY_CAPS = {
    "cluster": {
        "servers": 2,
        "gpus_per_server": 2,
        "cpus_per_server": 0.001999998,
        "mem_gb_per_server": 0.01,
    },
    "jobs": [{"id": "j0", "model": "m1", "gpus": 2}, {"id": "j1", "model": "m1", "gpus": 1}],
    "profiles": {
        "cpu_values_per_gpu": [0.0005, 0.001],
        "mem_values_gb_per_gpu": [0.005, 0.01],
        "models": {
            "m0": {
                "ideal_cpus_per_gpu": 0.001,
                "ideal_mem_gb_per_gpu": 0.01,
                "tput": [
                    [0.9970320026006039, 2.939829935038913],
                    [0.9970320026006039, 2.939829935038913],
                ],
            },
            "m1": {
                "ideal_cpus_per_gpu": 0.001,
                "ideal_mem_gb_per_gpu": 0.01,
                "tput": [[0.001, 0.001], [2.9809722220060353, 2.9809722220060353]],
            },
        },
    },
}


@pytest.mark.parametrize("data", [HAIR_BELOW, TINY_CAPS], ids=["hair-below", "tiny-capacities"])
@pytest.mark.parametrize("run_set", ["proportional", "any"])
def test_exact_methods_agree_at_the_validators_capacity_limit(data, run_set):
    from schedlab.solvers.synergy.problem import Snapshot

    snap = Snapshot.from_dict(data)
    values = [exact_value(snap, m, run_set=run_set) for m in ("enum", "milp", "cpsat")]
    values.append(exact_value(snap, "milp", run_set=run_set, solver="cbc"))
    assert all(math.isclose(v, values[0], rel_tol=REL) for v in values), values
    for m in ("opt", "tune", "proportional"):
        assert check_allocation(snap, solve(snap, m).solution) == [], m


def test_cpsat_accepts_cpus_that_are_not_decimals():
    cl = Cluster(2, 8, 100 / 3, 500.0)  # 33.33... CPUs per server (was InvalidInput)
    snap = generate_snapshot(2, 12, 3, cluster=cl)
    assert math.isclose(exact_value(snap, "cpsat", **CPSAT), exact_value(snap, "milp"), rel_tol=REL)
