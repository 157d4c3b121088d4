"""ESG on many queues: per-queue A* (ESG_1Q) then the ESG dispatch rule, queue by queue.

Queues are taken earliest deadline first (smallest budget; ties in file order). For each, A*
finds the cheapest configuration path that fits its budget among the configurations that fit
some invoker (capacity-blind otherwise, as ESG's search is); the stages' containers are then
placed by `dispatch.place` on the cluster as filled so far (upstream invoker first, then best
fit on GPU share; nothing is evicted). A queue whose path does not fit its budget, or whose
containers do not all fit, is a miss (its containers are taken back). Status `feasible`; the
exact `q_milp` / `q_cpsat` / `q_brute` measure what this loses.
"""

from __future__ import annotations

import time

import numpy as np

from schedlab.solvers.esg.dispatch import CAP_TOL, Container, Invoker, place
from schedlab.solvers.esg.exact_astar import astar_chain
from schedlab.solvers.esg.problem_queues import Choice, QueuesProblem, queues_result
from schedlab.solvers.options import NoOptions
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, DeadlineExceeded


def esg_queues(problem: QueuesProblem, deadline: Deadline = NO_DEADLINE) -> list[Choice]:
    """The per-queue A* + dispatch choices (see the module doc); DeadlineExceeded once
    `deadline` stops an A* search."""
    tabs = problem.tables()
    cluster = [Invoker(i.vcpus, i.gpu) for i in problem.invokers]
    choices: list[Choice] = [None] * len(problem.queues)
    order = sorted(range(len(problem.queues)), key=lambda q: problem.queues[q].budget_ms)
    for q in order:
        rows = tabs[q]
        keep = []
        for t in rows:
            fit = np.zeros(len(t.lat), dtype=bool)
            for inv in problem.invokers:
                fit |= (t.vcpus <= inv.vcpus + CAP_TOL) & (t.share <= inv.gpu + CAP_TOL)
            keep.append(np.flatnonzero(fit))
        if any(len(k) == 0 for k in keep):
            continue
        s = astar_chain(
            [t.lat[k] for t, k in zip(rows, keep, strict=True)],
            [t.cost[k] for t, k in zip(rows, keep, strict=True)],
            problem.queues[q].budget_ms,
            deadline=deadline,
        )
        if s.stopped:
            raise DeadlineExceeded
        if s.choice is None:
            continue
        picks = [int(k[p]) for k, p in zip(keep, s.choice, strict=True)]
        placed: list[tuple[int, Container]] = []
        up: list[int] = []
        for st, k in enumerate(picks):
            t = rows[st]
            pl = place(cluster, q, st, k, float(t.vcpus[k]), float(t.share[k]), up, evict=False)
            if pl.invoker < 0:
                break
            pl.container.busy = True  # held for the whole snapshot: never evicted or reused
            placed.append((pl.invoker, pl.container))
            up = [pl.invoker]
        if len(placed) < len(picks):
            for j, x in placed:
                cluster[j].containers.remove(x)
            continue
        choices[q] = tuple((k, j) for k, (j, _) in zip(picks, placed, strict=True))
    return choices


@register_method(
    "esg",
    "q_esg",
    exact=False,
    kinds=("queues",),
    summary="many queues: ESG_1Q A* per queue (earliest budget first) + the dispatch rule",
)
def solve_q_esg(
    problem: QueuesProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: NoOptions,
) -> SolveResult:
    """Per-queue A* + dispatch; a heuristic (status feasible)."""
    t0 = time.perf_counter()
    choices = esg_queues(problem, deadline)
    return queues_result(problem, choices, "q_esg", time.perf_counter() - t0, exact=False)
