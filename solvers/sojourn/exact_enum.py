"""Exact optima by brute force over orders and by dynamic programming over subsets.

The DP is exact because, for each objective, the expected cost contributed by the job placed
right after a set S of already-run jobs depends only on S (not on S's internal order):
- A, B: c_i + sum_{j in S} W[j, i] (linear ordering form);
- TK, DK: through the distribution of the number of successes in S (capped at K) and the
  expected elapsed time in each still-running count state, which are set functions.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.jit import pick
from schedlab.solvers.kit.enum import refuse_above
from schedlab.solvers.options import NoOptions, shared
from schedlab.solvers.result import SolveResult, Status, solution_result
from schedlab.solvers.sojourn.batch import evaluate_orders, linear_ordering_weights
from schedlab.solvers.sojourn.objectives import evaluate
from schedlab.solvers.sojourn.problem import SUBJECT, SojournProblem
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

DP_MAX_CELLS = 1 << 26  # subsets x states kept in memory by the DP (about 0.5 GB of float64)
_CHUNK = 1 << 16


@dataclass(frozen=True)
class BruteOptions:
    """Options of `brute`."""

    max_work: int = shared("max_work")


@register_method(
    SUBJECT, "brute", exact=True, options=BruteOptions,
    summary="all n! orders (n! x n steps within the work cap: n <= 9 by default)",
)  # fmt: skip
def solve_brute(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: BruteOptions,
) -> SolveResult[list[str] | None]:
    """Evaluate every order; refuses more than the work cap (n! orders x n jobs steps)."""
    inst, objective = problem.instance, problem.objective
    n = inst.n
    refuse_above(float(math.factorial(n)) * n if n < 171 else math.inf, options.max_work,
                 f"method brute: n = {n} jobs", "--method dp, milp or cpsat")  # fmt: skip
    t0 = time.perf_counter()
    best_v, best_o = math.inf, None
    perms = itertools.permutations(range(n))
    done = 0
    stopped = False
    while True:
        block = np.array(list(itertools.islice(perms, 50_000)), dtype=np.int64).reshape(-1, n)
        if len(block) == 0:
            break
        vals = evaluate_orders(inst, block, objective)
        i = int(np.argmin(vals))
        if vals[i] < best_v:
            best_v, best_o = float(vals[i]), block[i]
        done += len(block)
        if deadline.passed():
            stopped = done < math.factorial(n)
            break
    assert best_o is not None
    order = [int(i) for i in best_o]
    value = evaluate(inst, order, objective)
    return solution_result(inst.ids_of(order), value, "brute", time.perf_counter() - t0,
                           exact=True, sense="min", proven=not stopped,
                           stats={"orders_evaluated": done})  # fmt: skip


def _dp_lop_chunk(c, W, V, arg, lo, hi):  # pragma: no cover - compiled
    n = c.shape[0]
    for S in range(lo, hi):
        best = np.inf
        bi = -1
        for i in range(n):
            if (S >> i) & 1:
                R = S ^ (1 << i)
                cost = V[R] + c[i]
                for j in range(n):
                    if (R >> j) & 1:
                        cost += W[j, i]
                if cost < best:
                    best = cost
                    bi = i
        V[S] = best
        arg[S] = bi


def _dp_trunc_chunk(pi, m, e, K, want_tk, V, arg, P, M, lo, hi):  # pragma: no cover
    """P[S, c], M[S, c] for c < K: prob. and E[elapsed; count=c] after running set S."""
    n = pi.shape[0]
    for S in range(lo, hi):
        # state of S from S minus its lowest job
        low = 0
        while not (S >> low) & 1:
            low += 1
        R = S ^ (1 << low)
        p = pi[low]
        for c in range(K):
            P[S, c] = (1 - p) * P[R, c]
            M[S, c] = (1 - p) * M[R, c] + e[low] * P[R, c]
        for c in range(1, K):
            P[S, c] += p * P[R, c - 1]
            M[S, c] += p * (M[R, c - 1] + m[low] * P[R, c - 1])
        best = np.inf
        bi = -1
        for i in range(n):
            if (S >> i) & 1:
                Q = S ^ (1 << i)
                cost = V[Q]
                if want_tk:
                    running = 0.0
                    for c in range(K):
                        running += P[Q, c]
                    cost += (e[i] + pi[i] * m[i]) * running
                else:
                    for c in range(K):
                        cost += pi[i] * (M[Q, c] + m[i] * P[Q, c])
                if cost < best:
                    best = cost
                    bi = i
        V[S] = best
        arg[S] = bi


_CHUNK_LOOPS: dict[str, Callable[..., Any]] = {
    "_dp_lop_chunk": _dp_lop_chunk,
    "_dp_trunc_chunk": _dp_trunc_chunk,
}


def _compiled_chunk(name: str) -> Callable[..., None]:
    """The DP's chunk loop `name` compiled by numba, on first use: importing this module (to
    list or pick a method) loads no JIT compiler."""
    return pick(_CHUNK_LOOPS, name, "cpu")


def _backtrack(arg: np.ndarray, n: int) -> list[int]:
    S = (1 << n) - 1
    rev = []
    while S:
        i = int(arg[S])
        rev.append(i)
        S ^= 1 << i
    return rev[::-1]


@register_method(SUBJECT, "dp", exact=True, summary="dynamic programming over subsets")
def solve_dp(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions,
) -> SolveResult[list[str] | None]:
    """Exact DP over subsets of jobs (place the last job of each subset)."""
    inst, objective = problem.instance, problem.objective
    n = inst.n
    k = objective.k or 1
    states = 1 if objective.kind in ("A", "B") else 2 * k + 1
    cells = (1 << n) * states if n < 62 else math.inf
    if cells > DP_MAX_CELLS:
        raise InvalidInput(
            f"method dp: n = {n} jobs needs 2^{n} subsets x {states} values, over the memory "
            f"limit of {DP_MAX_CELLS} cells; use --method milp or cpsat (A, B) or a heuristic"
        )
    t0 = time.perf_counter()
    N = 1 << n
    V = np.empty(N)
    V[0] = 0.0
    arg = np.full(N, -1, dtype=np.int64)
    if objective.kind in ("A", "B"):
        c, W = linear_ordering_weights(inst, objective, deadline=deadline)
        lop = _compiled_chunk("_dp_lop_chunk")
        step = lambda lo, hi: lop(c, W, V, arg, lo, hi)  # noqa: E731
    else:
        P = np.zeros((N, k))
        M = np.zeros((N, k))
        P[0, 0] = 1.0
        tk = objective.kind == "TK"
        pi, m, e = inst.pi, inst.m, inst.e
        trunc = _compiled_chunk("_dp_trunc_chunk")
        step = lambda lo, hi: trunc(pi, m, e, k, tk, V, arg, P, M, lo, hi)  # noqa: E731
    for lo in range(1, N, _CHUNK):
        step(lo, min(N, lo + _CHUNK))
        if deadline.passed() and lo + _CHUNK < N:
            return SolveResult(
                Status.TIMEOUT,
                None,
                None,
                None,
                "dp",
                time.perf_counter() - t0,
                {"subsets_done": lo + _CHUNK, "subsets": N},
            )
    order = _backtrack(arg, n)
    value = evaluate(inst, order, objective)
    dp_value = float(V[N - 1])
    return solution_result(inst.ids_of(order), value, "dp", time.perf_counter() - t0,
                           exact=True, sense="min", bound=dp_value,
                           stats={"subsets": N, "dp_value": dp_value})  # fmt: skip
