"""Benchmark: the largest n each exact method proves optimal for objective B within a limit.

For each method, n grows along a fixed ladder; at every n it must prove optimality on every
seeded instance generate(n, 10_000 + 100 n + i) within the limit (60 s; 5 s with quick), else the
method stops there. "plain" is the textbook model (every triangle inequality, no blocks);
"lazy" adds violated triangles round by round; "blocks" also splits the jobs into preference
blocks (proof in theory/sojourn/lop.py) before the lazy model; "lpcut" separates triangle cuts on
the scaled LP first (solvers/lop/lpcut/), by default after trying to prove each block
by a packing of preference cycles (solvers/lop/cyclepack.py; "LP cuts only" skips it). Both
instance families run: "default" (B's preferences almost always transitive: proofs by the
pairwise-minimum argument, no solver call)
and "cyclic" (one preference component of >= 80% of the jobs: every proof is a solver's). Each
row reports the largest preference block and the solver calls of the hardest instance. Run:
`python -m schedlab.experiments.bench bench_exact [--quick]`.

Then lpcut's routes (`route`: the cycle packing, the LP rounds, the full triangle model, and
auto, which picks per block) on three families, each route on the same instances in one run:
default and cyclic (sojourn B) and dense (`lop_matrix.dense_io_matrix`: input-output-like
matrices for the linear-ordering core), with the time of each route, the route auto chose and
its ratio to the fastest single route by wall clock and by CPU time (solves under 1 s repeated,
interleaved over the routes, the fastest kept); each route stops at its first failure (the
largest n proven within the limit). `--lop-dir DIR` runs the routes on every linear-ordering
file of DIR instead (first token n, then the n x n matrix) and prints a table; with `--json`,
only auto, one JSON object per file and line. A DIR holding PACE 2024 graphs (`.gr` files) gives
the PACE table instead (`run_pace_dir`: per graph the optimum, time, route and the shares of
the time in the LP, the MIP and the local search; 600 s per graph, 5 s with quick).
"""

from __future__ import annotations

import json as jsonlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.matrix import LopMatrix, dense_io_matrix, read_lop_dir
from schedlab.solvers.result import Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve

PLAIN = {"triangles": "all", "decompose": False}
LAZY = {"triangles": "lazy", "decompose": False}
BLOCKS = {"triangles": "lazy", "decompose": True}
METHODS: list[tuple[str, str, dict[str, Any]]] = [
    ("dp", "dp", {}),
    ("milp-cbc (plain)", "milp", {"solver": "cbc", **PLAIN}),
    ("milp-highs (plain)", "milp", {"solver": "highs", **PLAIN}),
    ("cpsat (plain)", "cpsat", PLAIN),
    ("milp-highs (lazy)", "milp", {"solver": "highs", **LAZY}),
    ("cpsat (lazy)", "cpsat", LAZY),
    ("milp-cbc (blocks+lazy)", "milp", {"solver": "cbc", **BLOCKS}),
    ("milp-highs (blocks+lazy)", "milp", {"solver": "highs", **BLOCKS}),
    ("cpsat (blocks+lazy)", "cpsat", BLOCKS),
    ("lpcut (LP cuts only)", "lpcut", {"packing": False}),
    ("lpcut (packing, LP cuts)", "lpcut", {}),
]
# on the cyclic family the plain and lazy variants are the blocks+lazy ones (one block)
CYCLIC_METHODS = [m for m in METHODS if "plain" not in m[0] and "(lazy)" not in m[0]]
CYCLIC_NS = [10, 16, 20, 30, 45, 60, 80, 100, 150, 200, 250, 300, 350, 400, 450, 500]
QUICK_CYCLIC_NS = [10, 20, 30, 45, 60]
FULL_NS = [10, 16, 20, 22, 24, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000]
QUICK_NS = [5, 10, 20]


@dataclass
class Sweep:
    label: str
    best_n: int | None = None
    best_s: float | None = None
    failed_at: int | None = None
    reason: str = ""
    largest_block: int = 0
    solver_calls: int = 0
    log: list[tuple[int, str, float]] = field(default_factory=list)


def seeds_for(n: int, count: int) -> list[int]:
    return [10_000 + 100 * n + i for i in range(count)]


def sweep(
    label: str,
    method: str,
    opts: dict[str, Any],
    ns: list[int],
    limit_s: float,
    count: int,
    family: str = "default",
) -> Sweep:
    """Grow n until the method fails to prove an instance optimal within `limit_s`."""
    out = Sweep(label)
    for n in ns:
        worst, block, calls = 0.0, 0, 0
        for seed in seeds_for(n, count):
            inst = generate(n, seed, family=family)
            t0 = time.perf_counter()
            try:
                r = solve(
                    SojournProblem(inst, Objective("B")),
                    method,
                    time_limit=limit_s,
                    seed=0,
                    options=opts,
                )
                status = r.status
                block = max(block, int(r.stats.get("largest_block", 0)))
                calls = max(calls, int(r.stats.get("solver_calls", 0)))
            except InvalidInput as exc:
                out.failed_at, out.reason = n, f"refused: {str(exc)[:60]}"
                return out
            took = time.perf_counter() - t0
            worst = max(worst, took)
            print(
                f"  {family:7s} {label:26s} n={n:5d} seed={seed} {status.value:9s} {took:7.2f} s "
                f"block {r.stats.get('largest_block')} calls {r.stats.get('solver_calls')}",
                flush=True,
            )
            out.log.append((n, status.value, took))
            if status is not Status.OPTIMAL or took > limit_s:
                out.failed_at = n
                out.reason = f"{status.value} after {took:.1f} s (seed {seed})"
                return out
        out.best_n, out.best_s = n, worst
        out.largest_block, out.solver_calls = block, calls  # at the largest n proven
    out.reason = "ladder exhausted"
    return out


COMPONENT_NS = [10, 20, 50, 100, 200, 300]


def component_sizes(ns: list[int], seeds: int = 10) -> list[list[Any]]:
    """Rows (family, n, min / median / max largest preference block over `seeds` instances
    generate(n, s), s < seeds, as a share of n, and the share of single-job blocks)."""
    import numpy as np

    from schedlab.solvers.lop.core import preference_blocks
    from schedlab.solvers.sojourn.batch import linear_ordering_weights

    rows = []
    for family in ("default", "cyclic"):
        for n in ns:
            largest, singles = [], []
            for s in range(seeds):
                _, W = linear_ordering_weights(generate(n, s, family=family), Objective("B"))
                blocks = preference_blocks(W)
                largest.append(max(len(b) for b in blocks) / n)
                singles.append(sum(len(b) == 1 for b in blocks) / n)
            rows.append([family, n, min(largest), float(np.median(largest)), max(largest),
                         float(np.mean(singles))])  # fmt: skip
    return rows


def print_component_sizes(ns: list[int], seeds: int = 10) -> None:
    headers = ["family", "n", "largest block / n: min", "median", "max", "jobs in 1-job blocks"]
    print(format_table(headers, component_sizes(ns, seeds)), flush=True)


SINGLE_ROUTES = ("packing", "lp", "full")
ROUTE_LADDERS = {
    "default": [10, 100, 1000],
    "cyclic": [10, 20, 30, 45, 60, 80, 100, 150, 200, 250, 300, 350, 400, 450, 500],
    "dense": [10, 20, 30, 44, 60, 79, 100, 150, 200, 300],
}
DENSE_SEED_LADDER = {"dense": [44, 60, 79, 100]}  # the dense family, DENSE_SEEDS seeds per n:
DENSE_SEEDS = 3  # the route choice is not tuned to one instance (docs/lop.md)
QUICK_ROUTE_LADDERS = {"default": [10, 50], "cyclic": [10, 20, 30], "dense": [10, 20, 30]}
#: The ladders of `schedlab lop study routes --ladder NAME`.
STUDY_LADDERS = {
    "full": ROUTE_LADDERS,
    "quick": QUICK_ROUTE_LADDERS,
    "dense-seeds": DENSE_SEED_LADDER,
}
FAST_FLOOR_S = 0.05  # ratios use max(t, this): below it a time is start-up noise
REPEAT_BELOW_S = 1.0  # a solve faster than this is repeated (`best_runs`), its fastest run
# kept (wall and CPU separately): on a shared machine one short run is noise (dense n = 79,
# load 9: the same route 0.19 s and 0.30 s, CPU 0.06 s and 0.07 s)
REPEATS = 3


def best_runs(
    go: Callable[[str, float], RouteRun], routes: list[str], limit_s: float
) -> dict[str, RouteRun]:
    """Each route's solve, interleaved: up to REPEATS passes over the routes, a route repeated
    while its runs take under REPEAT_BELOW_S; per route the fastest wall and CPU times of the
    runs with its first run's status. Interleaving spreads the shared machine's load spikes
    over the routes instead of onto whichever ran first."""
    best: dict[str, RouteRun] = {}
    for _ in range(REPEATS):
        for route in routes:
            prev = best.get(route)
            if prev is not None and prev.seconds >= REPEAT_BELOW_S:
                continue
            run = go(route, limit_s)
            if prev is None:
                best[route] = run
            elif run.status == prev.status:
                fast = run if run.seconds < prev.seconds else prev
                cpu = min(run.cpu_s, prev.cpu_s)
                best[route] = RouteRun(fast.status, fast.seconds, fast.routes, cpu)
    return best


@dataclass
class RouteRun:
    """One solve by one route: status, wall seconds, the routes the blocks took, CPU seconds
    (this process: on a shared machine the wall clock also counts other work)."""

    status: str
    seconds: float
    routes: list[str]
    cpu_s: float = 0.0


def route_solver(family: str, n: int, seed: int) -> Callable[[str, float], RouteRun]:
    """A function solving instance (family, n, seed) by lpcut with a given route and limit:
    sojourn B for default and cyclic, the linear-ordering core for dense."""
    if family == "dense":
        mat = LopMatrix(f"dense-{n}-{seed}", dense_io_matrix(n, seed))

        def go(route: str, limit_s: float) -> RouteRun:
            t0, c0 = time.perf_counter(), time.process_time()
            r = solve(mat, "lpcut", time_limit=limit_s, seed=0, options={"route": route})
            took, cpu = time.perf_counter() - t0, time.process_time() - c0
            return RouteRun(r.status.value, took, list(r.stats.get("routes", [])), cpu)

        return go
    problem = SojournProblem(generate(n, seed, family=family), Objective("B"))

    def go_b(route: str, limit_s: float) -> RouteRun:
        t0, c0 = time.perf_counter(), time.process_time()
        r = solve(problem, "lpcut", time_limit=limit_s, seed=0, options={"route": route})
        took, cpu = time.perf_counter() - t0, time.process_time() - c0
        return RouteRun(r.status.value, took, list(r.stats.get("routes", [])), cpu)

    return go_b


def deficit_share(W: Any) -> float | None:
    """The largest deficit share of W's preference blocks (what `pick_route` reads): cost of
    the block's starting order (insertion descent from the preference order, as lpcut starts)
    over its pairwise minimum, minus 1; None without a block of 3 or more jobs."""
    import numpy as np

    from schedlab.solvers.lop.core import (
        insertion_descent,
        lop_cost,
        order_from_before,
        pairwise_min_bound,
        preference_blocks,
        preference_tournament,
    )

    shares = []
    for b in preference_blocks(W):
        if len(b) >= 3:
            Wb = W[np.ix_(b, b)]
            order = insertion_descent(Wb, order_from_before(preference_tournament(Wb)))
            pair_min = pairwise_min_bound(Wb)
            shares.append((lop_cost(Wb, order) - pair_min) / pair_min)
    return max(shares) if shares else None


def print_deficit_shares(ns: list[int]) -> None:
    """The deficit share of the first route-study instance per n, cyclic and dense."""
    from schedlab.solvers.lop.matrix import core_costs
    from schedlab.solvers.sojourn.batch import linear_ordering_weights

    rows = []
    for n in ns:
        seed = seeds_for(n, 1)[0]
        _, W = linear_ordering_weights(generate(n, seed, family="cyclic"), Objective("B"))
        rows.append(
            [n, seed, deficit_share(W), deficit_share(core_costs(dense_io_matrix(n, seed))[0])]
        )
    print(format_table(["n", "seed", "cyclic: deficit share", "dense: deficit share"], rows))


def ratio_to_fastest(times: dict[str, float]) -> float | None:
    """auto's time over the fastest single route's, both floored at FAST_FLOOR_S (None when
    auto or every single route failed)."""
    singles = [times[r] for r in SINGLE_ROUTES if r in times]
    if not singles or "auto" not in times:
        return None
    return max(times["auto"], FAST_FLOOR_S) / max(min(singles), FAST_FLOOR_S)


def route_study(
    ladders: dict[str, list[int]], limit_s: float, count: int
) -> tuple[list[list[Any]], list[list[Any]]]:
    """Per instance, the time of auto and of each single route (same instance, one run), and
    per family and route the largest n proven within the limit. A route stops at its first
    failure (not proven within the limit); rows per instance and summary rows. The ratio to
    the fastest route is given by wall clock and by this process's CPU time."""
    per_instance: list[list[Any]] = []
    summary: list[list[Any]] = []
    for family in ladders:  # warm-up, untimed: imports and numba compilation count for no route
        for route in ("auto", *SINGLE_ROUTES):
            route_solver(family, 12, 1)(route, limit_s)
    for family, ns in ladders.items():
        alive = {r: True for r in ("auto", *SINGLE_ROUTES)}
        best: dict[str, tuple[int, float]] = {}
        failed: dict[str, str] = {}
        for n in ns:
            worst: dict[str, float] = {}
            for seed in seeds_for(n, count):
                go = route_solver(family, n, seed)
                times: dict[str, float] = {}
                cpus: dict[str, float] = {}
                chosen = "-"
                runs = best_runs(go, [r for r in alive if alive[r]], limit_s)
                for route, run in runs.items():
                    ok = run.status == "optimal" and run.seconds <= limit_s
                    print(f"  {family:7s} n={n:4d} seed={seed} {route:8s} {run.status:9s} "
                          f"{run.seconds:7.2f} s {run.cpu_s:7.2f} cpu s {','.join(run.routes)} "
                          f"load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
                    if route == "auto":
                        chosen = ",".join(sorted(set(run.routes))) or "(no solver)"
                    if ok:
                        times[route], cpus[route] = run.seconds, run.cpu_s
                        worst[route] = max(worst.get(route, 0.0), run.seconds)
                    else:
                        alive[route] = False
                        failed[route] = f"{n} ({run.status} after {run.seconds:.1f} s, seed {seed})"
                per_instance.append([family, n, seed, chosen, times.get("auto"),
                                     *(times.get(r) for r in SINGLE_ROUTES),
                                     ratio_to_fastest(times), ratio_to_fastest(cpus)])  # fmt: skip
            for route, t in worst.items():
                if alive[route]:
                    best[route] = (n, t)
            if not any(alive.values()):
                break
        for route in alive:
            bn, bt = best.get(route, (None, None))
            summary.append([family, route, bn, bt, failed.get(route, "- (ladder end)")])
    return per_instance, summary


def print_route_study(ladders: dict[str, list[int]], limit_s: float, count: int) -> None:
    """The route study's two tables (instances, then largest n per family and route)."""
    print(f"lpcut routes: limit {limit_s:g} s per solve, {count} instance(s) per n, seeds "
          f"10000 + 100 n + i; load average {os.getloadavg()}", flush=True)  # fmt: skip
    rows, summary = route_study(ladders, limit_s, count)
    headers = ["family", "n", "seed", "auto chose", "auto s", *(f"{r} s" for r in SINGLE_ROUTES),
               "auto / fastest", "auto / fastest (cpu)"]  # fmt: skip
    print(format_table(headers, rows), flush=True)
    headers = ["family", "route", "largest n proven", "worst s at that n", "failed at n"]
    print(format_table(headers, summary), flush=True)
    print(f"load average at the end {os.getloadavg()}", flush=True)


QUICK_LIMIT_S = 5.0  # per solve with --quick
FULL_LIMIT_S = 60.0  # per solve at full size
PACE_LIMIT_S = 600.0  # per PACE graph (the "proves within ten minutes"); 5 s with quick


def _natural(name: str) -> tuple[Any, ...]:
    """Sort key that puts 2.gr before 10.gr."""
    import re

    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def graph_files(lop_dir: str) -> list[Any]:
    """The `.gr` files of `lop_dir` (PACE 2024 graphs), in natural order."""
    from pathlib import Path

    d = Path(lop_dir)
    if not d.is_dir():
        raise InvalidInput(f"--lop-dir {d}: not a directory")
    return sorted((f for f in d.iterdir() if f.suffix == ".gr" and f.is_file()),
                  key=lambda f: _natural(f.name))  # fmt: skip


def pace_row(path: Any, limit_s: float) -> dict[str, Any]:
    """lpcut (route auto) on one PACE graph: the PACE table's row."""
    from schedlab.solvers.lop.graph import read_ocr_file

    g = read_ocr_file(path)
    t0, c0 = time.perf_counter(), time.process_time()
    r = solve(g, "lpcut", time_limit=limit_s, seed=0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = r.stats

    def share(*keys: str) -> float:
        return round(sum(float(st.get(k, 0.0)) for k in keys) / max(wall, 1e-9), 3)

    return {"name": path.name, "n": g.n1, "m": g.m, "status": r.status.value, "value": r.value,
            "bound": r.bound, "optimum": r.value if r.status is Status.OPTIMAL else None,
            "runtime_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "routes": ",".join(sorted(set(st.get("routes", [])))) or "(no solver)",
            "solver_blocks": st.get("solver_blocks", 0),
            "largest_solver_block": st.get("largest_solver_block", 0),
            "lp_share": share("lp_s", "packing_master_s"), "mip_share": share("mip_s"),
            "search_share": share("search_s")}  # fmt: skip


PACE_HEADERS = ["instance", "n", "optimum", "status", "s", "CPU s", "route", "solver blocks",
                "largest", "LP share", "MIP share", "search share", "value", "bound"]  # fmt: skip


def run_pace_dir(files: list[Any], limit_s: float, as_json: bool) -> None:
    """The PACE table: per graph, lpcut's optimum (or status, value and bound), time, route,
    and the shares of the time in the LP (rounds and packing masters), the MIP and the local
    search; with `as_json` one JSON object per graph and line."""
    rows = []
    for f in files:
        d = pace_row(f, limit_s)
        if as_json:
            print(jsonlib.dumps(d), flush=True)
            continue
        rows.append([d["name"], d["n"], d["optimum"], d["status"], d["runtime_s"], d["cpu_s"],
                     d["routes"], d["solver_blocks"], d["largest_solver_block"], d["lp_share"],
                     d["mip_share"], d["search_share"], d["value"], d["bound"]])  # fmt: skip
        print(f"  {d['name']} {d['status']} {d['runtime_s']:.2f} s", flush=True)
    if not as_json:
        print(f"PACE 2024 graphs, lpcut (route auto), limit {limit_s:g} s per graph; "
              f"{os.cpu_count()} cpus, load average {os.getloadavg()}", flush=True)  # fmt: skip
        print(format_table(PACE_HEADERS, rows), flush=True)


def run_lop_dir(
    lop_dir: str, limit_s: float, as_json: bool, pace_limit_s: float = PACE_LIMIT_S
) -> None:
    """lpcut on `lop_dir`: its PACE 2024 graphs (`.gr` files) give the PACE table
    (`run_pace_dir`); otherwise every file is a matrix, and lpcut's routes give a table, or
    with `as_json` one JSON line per file for the default route (auto): name, n, value, bound
    (the benchmark's convention: largest above-diagonal sum, an upper bound), status,
    runtime_s, routes."""
    graphs = graph_files(lop_dir)
    if graphs:
        run_pace_dir(graphs, pace_limit_s, as_json)
        return
    mats = read_lop_dir(lop_dir)
    routes = ("auto",) if as_json else ("auto", *SINGLE_ROUTES)
    rows = []
    for mat in mats:
        for route in routes:
            r = solve(mat, "lpcut", time_limit=limit_s, seed=0, options={"route": route})
            if as_json:
                line = {"name": mat.name, "n": mat.n, "value": r.value, "bound": r.bound,
                        "status": r.status.value, "runtime_s": round(r.runtime_s, 4),
                        "routes": list(r.stats.get("routes", []))}  # fmt: skip
                print(jsonlib.dumps(line), flush=True)
                continue
            rows.append([mat.name, mat.n, route, ",".join(r.stats.get("routes", [])) or "-",
                         r.status.value, r.runtime_s, r.value, r.bound])  # fmt: skip
            print(f"  {mat.name} {route} {r.status.value} {r.runtime_s:.2f} s", flush=True)
    if not as_json:
        headers = ["name", "n", "route", "blocks took", "status", "s", "value", "bound"]
        print(format_table(headers, rows), flush=True)


@register_benchmark("bench_exact")
def run(quick: bool = False, lop_dir: str | None = None, json: bool = False) -> None:
    """Print, per family and exact method, the largest n proven optimal for B within the limit;
    then lpcut's routes per family. With `lop_dir`: the routes on that folder's matrices."""
    limit_s, count = (QUICK_LIMIT_S, 1) if quick else (FULL_LIMIT_S, 2)
    if lop_dir is not None:
        run_lop_dir(lop_dir, limit_s, json, limit_s if quick else PACE_LIMIT_S)
        return
    if json:
        raise InvalidInput("--json: bench_exact prints JSON lines only with --lop-dir DIR")
    ladders = {
        "default": (QUICK_NS if quick else FULL_NS, METHODS),
        "cyclic": (QUICK_CYCLIC_NS if quick else CYCLIC_NS, CYCLIC_METHODS),
    }
    print(
        f"objective B, instances generate(n, 10000 + 100 n + i, family=F), i < {count}; limit "
        f"{limit_s:g} s per solve; {os.cpu_count()} cpus, load average {os.getloadavg()} "
        "(the machine may be shared)",
        flush=True,
    )
    print("largest preference block (strong component) of B, 10 seeds per n:", flush=True)
    print_component_sizes(COMPONENT_NS[:3] if quick else COMPONENT_NS)
    rows = []
    for family, (ns, methods) in ladders.items():
        print(f"family {family}: n ladder {ns}", flush=True)
        for label, m, o in methods:
            r = sweep(label, m, o, ns, limit_s, count, family)
            status = "optimal" if r.best_n else "-"
            rows.append([family, r.label, r.best_n, r.largest_block, r.solver_calls, r.best_s,
                         status, r.failed_at or "-", r.reason])  # fmt: skip
    headers = ["family", "method", "largest n proven", "largest component", "solver calls",
               "worst s at that n", "status", "failed at n", "why"]  # fmt: skip
    print(format_table(headers, rows), flush=True)
    print_route_study(QUICK_ROUTE_LADDERS if quick else ROUTE_LADDERS, limit_s, count)


START_SEARCH_CONFIGS = [(8, 100), (32, 600)]  # (rotations, kicks per rotation)
START_SEARCH_INSTANCES = [(350, 45000), (350, 45001), (400, 50000), (400, 50001),
                          (450, 55000), (450, 55001), (500, 60000), (500, 60001)]  # fmt: skip


def print_start_search(
    instances: list[tuple[int, int]] = START_SEARCH_INSTANCES,
    configs: list[tuple[int, int]] = START_SEARCH_CONFIGS,
) -> None:
    """The packing's starting order (`exact_lpcut.search_start`) on the largest block of
    cyclic instances: per (rotations, kicks) of the insertion search, how many closing
    slacks (`block_close_abs`) its order lies below lpcut's insertion-descent order, and the
    seconds it took."""
    import numpy as np

    from schedlab.solvers.kernels.order_search import multistart
    from schedlab.solvers.lop.core import (
        insertion_descent,
        lop_cost,
        order_from_before,
        preference_blocks,
        preference_tournament,
    )
    from schedlab.solvers.lop.lpcut.model import block_close_abs
    from schedlab.solvers.lop.lpcut.options import DEFAULT_TUNING
    from schedlab.solvers.sojourn.batch import linear_ordering_weights

    multistart(np.zeros((3, 3)), [0, 1, 2], starts=1, kicks_per_start=1, max_length=1, seed=0)
    headers = ["n", "seed", "block"] + [f"{s}x{k} {w}" for s, k in configs for w in ("slacks", "s")]
    rows = []
    for n, seed in instances:
        _, W = linear_ordering_weights(generate(n, seed, family="cyclic"), Objective("B"))
        b = max(preference_blocks(W), key=len)
        Wb = W[np.ix_(b, b)]
        start = insertion_descent(Wb, order_from_before(preference_tournament(Wb)))
        row: list[Any] = [n, seed, len(b)]
        for starts, kicks in configs:
            t0 = time.perf_counter()
            found = multistart(Wb, start, starts=starts, kicks_per_start=kicks,
                               max_length=DEFAULT_TUNING.search_segment, seed=0)  # fmt: skip
            took = time.perf_counter() - t0
            gain = (lop_cost(Wb, start) - lop_cost(Wb, found)) / block_close_abs(Wb)
            row += [round(gain, 2), round(took, 2)]
        rows.append(row)
        print(format_table(headers, rows[-1:]), flush=True)
    print(format_table(headers, rows))


def print_cyclic_ladder(
    ns: tuple[int, ...] = (300, 350, 400, 450, 500),
    count: int = 2,
    limit_s: float = 60.0,
    threads: int = 1,
) -> None:
    """lpcut's default route (with `threads` PDLP threads) on every ladder instance of the
    cyclic family (seeds as `seeds_for`), none skipped after a failure: status, wall and CPU
    seconds, packing rounds and the gap left in closing slacks (the largest block's,
    `lop.block_slacks`)."""
    from schedlab.solvers.lop.core import block_slacks, preference_blocks
    from schedlab.solvers.sojourn.batch import linear_ordering_weights

    rows = []
    for n in ns:
        for seed in seeds_for(n, count):
            inst = generate(n, seed, family="cyclic")
            c, W = linear_ordering_weights(inst, Objective("B"))
            blocks = preference_blocks(W)
            big = max(range(len(blocks)), key=lambda k: len(blocks[k]))
            slack = block_slacks(W, blocks, float(c.sum()))[big]
            t0, c0 = time.perf_counter(), time.process_time()
            r = solve(SojournProblem(inst, Objective("B")), "lpcut", time_limit=limit_s, seed=0,
                      options={"threads": threads})  # fmt: skip
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            gap = None if r.bound is None or r.value is None else (r.value - r.bound) / slack
            rows.append([n, seed, r.status.value, round(wall, 1), round(cpu, 1),
                         r.stats.get("packing_rounds"), None if gap is None else round(gap, 1),
                         round(os.getloadavg()[0], 1)])  # fmt: skip
            print(rows[-1], flush=True)
    print(format_table(["n", "seed", "status", "wall s", "CPU s", "packing rounds",
                        "gap (closing slacks)", "load"], rows))  # fmt: skip
