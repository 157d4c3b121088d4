"""Status cases of sojourn for tests/core/test_exact_status.py: tiny instances off every grid.

The oracle runs every order against every combination of outcomes (one size per job, with the
product of their probabilities) and takes the expectation of the objective from its definition:
A = E[sum I_i C_i], B = E[(1/N) sum I_i C_i] (0 when N = 0), TK = E[time of the K-th success]
(the makespan when fewer succeed), DK = E[sum of C_i over the first K successes]. Nothing of
the package is used but the problem types. A sojourn instance has no capacity: every order is
feasible, so `optimal` is the only status an exact method may give (BOTH_STATUSES = False).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
from hypothesis import strategies as st

from schedlab.solvers.registry import Entry
from schedlab.solvers.result import PROOF_TOL, SolveResult, Status
from schedlab.solvers.sojourn.objectives import OBJECTIVES, Objective
from schedlab.solvers.sojourn.problem import Instance, SojournProblem

BOTH_STATUSES = False
MAX_N = 5
MAX_OUTCOMES = 3


def _magnitude(draw: st.DrawFn) -> float:
    """A scale for one instance's sizes: tiny, ordinary or large (within the 1e12 limit)."""
    return draw(st.sampled_from([1e-7, 1e-3, 1.0, 1.0, 1.0, 37.0, 1e5, 1e9]))


def _number(draw: st.DrawFn, lo: float, hi: float) -> float:
    """A float in [lo, hi]: mostly with many decimals, sometimes with one or two."""
    x = draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))
    if draw(st.integers(0, 4)) == 0:
        x = min(hi, max(lo, round(x, draw(st.integers(1, 2)))))
    return x


@st.composite
def _job(draw: st.DrawFn, scale: float) -> dict:
    k = draw(st.integers(1, MAX_OUTCOMES))
    sizes: list[float] = []
    while len(sizes) < k:
        s = _number(draw, 0.01, 100.0) * scale * (1 + 0.3 * len(sizes))
        if sizes and s <= sizes[-1]:
            s = sizes[-1] * (1 + _number(draw, 1e-6, 2.0))
        sizes.append(min(s, 1e12))
    sizes = sorted(set(sizes))
    weights = [
        draw(st.sampled_from([0.0, 1.0, 1e-9]))
        if draw(st.integers(0, 5)) == 0
        else _number(draw, 1e-3, 1.0)
        for _ in sizes
    ]
    if sum(weights) == 0:
        weights[-1] = 1.0
    total = math.fsum(weights)
    probs = [w / total for w in weights]
    return {"sizes": sizes, "probs": probs}


@st.composite
def _problem(draw: st.DrawFn, kinds: tuple[str, ...]) -> SojournProblem:
    n = draw(st.integers(1, MAX_N))
    scale = _magnitude(draw)
    spread = st.sampled_from([1.0, 1.0, 1.0, 1e-2, 1e2, 1e-6, 1e6])  # mixed magnitudes
    jobs = [draw(_job(min(scale * draw(spread), 1e9))) for _ in range(n)]
    inst = Instance.from_dict({"jobs": [{"id": f"j{i}", **j} for i, j in enumerate(jobs)]})
    kind = draw(st.sampled_from(kinds))
    k = draw(st.integers(1, n)) if kind in ("TK", "DK") else None
    return SojournProblem(inst, Objective(kind, k))


def problems(entry: Entry) -> st.SearchStrategy:
    """Instances of up to 5 jobs of up to 3 outcomes, for the objectives `entry` accepts."""
    kinds = entry.meta.get("kinds")
    return _problem(tuple(sorted(kinds)) if kinds else OBJECTIVES)


_CALLS = itertools.count()


def options(entry: Entry) -> dict:
    """Defaults; for the linear-ordering models every other case with `decompose` off, so that
    the back end's own bound (not the preference-block shortcut) must prove the optimum."""
    if "decompose" in {f.name for f in dataclasses.fields(entry.options)}:
        return {"decompose": next(_CALLS) % 2 == 0}
    return {}


def _outcomes(inst: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every combination of outcomes: sizes (C, n), success indicators (C, n), probability (C,)."""
    sizes, succ, prob = [], [], []
    for pick in itertools.product(*(range(len(j.sizes)) for j in inst.jobs)):
        p = math.prod(j.probs[i] for j, i in zip(inst.jobs, pick, strict=True))
        if p == 0.0:
            continue
        sizes.append([j.sizes[i] for j, i in zip(inst.jobs, pick, strict=True)])
        succ.append([i == len(j.sizes) - 1 for j, i in zip(inst.jobs, pick, strict=True)])
        prob.append(p)
    return np.array(sizes, dtype=float), np.array(succ, dtype=bool), np.array(prob)


def _expected(problem: SojournProblem, order: tuple[int, ...], table: tuple) -> float:
    """E[objective] of running `order`, by summing over every combination of outcomes."""
    sizes, succ, prob = table
    o = list(order)
    done = np.cumsum(sizes[:, o], axis=1)  # completion time of each position
    hit = succ[:, o]
    kind, k = problem.objective.kind, problem.objective.k
    if kind == "A":
        per = (done * hit).sum(axis=1)
    elif kind == "B":
        n_ok = hit.sum(axis=1)
        per = np.where(n_ok > 0, (done * hit).sum(axis=1) / np.maximum(n_ok, 1), 0.0)
    else:
        assert k is not None
        count = np.cumsum(hit, axis=1)
        if kind == "TK":
            reached = count[:, -1] >= k
            at = np.argmax(count >= k, axis=1)
            per = np.where(reached, done[np.arange(len(done)), at], done[:, -1])
        else:
            per = (done * hit * (count <= k)).sum(axis=1)
    return math.fsum(prob * per)


_TABLES: dict[str, tuple] = {}
_OPTIMA: dict[tuple[str, str, int | None], float] = {}


def _table(problem: SojournProblem) -> tuple:
    key = problem.instance.to_json()
    if key not in _TABLES:
        _TABLES[key] = _outcomes(problem.instance)
    return _TABLES[key]


def oracle(problem: SojournProblem) -> tuple[Status, float | None]:
    """Every order x every outcome combination: always optimal (every order is feasible)."""
    key = (problem.instance.to_json(), problem.objective.kind, problem.objective.k)
    if key not in _OPTIMA:
        table = _table(problem)
        orders = itertools.permutations(range(problem.instance.n))
        _OPTIMA[key] = min(_expected(problem, o, table) for o in orders)
    return Status.OPTIMAL, _OPTIMA[key]


def recheck(problem: SojournProblem, result: SolveResult) -> None:
    """The solution is an order of every job id once; its value by enumeration is the value."""
    ids = [j.id for j in problem.instance.jobs]
    order = result.solution
    assert sorted(order) == sorted(ids) and len(order) == len(ids), order
    pos = {j: i for i, j in enumerate(ids)}
    value = _expected(problem, tuple(pos[j] for j in order), _table(problem))
    assert result.value is not None
    assert abs(value - result.value) <= PROOF_TOL * max(1.0, abs(value)), (value, result.value)
