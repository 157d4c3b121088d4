"""Exhaustive enumeration oracle for small snapshots: every configuration x every placement.

Independent of the MILP and CP-SAT models on purpose: each job in scope (see exact_common for
the run-set rules) tries every grid configuration (plus the proportional share) that fits a
server per GPU, with no dominance pruning and no aggregation of identical jobs, and every way
of spreading its GPUs over the servers; with run_set="any" it may also not run. A depth-first
search abandons a branch only when a server's capacity is exceeded. Proven optimal when it
finishes; stopped by the time or node limit it reports `feasible` (best found, no bound).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocation import Allocation, JobAllocation, total_tput
from schedlab.solvers.synergy.configs import all_configs
from schedlab.solvers.synergy.exact_common import (
    EXACT_TOL,
    RUN_SET_HELP,
    RunSet,
    build_structure,
)
from schedlab.solvers.synergy.model import Snapshot
from schedlab.solvers.synergy.solution import certified_result

MAX_JOBS = 10
MAX_SERVERS = 4


def spreads(g: int, servers: int, per_server: int) -> list[tuple[int, ...]]:
    """Every way to put g GPUs on the servers (n_s >= 0, n_s <= per_server, sum g)."""
    return [n for n in product(range(min(g, per_server) + 1), repeat=servers) if sum(n) == g]


@dataclass(frozen=True)
class EnumOptions:
    """Options of the enumeration oracle."""

    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    max_nodes: int = field(
        default=50_000_000, metadata={"help": "search nodes before it stops (then: feasible)"}
    )


@register_method(
    "synergy",
    "enum",
    exact=True,
    options=EnumOptions,
    tags=("oracle",),
    summary="exhaustive enumeration oracle (small snapshots only)",
)
def solve_enum(
    snap: Snapshot,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    options: EnumOptions,
) -> SolveResult[Allocation | None]:
    """Best allocation by trying all configurations and placements of the jobs in scope."""
    t0 = time.perf_counter()
    run_set, max_nodes = options.run_set, options.max_nodes
    st = build_structure(snap, run_set)
    cl = snap.cluster
    S, G = cl.servers, cl.gpus_per_server
    if len(st.scope) > MAX_JOBS or S > MAX_SERVERS:
        raise InvalidInput(
            f"enum: {len(st.scope)} jobs in scope on {S} servers is too large for enumeration "
            f"(at most {MAX_JOBS} jobs and {MAX_SERVERS} servers); use method milp or cpsat"
        )
    scope = list(st.scope)
    choices: list[list[tuple[float, float, float, tuple[int, ...]]]] = []
    for j in scope:
        g = snap.jobs[j].gpus
        cfgs = all_configs(snap.profiles, cl, st.models[j], floor=st.must_run)
        opts = [(c, m, g * t, n) for c, m, t in cfgs for n in spreads(g, S, G)]
        opts.sort(key=lambda o: -o[2])  # fast ones first: good incumbents early
        choices.append(opts)
    free_g = [G] * S
    free_c = [cl.cpus_per_server * (1 + 1e-12)] * S
    free_m = [cl.mem_gb_per_server * (1 + 1e-12)] * S
    best = [-1.0]
    best_pick: list[Any] = [None]
    pick: list[Any] = [None] * len(scope)
    nodes = [0]
    stopped = [False]
    deadline = None if time_limit is None else t0 + time_limit

    def dfs(i: int, value: float) -> None:
        if stopped[0]:
            return
        nodes[0] += 1
        if nodes[0] >= max_nodes or (
            deadline is not None and nodes[0] % 4096 == 0 and time.perf_counter() > deadline
        ):
            stopped[0] = True
            return
        if i == len(scope):
            if value > best[0]:
                best[0] = value
                best_pick[0] = list(pick)
            return
        for c, m, tv, n in choices[i]:
            ok = all(
                k == 0 or (free_g[s] >= k and free_c[s] >= k * c and free_m[s] >= k * m)
                for s, k in enumerate(n)
            )
            if not ok:
                continue
            for s, k in enumerate(n):
                free_g[s] -= k
                free_c[s] -= k * c
                free_m[s] -= k * m
            pick[i] = (c, m, n)
            dfs(i + 1, value + tv)
            for s, k in enumerate(n):
                free_g[s] += k
                free_c[s] += k * c
                free_m[s] += k * m
        if not st.must_run:
            pick[i] = None
            dfs(i + 1, value)

    dfs(0, 0.0)
    stats: dict[str, Any] = {"run_set": run_set, "nodes": nodes[0], "stopped": stopped[0]}
    runtime = time.perf_counter() - t0
    if best_pick[0] is None:
        status = Status.TIMEOUT if stopped[0] else Status.INFEASIBLE
        return SolveResult(status, None, None, None, "enum", runtime, stats)
    ids = [j.id for j in snap.jobs]
    jobs = tuple(
        JobAllocation.uniform(ids[j], p[0], p[1], list(enumerate(p[2])))
        for j, p in zip(scope, best_pick[0], strict=True)
        if p is not None
    )
    alloc = Allocation(jobs)
    # a finished search proves its best value optimal; a stopped one has no bound
    bound = None if stopped[0] else total_tput(snap, alloc)
    return certified_result(snap, alloc, "enum", runtime, bound, tol=EXACT_TOL, stats=stats)
