"""Exhaustive enumeration oracle for small snapshots: every configuration x every placement.

Independent of the MILP and CP-SAT models on purpose: each job in scope (see exact_common for
the run-set rules) tries every grid configuration (plus the proportional share) that fits a
server per GPU, with no dominance pruning and no aggregation of identical jobs, and every way
of spreading its GPUs over the servers; with run_set="any" it may also not run. A depth-first
search abandons a branch only when a server's capacity is exceeded. Proven optimal when it
finishes; stopped by the time or node limit it reports `feasible` (best found, no bound).
The node limit (`max_nodes`, default MAX_NODES: a few seconds of search) holds whether or not a
time limit is given, so no snapshot keeps it running for minutes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import register_method
from schedlab.solvers.synergy.allocation import (
    Allocation,
    JobAllocation,
    capacity_limit,
    total_tput,
)
from schedlab.solvers.synergy.configs import all_configs
from schedlab.solvers.synergy.exact_model import (
    RUN_SET_HELP,
    ExactStructure,
    RunSet,
    build_structure,
)
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.solution import certified_result
from schedlab.solvers.validate import NO_DEADLINE, Deadline

MAX_JOBS = 10
MAX_SERVERS = 4
MAX_SPREAD_TRIES = 10**6  # candidate spreads listed before the search (all jobs together)
#: Default node limit: about 150,000 to 250,000 nodes a second, so a few seconds (the tests'
#: snapshots finish within 10,000 nodes; the door's three-job snapshot within 420,000).
MAX_NODES = 1_000_000


def spreads(g: int, servers: int, per_server: int) -> list[tuple[int, ...]]:
    """Every way to put g GPUs on the servers (n_s >= 0, n_s <= per_server, sum g)."""
    return [n for n in product(range(min(g, per_server) + 1), repeat=servers) if sum(n) == g]


@dataclass(frozen=True)
class EnumOptions:
    """Options of the enumeration oracle."""

    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    max_nodes: int = field(
        default=MAX_NODES,
        metadata={"help": "search nodes before it stops (then: feasible, unproven; ~5 s/10^6)"},
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
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: EnumOptions,
) -> SolveResult[Allocation | None]:
    """Best allocation by trying all configurations and placements of the jobs in scope."""
    t0 = time.perf_counter()
    st = build_structure(snap, options.run_set)
    S = snap.cluster.servers
    if len(st.scope) > MAX_JOBS or S > MAX_SERVERS:
        raise InvalidInput(
            f"enum: {len(st.scope)} jobs in scope on {S} servers is too large for enumeration "
            f"(at most {MAX_JOBS} jobs and {MAX_SERVERS} servers); use method milp or cpsat"
        )
    G = snap.cluster.gpus_per_server
    tries = sum((min(snap.jobs[j].gpus, G) + 1) ** S for j in st.scope)
    if tries > MAX_SPREAD_TRIES:
        raise InvalidInput(
            f"enum: listing the GPU spreads of {len(st.scope)} jobs over {S} servers of {G} GPUs "
            f"takes {tries:.3g} steps (at most {MAX_SPREAD_TRIES:g}); use method milp or cpsat"
        )
    search = _Search(st, options.max_nodes, deadline)
    search.dfs(0, 0.0)
    stats: dict[str, Any] = {
        "run_set": options.run_set,
        "nodes": search.nodes,
        "stopped": search.stopped,
    }
    runtime = time.perf_counter() - t0
    if search.best_pick is None:
        status = Status.TIMEOUT if search.stopped else Status.INFEASIBLE
        return SolveResult(status, None, None, None, "enum", runtime, stats)
    ids = [j.id for j in snap.jobs]
    jobs = tuple(
        JobAllocation.uniform(ids[j], p[0], p[1], list(enumerate(p[2])))
        for j, p in zip(st.scope, search.best_pick, strict=True)
        if p is not None
    )
    alloc = Allocation(jobs)
    # a finished search proves its best value optimal; a stopped one has no bound
    bound = None if search.stopped else total_tput(snap, alloc)
    return certified_result(snap, alloc, "enum", runtime, bound, stats=stats)


class _Search:
    """Depth-first search over every (configuration, spread) of each job in scope, in order;
    a branch is abandoned only when a server's capacity is exceeded."""

    def __init__(self, st: ExactStructure, max_nodes: int, deadline: Deadline) -> None:
        snap, cl = st.snap, st.snap.cluster
        S, G = cl.servers, cl.gpus_per_server
        self.must_run = st.must_run
        self.choices: list[list[tuple[float, float, float, tuple[int, ...]]]] = []
        for j in st.scope:
            g = snap.jobs[j].gpus
            cfgs = all_configs(snap.profiles, cl, st.models[j], floor=st.must_run)
            opts = [(c, m, g * t, n) for c, m, t in cfgs for n in spreads(g, S, G)]
            opts.sort(key=lambda o: -o[2])  # fast ones first: good incumbents early
            self.choices.append(opts)
        self.free_g = [G] * S
        self.free_c = [capacity_limit(cl.cpus_per_server)] * S  # the validator's rule
        self.free_m = [capacity_limit(cl.mem_gb_per_server)] * S
        self.best = -1.0
        self.best_pick: list[Any] | None = None
        self.pick: list[Any] = [None] * len(st.scope)
        self.nodes = 0
        self.stopped = False
        self.max_nodes = max_nodes
        self.deadline = deadline

    def _stop_now(self) -> bool:
        self.nodes += 1
        if self.nodes >= self.max_nodes or (self.nodes % 4096 == 0 and self.deadline.passed()):
            self.stopped = True
        return self.stopped

    def _take(self, n: tuple[int, ...], c: float, m: float, sign: int) -> None:
        for s, k in enumerate(n):
            self.free_g[s] -= sign * k
            self.free_c[s] -= sign * k * c
            self.free_m[s] -= sign * k * m

    def dfs(self, i: int, value: float) -> None:
        if self.stopped or self._stop_now():
            return
        if i == len(self.choices):
            if value > self.best:
                self.best = value
                self.best_pick = list(self.pick)
            return
        fg, fc, fm = self.free_g, self.free_c, self.free_m
        for c, m, tv, n in self.choices[i]:
            if not all(
                k == 0 or (fg[s] >= k and fc[s] >= k * c and fm[s] >= k * m)
                for s, k in enumerate(n)
            ):
                continue
            self._take(n, c, m, 1)
            self.pick[i] = (c, m, n)
            self.dfs(i + 1, value + tv)
            self._take(n, c, m, -1)
        if not self.must_run:
            self.pick[i] = None
            self.dfs(i + 1, value)
