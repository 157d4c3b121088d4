"""The online simulator against closed forms (objective A, Pollaczek-Khinchine), hand-worked
schedules, conservation laws and determinism."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

from schedlab.experiments.sojourn.metrics import mean_ci
from schedlab.experiments.sojourn.policies import get_policy, policy_names
from schedlab.experiments.sojourn.runner import quanta_and_keys, replicate, run_once
from schedlab.experiments.sojourn.simulator import simulate
from schedlab.experiments.sojourn.workload_model import Workload
from schedlab.experiments.sojourn.workload_synthetic import poisson_arrivals, synthetic_workload
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.heuristics import order_by_index, smith_key
from schedlab.solvers.sojourn.indices import pad
from schedlab.solvers.sojourn.objectives import Objective, evaluate

REL = 1e-9


def time_zero_workload(inst) -> Workload:
    dists = [(j.sizes, j.probs) for j in inst.jobs]
    return Workload.from_lists([0.0] * inst.n, [1] * inst.n, dists, name=inst.name or "inst")


def successful_total(run) -> float:
    return float(run.departure_s[run.success].sum())  # arrivals are 0: C_i = departure


@pytest.mark.parametrize(("policy", "order_of"), [("fcfs", "file"), ("smith", "smith")])
def test_one_server_time_zero_matches_objective_a(policy, order_of):
    inst = generate(6, 3, max_checkpoints=3)
    order = list(range(inst.n)) if order_of == "file" else order_by_index(smith_key(inst))
    exact = evaluate(inst, order, Objective("A"))
    runs, _ = replicate(time_zero_workload(inst), get_policy(policy), 1, seed=5, replications=3000)
    mean, ci = mean_ci([successful_total(r) for r in runs])
    assert ci is not None and ci[0] <= exact <= ci[1], (mean, ci, exact)
    # the check has power: the reversed order's value lies outside the interval
    other = evaluate(inst, order[::-1], Objective("A"))
    assert not ci[0] <= other <= ci[1]


def test_gamma_never_preempts_when_all_jobs_start_together_on_one_server():
    # gamma only grows with age, so with no arrivals it runs Smith's order without switching
    inst = generate(7, 11, max_checkpoints=3)
    w = time_zero_workload(inst)
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    g = run_once(w, get_policy("gamma"), 1, rng_a)
    s = run_once(w, get_policy("smith"), 1, rng_b)
    assert g.preemptions == 0
    np.testing.assert_allclose(g.departure_s, s.departure_s, rtol=1e-12)


# M/G/1 with the size law below: E[S] = 5.9, E[S^2] = 52.1
SIZES, PROBS = [1.0, 3.0, 10.0], [0.3, 0.2, 0.5]
ES = float(np.dot(SIZES, PROBS))
ES2 = float(np.dot(np.square(SIZES), PROBS))


def mg1_source(rho: float, n: int):
    def make(rng):
        arr = poisson_arrivals(n, rho / ES, rng)
        return Workload.from_lists(arr, [1] * n, [(SIZES, PROBS)] * n, name="mg1")

    return make


def test_mg1_fcfs_matches_pollaczek_khinchine():
    rho = 0.7
    wq = (rho / ES) * ES2 / (2 * (1 - rho))  # P-K mean wait
    runs, _ = replicate(mg1_source(rho, 12_000), get_policy("fcfs"), 1, seed=2, replications=10)
    mean_all, ci_all = mean_ci([float(r.sojourn_s.mean()) for r in runs])
    assert ci_all[0] <= wq + ES <= ci_all[1], (mean_all, ci_all, wq + ES)
    # under FCFS the wait does not depend on the job's own size: successful jobs wait wq + m
    mean_s, ci_s = mean_ci([float(r.sojourn_s[r.success].mean()) for r in runs])
    assert ci_s[0] <= wq + SIZES[-1] <= ci_s[1], (mean_s, ci_s)
    # power: the M/M/1 formula with the same mean is far outside
    assert not ci_all[0] <= ES / (1 - rho) <= ci_all[1]
    assert all(abs(r.utilization - rho) < 0.05 for r in runs)


def lindley_last_departure(arrival, sizes) -> float:
    free = -math.inf
    for a, x in zip(arrival, sizes, strict=True):
        free = max(free, a) + x
    return free


@pytest.mark.parametrize("policy", policy_names())
def test_work_conservation_and_no_lost_jobs(policy):
    """Every job departs exactly once after receiving exactly its realized size; the busy
    integral equals the realized work; dispatch is greedy (no waiting job fits afterwards)."""
    rng = np.random.default_rng(42)
    w = synthetic_workload(600, 0.95, 8, rng, gpu_mix="philly")
    assert len(set(w.gpus.tolist())) > 2  # really GPU-count aware
    log: list = []
    run = run_once(w, get_policy(policy), 8, rng, log=log)
    work = float(np.dot(run.gpus, run.realized_size))
    assert math.isclose(run.busy_server_s, work, rel_tol=REL)
    departs = defaultdict(int)
    served = np.zeros(w.n)
    started_at: dict[int, float] = {}
    waiting: set[int] = set()
    busy = 0
    for t, what, j in log:
        if what == "arrive":
            waiting.add(j)
        elif what == "start":
            assert j in waiting and j not in started_at
            waiting.discard(j)
            started_at[j] = t
            busy += int(w.gpus[j])
            assert busy <= 8
        elif what in ("pause", "depart"):
            served[j] += t - started_at.pop(j)
            busy -= int(w.gpus[j])
            if what == "pause":
                waiting.add(j)
            else:
                departs[j] += 1
        elif what == "dispatched":
            free = j
            assert free == 8 - busy
            assert all(int(w.gpus[k]) > free for k in waiting), "a waiting job fit"
    assert dict(departs) == {j: 1 for j in range(w.n)}
    np.testing.assert_allclose(served, run.realized_size, rtol=1e-9)
    assert np.all(run.sojourn_s >= run.realized_size * (1 - 1e-12))
    assert not waiting and not started_at


def test_single_server_busy_periods_do_not_depend_on_the_policy():
    rng = np.random.default_rng(9)
    w = synthetic_workload(400, 0.9, 1, rng)
    levels = w.sample_levels(rng)
    x = w.dists.sizes[np.arange(w.n), levels]
    expected = lindley_last_departure(w.arrival_s.tolist(), x.tolist())
    for name in policy_names():
        run = run_once(w, get_policy(name), 1, rng, levels=levels)
        assert math.isclose(run.departure_s.max(), expected, rel_tol=1e-12), name


def test_deterministic_for_a_seed_and_different_across_seeds():
    def go(seed):
        src = lambda rng: synthetic_workload(300, 0.8, 3, rng)  # noqa: E731
        runs, _ = replicate(src, get_policy("gittins"), 3, seed=seed, replications=3)
        return np.concatenate([r.departure_s for r in runs]), sum(r.preemptions for r in runs)

    a, pa = go(4)
    b, pb = go(4)
    c, _ = go(5)
    assert np.array_equal(a, b) and pa == pb
    assert not np.array_equal(a, c)


def hand_workload():
    # A: 4 GPUs, size 10; B: 2 GPUs, 5; C: 4 GPUs, 1; D: 1 GPU, 2 -- arriving at 0, 1, 2, 3
    dists = [([10.0], [1.0]), ([5.0], [1.0]), ([1.0], [1.0]), ([2.0], [1.0])]
    return Workload.from_lists([0.0, 1.0, 2.0, 3.0], [4, 2, 4, 1], dists)


def test_backfilling_by_hand():
    # FCFS on 4 servers: at t=10 B starts (2 free left), C (4) does not fit, D backfills;
    # D leaves at 12, B at 15, then C runs 15..16
    w = hand_workload()
    run = run_once(w, get_policy("fcfs"), 4, np.random.default_rng(0))
    assert run.departure_s.tolist() == [10.0, 15.0, 16.0, 12.0]
    assert run.preemptions == 0
    # priority across GPU counts: on 2 servers, at t=1 the earlier 1-GPU job B goes first and
    # the 2-GPU job C waits for it (under SEPT, C's smaller E[X] puts it first instead)
    dists = [([1.0], [1.0]), ([4.0], [1.0]), ([1.0], [1.0])]
    w2 = Workload.from_lists([0.0, 0.1, 0.2], [2, 1, 2], dists)
    fcfs = run_once(w2, get_policy("fcfs"), 2, np.random.default_rng(0))
    assert fcfs.departure_s.tolist() == [1.0, 5.0, 6.0]
    sept = run_once(w2, get_policy("sept"), 2, np.random.default_rng(0))
    assert sept.departure_s.tolist() == [1.0, 6.0, 2.0]


def test_checkpoint_preemption_by_hand():
    # A (arrives 0): sizes 2/10, probs .5/.5: gamma(0) = .5/6, gamma(2) = .5/4 = .125;
    # B (arrives 1): size 3 surely, gamma = 1/3. gamma preempts A at its checkpoint t=2.
    dists = [([2.0, 10.0], [0.5, 0.5]), ([3.0], [1.0])]
    w = Workload.from_lists([0.0, 1.0], [1, 1], dists)
    rng = np.random.default_rng(0)
    succeed = np.array([1, 0])
    g = run_once(w, get_policy("gamma"), 1, rng, levels=succeed)
    assert g.departure_s.tolist() == [13.0, 5.0] and g.preemptions == 1
    f = run_once(w, get_policy("fcfs"), 1, rng, levels=succeed)
    assert f.departure_s.tolist() == [10.0, 13.0] and f.preemptions == 0
    # A cancelled at its checkpoint: it leaves at 2, no preemption
    c = run_once(w, get_policy("gamma"), 1, rng, levels=np.array([0, 0]))
    assert c.departure_s.tolist() == [2.0, 5.0] and c.preemptions == 0
    assert c.success.tolist() == [False, True]


def test_simulate_rejects_bad_input():
    w = hand_workload()
    lv = np.zeros(w.n, dtype=np.int64)
    q, k = quanta_and_keys(w, get_policy("fcfs"), lv)
    with pytest.raises(InvalidInput, match="servers"):
        simulate(w.arrival_s, w.gpus, q, k, 2)  # a job needs 4
    with pytest.raises(InvalidInput, match="servers"):
        simulate(w.arrival_s, w.gpus, q, k, 0)
    with pytest.raises(InvalidInput, match="differ in length"):
        simulate(w.arrival_s, w.gpus, q[:-1], k, 4)
    with pytest.raises(InvalidInput, match="sorted"):
        Workload(np.array([1.0, 0.0]), np.array([1, 1]), pad([([1.0], [1.0])] * 2))
    with pytest.raises(InvalidInput, match="sum to 1"):
        Workload(np.array([0.0]), np.array([1]), pad([([1.0, 2.0], [0.5, 0.6])]))
