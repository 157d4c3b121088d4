"""Synergy-OPT's array-built phase models and its rounding loops against the column-by-column
and job-by-job forms they replace: the same model reaches HiGHS, the same placement comes out."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from schedlab.solvers.kit.linear import LinearModel, empty_model
from schedlab.solvers.synergy import Cluster, RoundAllocator, generate_snapshot
from schedlab.solvers.synergy.configs import candidate_configs
from schedlab.solvers.synergy.heuristic_opt import (
    INT_TOL,
    _cut,
    _phase1_model,
    _phase2_model,
    _type_columns,
    phase1,
    proportional_set,
)
from schedlab.solvers.synergy.placement import PlacementState

HIGHS_FIELDS = ("col_cost_", "col_lower_", "col_upper_", "row_lower_", "row_upper_")


def phase1_by_columns(ra, tkeys, sizes, weighted):
    """Phase 1's MILP as a LinearModel, one `add_col` per (type, configuration)."""
    cl = ra.cluster
    model = empty_model(
        [float(n) for n in sizes] + [0.0, 0.0],
        [float(n) for n in sizes]
        + [cl.servers * cl.cpus_per_server, cl.servers * cl.mem_gb_per_server],
        maximize=True,
    )
    cpu_row, mem_row = len(tkeys), len(tkeys) + 1
    for ti, (k, g) in enumerate(tkeys):
        for c, m, t in candidate_configs(ra.profiles, cl, k, floor=True):
            vals = [1.0, g * c, g * m]
            model.add_col(g * t if weighted else t, 0.0, float(sizes[ti]),
                          [ti, cpu_row, mem_row], vals)  # fmt: skip
    return model


def phase2_by_columns(cl, keys, classes):
    """Phase 2's LP as a LinearModel, one `add_col` per (class, server)."""
    n, S = len(keys), cl.servers
    demand = [float(q[2] * len(classes[q])) for q in keys]
    row_hi = list(demand)
    for _ in range(S):
        row_hi += [float(cl.gpus_per_server), cl.cpus_per_server, cl.mem_gb_per_server]
    model = empty_model(demand + [0.0] * (3 * S), row_hi)
    for r, (c, m, _g) in enumerate(keys):
        ub = float(min(demand[r], cl.gpus_per_server))
        for s in range(S):
            base = n + 3 * s
            model.add_col(0.0, 0.0, ub, [r, base, base + 1, base + 2], [1.0, 1.0, c, m])
    return model


def assert_same_highs_model(got, want: LinearModel, integer: bool) -> None:
    a, b = got.to_highs(integer=integer), want.to_highs(integer=integer)
    assert (a.num_col_, a.num_row_, a.sense_, a.offset_) == (
        b.num_col_, b.num_row_, b.sense_, b.offset_,
    )  # fmt: skip
    for name in HIGHS_FIELDS:
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), name
    for name in ("start_", "index_", "value_", "format_"):
        assert getattr(a.a_matrix_, name) == getattr(b.a_matrix_, name), name
    assert list(a.integrality_) == list(b.integrality_)


def snapshots():
    for seed, (servers, jobs, mix) in enumerate(
        [
            (1, 6, "single"),
            (2, 30, "multi"),
            (4, 60, "multi"),
            (16, 128, "single"),
            (16, 200, "multi"),
            (3, 20, "multi"),
        ]  # fmt: skip
    ):
        yield generate_snapshot(servers, jobs, seed, gpu_mix=mix, task_mix=(0.5, 0.3, 0.2))


@pytest.mark.parametrize("weighted", [True, False])
def test_phase1_model_is_the_column_by_column_model(weighted):
    for snap in snapshots():
        ra = RoundAllocator(snap.cluster, snap.profiles)
        gpus = [int(g) for g in snap.gpu_demands()]
        models = [int(k) for k in snap.model_indices()]
        types: dict[tuple[int, int], int] = {}
        for j in proportional_set(ra, gpus):
            types[(models[j], gpus[j])] = types.get((models[j], gpus[j]), 0) + 1
        tkeys = sorted(types)
        sizes = [types[t] for t in tkeys]
        cols = [_type_columns(ra, k, g, weighted) for k, g in tkeys]
        want = phase1_by_columns(ra, tkeys, sizes, weighted)
        assert_same_highs_model(_phase1_model(ra, cols, sizes), want, integer=True)


def test_phase2_model_is_the_column_by_column_model():
    for snap in snapshots():
        ra = RoundAllocator(snap.cluster, snap.profiles)
        gpus = [int(g) for g in snap.gpu_demands()]
        models = [int(k) for k in snap.model_indices()]
        chosen, _ = phase1(ra, models, gpus, proportional_set(ra, gpus))
        classes: dict[tuple[float, float, int], list[int]] = {}
        for j in sorted(chosen):
            classes.setdefault((chosen[j][0], chosen[j][1], gpus[j]), []).append(j)
        keys = sorted(classes)
        want = phase2_by_columns(snap.cluster, keys, classes)
        assert_same_highs_model(_phase2_model(snap.cluster, keys, classes), want, integer=False)


def cut_job_by_job(g, x, todo):
    """Phase 2's cut as first written: a first-fit search per job, then the remainder."""
    S = len(x)
    avail = [int(math.floor(v + INT_TOL)) for v in x]
    placement, rest = {}, []
    for j in todo:
        s = next((s for s in range(S) if avail[s] >= g), -1)
        if s < 0:
            rest.append(j)
            continue
        avail[s] -= g
        placement[j] = [(s, g)]
    for j in rest:
        if sum(avail) < g:
            break
        need, parts = g, []
        for s in range(S):
            k = min(avail[s], need)
            if k > 0:
                parts.append((s, k))
                avail[s] -= k
                need -= k
                if need == 0:
                    break
        placement[j] = parts
    return placement


def test_cut_places_as_the_first_fit_search_per_job():
    rng = random.Random(5)
    for _ in range(400):
        S, g = rng.randint(1, 6), rng.choice([1, 2, 3, 4, 8])
        x = [rng.choice([0.0, 1.0, 2.0, 2.9999999, 3.5, 7.0, 8.0, 1e-9]) for _ in range(S)]
        todo = sorted(rng.sample(range(50), rng.randint(0, 12)))
        got: dict[int, list[tuple[int, int]]] = {}
        _cut(g, list(np.floor(np.array(x) + INT_TOL).astype(np.int64).tolist()), todo, got)
        assert got == cut_job_by_job(g, x, todo)


def commit_job_by_job(st, jobs, configs, parts_of, tc, tm):
    """The rounding's commit loop as first written: a fit check, then `commit`, per job."""
    left = []
    for j in jobs:
        c, m, t = configs[j]
        ip = parts_of.get(j)
        if not ip or any(
            st.free_g[s] < n or st.free_c[s] < n * c - tc or st.free_m[s] < n * m - tm
            for s, n in ip
        ):
            left.append(j)
            continue
        st.commit(j, ip, c, m, t)
    return left


def state_of(st):
    return (st.free_g, st.free_c, st.free_m, st.total_free, st.on, st.parts, st.c, st.m, st.t)


def test_commit_fitting_is_the_job_by_job_commit():
    rng = random.Random(11)
    cl = Cluster(servers=3)
    seen_left = 0
    for _ in range(300):
        n = rng.randint(1, 30)
        configs = {j: (rng.choice([1.0, 3.0, 6.0, 12.0]), rng.choice([20.0, 62.5, 250.0]),
                       rng.random()) for j in range(n)}  # fmt: skip
        parts_of = {}
        for j in range(n):
            if rng.random() < 0.9:
                servers = rng.sample(range(3), rng.randint(1, 2))
                parts_of[j] = [(s, rng.randint(1, 4)) for s in servers]
        a, b = PlacementState(n, cl), PlacementState(n, cl)
        want = commit_job_by_job(a, range(n), configs, parts_of, 1e-7, 1e-6)
        got = b.commit_fitting(range(n), configs, parts_of, 1e-7, 1e-6)
        assert got == want
        assert state_of(b) == state_of(a)
        seen_left += len(got)
    assert seen_left > 0  # some jobs did not fit: the refusal path is exercised
