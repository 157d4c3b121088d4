"""Benchmark: per-round time of the Synergy allocators on 16-server snapshots (fast path).

Target (the simulator calls an allocator every round): proportional, GREEDY and TUNE well
under 2 ms per round of 128 jobs on 16 servers. OPT solves a MILP and an LP per round.
"""

from __future__ import annotations

import time

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.solve import METHODS
from schedlab.solvers.synergy import RoundAllocator, generate_snapshot


@register_benchmark("bench_alloc")
def run(quick: bool) -> None:
    count = 10 if quick else 50
    ra = RoundAllocator()  # reused across rounds, as a simulator does
    methods = METHODS.names(scope="synergy", tag="paper")
    rows = []
    for jobs, mix in ((128, (0.2, 0.7, 0.1)), (300, (0.5, 0.3, 0.2))):
        snaps = [generate_snapshot(16, jobs, s, task_mix=mix) for s in range(count)]
        args = [(s.model_indices(), s.gpu_demands()) for s in snaps]
        for m in methods:
            reps = 1 if m == "opt" else (5 if quick else 20)
            t0 = time.perf_counter()
            for _ in range(reps):
                for a in args:
                    # a fresh allocator per round for OPT: no memoization across snapshots
                    (RoundAllocator() if m == "opt" else ra).allocate(m, *a)
            ms = 1e3 * (time.perf_counter() - t0) / (reps * len(args))
            rows.append([f"16 x {jobs}", f"{mix}", m, round(ms, 3), reps * len(args)])
    print(
        format_table(["servers x jobs", "image/lang/speech", "method", "ms/round", "rounds"], rows)
    )
