"""Exact methods against an independent enumeration oracle, plus limits and refusals.

The oracle enumerates every joint outcome once per instance and evaluates every order on all
of them with `outcomes.realized_values` (no closed form, no pairwise weights), then takes the
minimum over orders. brute and dp are checked on all 200 instances for A, B and every TK/DK;
milp (HiGHS) and cpsat, which solve only A and B, on the first 60 of them (milp with CBC on the
first 20) in the plain model (every triangle, no blocks, so the back end really runs) and in the
default model, plus on instances whose B preference tournament is cyclic (where blocks and lazy
triangles matter). Smith's rule is checked optimal for A, TK, DK (every K) and no heuristic
below the oracle's optimum, on all 200.
"""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from numba import njit

from schedlab.solvers import validate
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn import exact_milp
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.outcomes import realized_values
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import METHODS, solve
from tests.conftest import random_instances

REL = 1e-9
INSTANCES = random_instances(200, max_n=6, max_checkpoints=4)
LOP_SUBSET = INSTANCES[:60]
# generate(n, seed, max_checkpoints=C) with a cyclic B preference tournament (found by
# theory.sojourn.lop.cyclic_instances); their preference blocks have 3 or 4 jobs.
CYCLIC = [(8, 757, 4), (8, 1863, 2), (8, 12633, 4), (8, 14360, 2), (8, 14858, 4), (8, 21629, 4)]
LOP_CONFIGS = [
    ("milp", {"solver": "highs", "triangles": "all", "decompose": False}),
    ("milp", {"solver": "cbc", "triangles": "all", "decompose": False}),
    ("cpsat", {"triangles": "all", "decompose": False}),
    ("milp", {"solver": "highs"}),
    ("milp", {"solver": "cbc"}),
    ("cpsat", {}),
    ("cpsat", {"triangles": "lazy", "decompose": False}),
]


def objectives_for(n: int) -> list[Objective]:
    return [Objective("A"), Objective("B")] + [
        Objective(t, k) for t in ("TK", "DK") for k in range(1, n + 1)
    ]


@njit(cache=True)
def _expected_per_order(X, S, P, perms):  # pragma: no cover - compiled
    """E[objective] for every order (rows) and objective (A, B, T1..Tn, D1..Dn) by summing
    P(outcome) * realized value over every (order, outcome) pair."""
    M, n = X.shape
    K = perms.shape[0]
    out = np.zeros((K, 2 + 2 * n))
    tk = np.empty(n)
    dk = np.empty(n)
    for k in range(K):
        for m in range(M):
            t, a, cnt = 0.0, 0.0, 0
            for pos in range(n):
                j = perms[k, pos]
                t += X[m, j]
                if S[m, j]:
                    a += t
                    tk[cnt] = t
                    dk[cnt] = a
                    cnt += 1
            p = P[m]
            out[k, 0] += p * a
            if cnt > 0:
                out[k, 1] += p * a / cnt
            for kk in range(n):  # K = kk + 1: the K-th success, else the makespan / all
                out[k, 2 + kk] += p * (tk[kk] if cnt > kk else t)
                out[k, 2 + n + kk] += p * (dk[kk] if cnt > kk else a)
    return out


def enumerate_outcomes(inst: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every joint outcome: realized sizes X (M, n), success flags S (M, n), probabilities P."""
    n = inst.n
    choices = np.array(
        list(itertools.product(*[range(len(j.sizes)) for j in inst.jobs])), dtype=np.int64
    ).reshape(-1, n)
    X = np.empty(choices.shape)
    S = np.empty(choices.shape, dtype=bool)
    P = np.ones(len(choices))
    for i, j in enumerate(inst.jobs):
        X[:, i] = np.array(j.sizes)[choices[:, i]]
        S[:, i] = choices[:, i] == len(j.sizes) - 1
        P *= np.array(j.probs)[choices[:, i]]
    return X, S, P


def oracle_table(inst: Instance) -> tuple[np.ndarray, np.ndarray]:
    """(orders, values): every order and its enumerated expectation of every objective."""
    X, S, P = enumerate_outcomes(inst)
    perms = np.array(list(itertools.permutations(range(inst.n))), dtype=np.int64)
    return perms, _expected_per_order(X, S, P, perms)


def oracle_optima(inst: Instance) -> dict[str, float]:
    """min over all orders of the enumerated expectation, for every objective."""
    _, vals = oracle_table(inst)
    best = vals.min(axis=0)
    return {obj.label: float(best[i]) for i, obj in enumerate(objectives_for(inst.n))}


def test_oracle_agrees_with_realized_values():
    # the compiled oracle implements the same outcome semantics as outcomes.realized_values
    for inst in INSTANCES[3:40:6]:
        X, S, P = enumerate_outcomes(inst)
        perms, vals = oracle_table(inst)
        for row in (0, len(perms) // 2, len(perms) - 1):
            for i, obj in enumerate(objectives_for(inst.n)):
                ref = float(P @ realized_values(list(perms[row]), X, S, obj))
                assert close(vals[row, i], ref), (inst.name, obj.label)


@pytest.fixture(scope="module")
def optima() -> dict[str, dict[str, float]]:
    return {inst.name: oracle_optima(inst) for inst in INSTANCES}


def close(a: float, b: float, rel: float = REL) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def test_brute_and_dp_equal_oracle(optima):
    checked = 0
    for inst in INSTANCES:
        for obj in objectives_for(inst.n):
            opt = optima[inst.name][obj.label]
            for method in ("brute", "dp"):
                r = solve(SojournProblem(inst, obj), method)
                assert r.status is Status.OPTIMAL, (inst.name, obj, method)
                assert close(r.value, opt), (inst.name, obj.label, method, r.value, opt)
                assert r.bound is not None and r.bound <= r.value * (1 + REL) + 1e-12
                assert sorted(r.solution) == sorted(inst.ids)
                checked += 1
    assert checked > 2 * 200 * 2  # every instance, several objectives each


@pytest.mark.parametrize(("method", "opts"), LOP_CONFIGS, ids=lambda x: str(x))
def test_lop_methods_equal_oracle(optima, method, opts):
    # CBC runs as a subprocess per solve (slow to start): 20 instances for it, 60 for the rest
    subset = LOP_SUBSET[:20] if opts.get("solver") == "cbc" else LOP_SUBSET
    for inst in subset:
        for kind in ("A", "B"):
            opt = optima[inst.name][kind]
            r = solve(SojournProblem(inst, Objective(kind)), method, options=opts)
            assert r.status is Status.OPTIMAL, (inst.name, kind, r.stats)
            assert close(r.value, opt), (inst.name, kind, r.value, opt, r.stats)
            assert r.bound is not None and r.bound <= r.value
            assert r.gap is not None and r.gap <= 1e-9
            assert sorted(r.solution) == sorted(inst.ids)


def test_plain_models_really_call_their_solver():
    inst = LOP_SUBSET[5]
    for method, opts in LOP_CONFIGS[:3]:
        r = solve(SojournProblem(inst, Objective("B")), method, options=opts)
        assert r.stats["solver_calls"] == 1 and r.stats["triangles"] == math.comb(inst.n, 3)


@pytest.mark.parametrize(("n", "seed", "mc"), CYCLIC)
def test_lop_methods_on_cyclic_preferences(n, seed, mc):
    inst = generate(n, seed, max_checkpoints=mc)
    ref = solve(SojournProblem(inst, Objective("B")), "brute")
    for method, opts in LOP_CONFIGS:
        r = solve(SojournProblem(inst, Objective("B")), method, options=opts)
        assert r.status is Status.OPTIMAL, (method, opts, r.stats)
        assert close(r.value, ref.value), (method, opts, r.value, ref.value)
        assert r.stats["solver_calls"] >= 1  # a cyclic block always needs the back end
        if opts.get("decompose", True):
            assert r.stats["largest_block"] < n  # the cycle sits inside a smaller block


def test_smith_is_optimal_for_a_tk_dk_and_no_heuristic_beats_the_optimum(optima):
    # the heuristics of solvers/sojourn/heuristics.py; kernel-backed ones test themselves.
    # Smith on every objective and K; the others on A, B and TK/DK with K in {1, n}.
    others = ["fcfs", "sept", "ssf", "maxpi", "uindex", "local"]
    assert {"smith", *others} <= set(METHODS.names(scope="sojourn", exact=False))
    for inst in INSTANCES:
        for obj in objectives_for(inst.n):
            opt = optima[inst.name][obj.label]
            r = solve(SojournProblem(inst, obj), "smith")
            assert r.value >= opt * (1 - REL) - 1e-12, (inst.name, obj.label)
            if obj.kind != "B":
                assert close(r.value, opt), (inst.name, obj.label, r.value, opt)
            if obj.k not in (None, 1, inst.n):
                continue
            for h in others:
                r = solve(SojournProblem(inst, obj), h)
                assert r.value >= opt * (1 - REL) - 1e-12, (inst.name, obj.label, h)


def test_stopped_cpsat_never_claims_optimal():
    inst = generate(60, 0)
    r = solve(
        SojournProblem(inst, Objective("B")),
        "cpsat",
        seed=0,
        options={
            "triangles": "all",
            "decompose": False,
            "max_deterministic_time": 1e-3,
            "num_workers": 1,
        },
    )
    assert r.status in (Status.FEASIBLE, Status.TIMEOUT)
    assert r.status is Status.FEASIBLE and sorted(r.solution) == sorted(inst.ids)
    assert r.bound is None or r.bound <= r.value
    assert not r.stats["all_blocks_closed"]


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_stopped_milp_never_claims_optimal(monkeypatch, solver):
    # the plain model of n = 60 has 68,440 triangle rows; the limit passes while they are added
    # (on a fake clock, whatever the machine's speed: the real limit is only a hang guard), so
    # no solver may start and the answer is the start order without a bound
    clock = [0.0]
    monkeypatch.setattr(validate, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    real_add = exact_milp.PulpBlockModel.add_triangles

    def add_then_expire(self: Any, triples: Any) -> None:
        clock[0] = 1e9  # every deadline of this solve has passed from now on
        real_add(self, triples)

    def no_solver(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a MIP solver was started after the limit passed")

    monkeypatch.setattr(exact_milp.PulpBlockModel, "add_triangles", add_then_expire)
    monkeypatch.setattr(exact_milp, "solve_pulp", no_solver)
    r = solve(
        SojournProblem(generate(60, 1), Objective("B")),
        "milp",
        time_limit=600.0,
        options={"solver": solver, "triangles": "all", "decompose": False},
    )
    assert r.status is Status.FEASIBLE
    assert r.bound is None


def test_refusals():
    with pytest.raises(InvalidInput, match="work cap max_work=5,000,000"):
        solve(SojournProblem(generate(10, 0), Objective("A")), "brute")  # 10! x 10 steps
    small = SojournProblem(generate(4, 0), Objective("A"))
    with pytest.raises(InvalidInput, match="--max-work"):
        solve(small, "brute", options={"max_work": 4 * 3 * 2 * 4 - 1})
    assert solve(small, "brute", options={"max_work": 4 * 3 * 2 * 4}).is_optimal
    with pytest.raises(InvalidInput, match="memory"):
        solve(SojournProblem(generate(40, 0), Objective("B")), "dp")
    with pytest.raises(InvalidInput, match="time_limit"):
        solve(SojournProblem(generate(3, 0), Objective("B")), "cpsat", time_limit=0)
    inst = generate(4, 0)
    for method in ("milp", "cpsat"):
        for obj in (Objective("TK", 2), Objective("DK", 1)):
            with pytest.raises(InvalidInput) as err:
                solve(SojournProblem(inst, obj), method)
            assert f"method {method!r} does not solve {obj.kind}" in str(err.value)
            assert "it solves A, B" in str(err.value)
    with pytest.raises(InvalidInput, match="solver"):
        solve(SojournProblem(inst, Objective("B")), "milp", options={"solver": "gurobi"})
    with pytest.raises(InvalidInput, match="triangles"):
        solve(SojournProblem(inst, Objective("B")), "cpsat", options={"triangles": "some"})
    with pytest.raises(InvalidInput, match="num_workers"):
        solve(SojournProblem(inst, Objective("B")), "cpsat", options={"num_workers": 0})


def test_zero_success_probability_jobs():
    inst = Instance.from_dict(
        {
            "jobs": [
                {"id": "never", "sizes": [2, 9], "probs": [1.0, 0.0]},
                {"id": "b", "sizes": [1, 4], "probs": [0.5, 0.5]},
                {"id": "c", "sizes": [3], "probs": [1.0]},
                {"id": "d", "sizes": [1, 2, 6], "probs": [0.2, 0.2, 0.6]},
            ]
        }
    )
    opt = oracle_optima(inst)
    for kind in ("A", "B"):
        for method, opts in LOP_CONFIGS:
            r = solve(SojournProblem(inst, Objective(kind)), method, options=opts)
            assert r.status is Status.OPTIMAL and close(r.value, opt[kind]), (method, opts)
        assert solve(SojournProblem(inst, Objective(kind)), "cpsat").solution[-1] == "never"
