"""Exhaustive enumeration oracle for small snapshots: every configuration x every placement.

Independent of the MILP and CP-SAT models on purpose: each job in scope (see exact_model for
the run-set rules) tries every grid configuration (plus the proportional share) that fits a
server per GPU, with no dominance pruning and no aggregation of identical jobs, and every way
of spreading its GPUs over the servers; with run_set="any" it may also not run. A depth-first
branch and bound abandons a branch when a server's capacity is exceeded, or when even every
remaining job at its fastest option could not beat the best allocation found (the options are
tried fastest first). Proven optimal when it finishes. The work, one step per search node and
per option tried, is held to the enumeration oracles' one work cap (`kit.enum`, `max_work`: a
few seconds), whether or not a time limit is given: stopped by it or by the time limit, it
reports its best allocation (`feasible`; `timeout` with none) and a sound bound, the most any
branch it left could still reach (`_Search.frontier`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.enum import WorkMeter
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult, solution_result
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
#: An option of a job: CPUs and GB per GPU, throughput (gpus x per-GPU), GPUs per server.
Option = tuple[float, float, float, tuple[int, ...]]


def spreads(g: int, servers: int, per_server: int) -> list[tuple[int, ...]]:
    """Every way to put g GPUs on the servers (n_s >= 0, n_s <= per_server, sum g)."""
    return [n for n in product(range(min(g, per_server) + 1), repeat=servers) if sum(n) == g]


@dataclass(frozen=True)
class EnumOptions:
    """Options of the enumeration oracle."""

    run_set: RunSet = field(default="proportional", metadata={"help": RUN_SET_HELP})
    max_work: int = shared("max_work")


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
    search = _Search(st, options.max_work, deadline)
    search.dfs(0, 0.0)
    stats: dict[str, Any] = {
        "run_set": options.run_set,
        "nodes": search.nodes,
        "steps": search.meter.done,
        "stopped": search.stopped,
    }
    runtime = time.perf_counter() - t0
    # a finished search proves its best value optimal; a stopped one has the frontier's bound
    bound = search.frontier if search.stopped else None
    if search.best_pick is None:
        return solution_result(None, None, "enum", runtime, exact=True, sense="max",
                               bound=bound, infeasible=not search.stopped,
                               stats=stats)  # fmt: skip
    ids = [j.id for j in snap.jobs]
    jobs = tuple(
        JobAllocation.uniform(ids[j], p[0], p[1], list(enumerate(p[2])))
        for j, p in zip(st.scope, search.best_pick, strict=True)
        if p is not None
    )
    alloc = Allocation(jobs)
    return certified_result(snap, alloc, "enum", runtime,
                            total_tput(snap, alloc) if bound is None else bound,
                            stats=stats)  # fmt: skip


@dataclass(frozen=True)
class Prices:
    """CPU and memory prices >= 0 of the search's second bound: for any prices, a completion of
    jobs i.. within the free CPUs F_c and memory F_m adds at most rest[i] + cpu F_c + mem F_m,
    rest[i] the sum over those jobs of their best option's throughput less the price of its
    demand (weak duality); `suffix[i][k]`: the best of job i's options k.. (and of not running
    it, when allowed) so priced."""

    cpu: float
    mem: float
    rest: list[float]
    suffix: list[list[float]]


def _priced(opts: list[Option], cpu: float, mem: float, may_skip: bool) -> np.ndarray:
    """Per option k, the best of options k.. (and skipping the job) at these prices."""
    v = np.array([tv - cpu * c * sum(n) - mem * m * sum(n) for c, m, tv, n in opts])
    tail = np.array([0.0 if may_skip else -np.inf])
    return np.maximum.accumulate(np.concatenate([v, tail])[::-1])[::-1]


def search_prices(choices: list[list[Option]], may_skip: bool, cap_c: float, cap_m: float
                  ) -> Prices:  # fmt: skip
    """The prices on a grid (0 and halvings of the largest throughput per CPU and per GB)
    that make the root's bound least: arithmetic only, no solver."""

    def grid(per: list[float]) -> np.ndarray:
        top = max(per, default=0.0)
        return np.array([0.0] + [top * 2.0 ** (-k / 2) for k in range(24)])

    dem = [(tv, c * sum(n), m * sum(n)) for opts in choices for c, m, tv, n in opts]
    gc = grid([tv / d for tv, d, _ in dem if d > 0])
    gm = grid([tv / d for tv, _, d in dem if d > 0])
    lc, lm = (a.ravel() for a in np.meshgrid(gc, gm))
    root = lc * cap_c + lm * cap_m
    for opts in choices:
        tv = np.array([o[2] for o in opts] + ([0.0] if may_skip else []))
        dc = np.array([o[0] * sum(o[3]) for o in opts] + ([0.0] if may_skip else []))
        dm = np.array([o[1] * sum(o[3]) for o in opts] + ([0.0] if may_skip else []))
        if len(tv):
            root = root + (tv[None, :] - lc[:, None] * dc[None, :] - lm[:, None] * dm[None, :]
                           ).max(axis=1)  # fmt: skip
    b = int(np.argmin(root))
    cpu, mem = float(lc[b]), float(lm[b])
    suffix = [list(_priced(opts, cpu, mem, may_skip)) for opts in choices]
    heads = [sx[0] for sx in suffix]
    return Prices(cpu, mem, [float(sum(heads[i:])) for i in range(len(heads) + 1)], suffix)


class _Search:
    """Depth-first branch and bound over every (configuration, spread) of each job in scope, in
    order, options fastest first; see the module doc."""

    def __init__(self, st: ExactStructure, max_work: int, deadline: Deadline) -> None:
        snap, cl = st.snap, st.snap.cluster
        S, G = cl.servers, cl.gpus_per_server
        self.must_run = st.must_run
        self.choices: list[list[Option]] = []
        for j in st.scope:
            g = snap.jobs[j].gpus
            cfgs = all_configs(snap.profiles, cl, st.models[j], floor=st.must_run)
            opts = [(c, m, g * t, n) for c, m, t in cfgs for n in spreads(g, S, G)]
            opts.sort(key=lambda o: -o[2])  # fast ones first: good incumbents early
            self.choices.append(opts)
        tops = [opts[0][2] if opts else 0.0 for opts in self.choices]
        #: rest[i]: the most jobs i.. can add (each at its fastest option, capacities ignored)
        self.rest = [sum(tops[i:]) for i in range(len(tops) + 1)]
        self.free_g = [G] * S
        self.free_c = [capacity_limit(cl.cpus_per_server)] * S  # the validator's rule
        self.free_m = [capacity_limit(cl.mem_gb_per_server)] * S
        self.total_c, self.total_m = sum(self.free_c), sum(self.free_m)
        self.prices = search_prices(self.choices, not self.must_run, self.total_c, self.total_m)
        self.best = -1.0
        self.best_pick: list[Any] | None = None
        self.pick: list[Any] = [None] * len(st.scope)
        self.nodes = 0
        self.meter = WorkMeter(max_work)
        self.deadline = deadline
        #: after a stop: the most any branch left unexplored could reach (a sound bound)
        self.frontier = -1.0

    @property
    def stopped(self) -> bool:
        return self.meter.stopped

    def _stop_now(self) -> bool:
        """Count one step; True once the work cap or the time limit stops the search."""
        if self.meter.spend(1):
            return True
        if self.meter.done % 4096 == 0 and self.deadline.passed():
            self.meter.stopped = True
        return self.meter.stopped

    def _take(self, n: tuple[int, ...], c: float, m: float, sign: int) -> None:
        for s, k in enumerate(n):
            self.free_g[s] -= sign * k
            self.free_c[s] -= sign * k * c
            self.free_m[s] -= sign * k * m
        self.total_c -= sign * sum(n) * c
        self.total_m -= sign * sum(n) * m

    def _priced_rest(self, i: int, head: float) -> float:
        """The priced bound on what job i (worth at most `head`, priced) and jobs i+1.. add."""
        p = self.prices
        return head + p.rest[i + 1] + p.cpu * self.total_c + p.mem * self.total_m

    def _bound(self, i: int, value: float) -> float:
        """The most a completion of jobs i.. can reach: the least of the two bounds."""
        if i == len(self.choices):
            return value
        return value + min(self.rest[i], self._priced_rest(i, self.prices.suffix[i][0]))

    def _leave(self, i: int, value: float, k: int) -> None:
        """Stopped at job i with options k.. (and not running it) not explored: the most they
        could reach joins the frontier (options come fastest first)."""
        opts = self.choices[i]
        nxt = opts[k][2] if k < len(opts) else (0.0 if not self.must_run else -np.inf)
        priced = self._priced_rest(i, self.prices.suffix[i][k])
        self.frontier = max(self.frontier, value + min(nxt + self.rest[i + 1], priced), self.best)

    def _fits(self, c: float, m: float, n: tuple[int, ...]) -> bool:
        fg, fc, fm = self.free_g, self.free_c, self.free_m
        return all(
            k == 0 or (fg[s] >= k and fc[s] >= k * c and fm[s] >= k * m) for s, k in enumerate(n)
        )

    def dfs(self, i: int, value: float) -> None:
        self.nodes += 1
        if i == len(self.choices):
            if value > self.best:
                self.best = value
                self.best_pick = list(self.pick)
            return
        if self._bound(i, value) <= self.best:
            return  # no completion beats the best found
        opts = self.choices[i]
        for k, (c, m, tv, n) in enumerate(opts):
            if value + tv + self.rest[i + 1] <= self.best:
                return  # nor any slower option (fastest first), nor not running job i
            if self._stop_now():
                self._leave(i, value, k)
                return
            if not self._fits(c, m, n):
                continue
            self._take(n, c, m, 1)
            self.pick[i] = (c, m, n)
            self.dfs(i + 1, value + tv)
            self._take(n, c, m, -1)
            if self.stopped:  # the child left its own frontier; this job's later options:
                self._leave(i, value, k + 1)
                return
        if not self.must_run:
            self.pick[i] = None
            self.dfs(i + 1, value)
