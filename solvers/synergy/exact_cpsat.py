"""Exact allocation by CP-SAT: the same model as the MILP on integer-scaled data.

CP-SAT needs integer coefficients: CPUs, memory and throughput are multiplied by the smallest
power of ten (up to 10^6) that makes every value an integer (20.83 GB -> x100). Resources must
scale exactly (else the model would not be the true one, and InvalidInput says so); a
throughput that does not scale exactly is rounded up, which keeps the reported bound an upper
bound but then only a solution reaching that bound is called optimal. The reported value is
always recomputed from the decoded allocation in true units; the bound is CP-SAT's
`best_objective_bound` divided by the scale. A hint from rounded Synergy-OPT speeds up the
search (it changes no result, only how fast it is found).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from typing import Any

from ortools.sat.python import cp_model

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.synergy.allocation import Allocation, total_tput
from schedlab.solvers.synergy.exact_common import (
    ExactStructure,
    build_structure,
    decode,
    relaxation_bound,
)
from schedlab.solvers.synergy.methods import SYNERGY_METHODS
from schedlab.solvers.synergy.model import Snapshot
from schedlab.solvers.synergy.solution import make_result

SCALES = (1, 10, 100, 1000, 10_000, 100_000, 1_000_000)


def integer_scale(values: Iterable[float]) -> tuple[int, bool]:
    """Smallest power of ten making every value integral (within 1e-9); (scale, exact)."""
    vals = list(values)
    for sc in SCALES:
        if all(abs(v * sc - round(v * sc)) <= 1e-9 * max(1.0, abs(v * sc)) for v in vals):
            return sc, True
    return SCALES[-1], False


def _hint_from(
    st: ExactStructure, alloc: Allocation
) -> tuple[dict[tuple[int, int, int], int], dict[int, tuple[int, dict[int, int]]]]:
    """Counts/choices of an allocation that lies in the exact model's set (else empty)."""
    pos = {j.id: i for i, j in enumerate(st.snap.jobs)}
    tindex = {k: ti for ti, (k, _p) in enumerate(st.types)}
    counts: dict[tuple[int, int, int], int] = {}
    multi: dict[int, tuple[int, dict[int, int]]] = {}
    for a in alloc.jobs:
        j = pos[a.job_id]
        k = st.models[j]
        cfgs = st.configs.get(k, [])
        qi = next(
            (
                i
                for i, (c, m, _t) in enumerate(cfgs)
                if math.isclose(c, a.cpus_per_gpu, abs_tol=1e-9)
                and math.isclose(m, a.mem_gb_per_gpu, abs_tol=1e-9)
            ),
            -1,
        )
        if qi < 0:
            return {}, {}
        if st.snap.jobs[j].gpus == 1:
            key = (tindex[k], qi, a.parts[0].server)
            counts[key] = counts.get(key, 0) + 1
        else:
            multi[j] = (qi, {p.server: p.gpus for p in a.parts})
    return counts, multi


@SYNERGY_METHODS.register(
    "cpsat", exact=True, summary="exact CP-SAT (integer-scaled): configurations + placement"
)
def solve_cpsat(
    snap: Snapshot,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
    run_set: str = "proportional",
    workers: int = 1,
    max_deterministic_time: float | None = None,
    hint: bool = True,
    relaxation_cut: bool = True,
    **_: Any,
) -> SolveResult:
    """Exact optimum of the round by CP-SAT (status, true value, sound bound).

    With `relaxation_cut`, the proven optimum over cluster-wide totals caps the objective."""
    t0 = time.perf_counter()
    st = build_structure(snap, run_set)
    cl = snap.cluster
    S, G = cl.servers, cl.gpus_per_server
    all_cfgs = [q for k in st.configs for q in st.configs[k]]
    cs, c_exact = integer_scale([cl.cpus_per_server] + [q[0] for q in all_cfgs])
    ms, m_exact = integer_scale([cl.mem_gb_per_server] + [q[1] for q in all_cfgs])
    ts, t_exact = integer_scale([q[2] for q in all_cfgs])
    if not (c_exact and m_exact):
        raise InvalidInput(
            "cpsat: CPU or memory values are not exact decimals with at most 6 places; "
            "use method milp"
        )
    stats: dict[str, Any] = {
        "run_set": run_set,
        "scale_cpu": cs,
        "scale_mem": ms,
        "scale_tput": ts,
        "tput_scaling_exact": t_exact,
    }
    if not st.scope:
        return make_result(
            snap,
            decode(st, {}, {}),
            "cpsat",
            time.perf_counter() - t0,
            status=Status.OPTIMAL,
            bound=0.0,
            stats=stats,
        )

    def ic(v: float) -> int:
        return int(round(v * cs))

    def im(v: float) -> int:
        return int(round(v * ms))

    def it(v: float) -> int:
        return int(round(v * ts)) if t_exact else int(math.ceil(v * ts - 1e-9))

    md = cp_model.CpModel()
    w: dict[tuple[int, int, int], Any] = {}
    for ti, (k, pos) in enumerate(st.types):
        for qi in range(len(st.configs[k])):
            for s in range(S):
                w[ti, qi, s] = md.new_int_var(0, min(len(pos), G), f"w_{ti}_{qi}_{s}")
    y: dict[tuple[int, int], Any] = {}
    z: dict[tuple[int, int, int], Any] = {}
    for j in st.multi:
        g = snap.jobs[j].gpus
        for qi in range(len(st.configs[st.models[j]])):
            y[j, qi] = md.new_bool_var(f"y_{j}_{qi}")
            for s in range(S):
                z[j, qi, s] = md.new_int_var(0, min(g, G), f"z_{j}_{qi}_{s}")
    obj = []
    for ti, (k, pos) in enumerate(st.types):
        cfgs = st.configs[k]
        n_run = sum(w[ti, qi, s] for qi in range(len(cfgs)) for s in range(S))
        md.add(n_run == len(pos)) if st.must_run else md.add(n_run <= len(pos))
        obj += [it(cfgs[qi][2]) * w[ti, qi, s] for qi in range(len(cfgs)) for s in range(S)]
    for j in st.multi:
        g = snap.jobs[j].gpus
        cfgs = st.configs[st.models[j]]
        pick = sum(y[j, qi] for qi in range(len(cfgs)))
        md.add(pick == 1) if st.must_run else md.add(pick <= 1)
        for qi in range(len(cfgs)):
            md.add(sum(z[j, qi, s] for s in range(S)) == g * y[j, qi])
            for s in range(S):
                md.add(z[j, qi, s] <= min(g, G) * y[j, qi])
            obj.append(g * it(cfgs[qi][2]) * y[j, qi])
    gpu_use = []
    for s in range(S):
        g_terms, c_terms, m_terms = [], [], []
        for ti, (k, _pos) in enumerate(st.types):
            for qi, (c, m, _t) in enumerate(st.configs[k]):
                g_terms.append(w[ti, qi, s])
                c_terms.append(ic(c) * w[ti, qi, s])
                m_terms.append(im(m) * w[ti, qi, s])
        for j in st.multi:
            for qi, (c, m, _t) in enumerate(st.configs[st.models[j]]):
                g_terms.append(z[j, qi, s])
                c_terms.append(ic(c) * z[j, qi, s])
                m_terms.append(im(m) * z[j, qi, s])
        used = sum(g_terms)
        gpu_use.append(used)
        md.add(used <= G)
        md.add(sum(c_terms) <= ic(cl.cpus_per_server))
        md.add(sum(m_terms) <= im(cl.mem_gb_per_server))
    for s in range(S - 1):
        md.add(gpu_use[s] >= gpu_use[s + 1])
    rel = relaxation_bound(st) if relaxation_cut else None
    stats["relaxation_bound"] = rel
    if rel is not None:
        # rel is a sum of scaled integers / ts: rounding recovers it exactly (exact scaling);
        # with rounded-up throughputs the scaled optimum can only be larger, so no cut.
        if t_exact:
            md.add(sum(obj) <= int(round(rel * ts)))
    md.maximize(sum(obj))
    if hint and st.must_run:
        from schedlab.solvers.synergy.methods import solve

        start = solve(snap, "opt")
        counts_h, multi_h = _hint_from(st, Allocation.from_dict(start.solution))
        if counts_h or multi_h:
            # servers sorted by GPU use, as the symmetry breaking requires
            use = [0] * S
            for (_ti, _qi, s), n in counts_h.items():
                use[s] += n
            for _j, (_qi, parts) in multi_h.items():
                for s, n in parts.items():
                    use[s] += n
            order = sorted(range(S), key=lambda s: -use[s])
            ren = {old: new for new, old in enumerate(order)}
            for (ti, qi, s), v in w.items():
                md.add_hint(
                    v,
                    sum(
                        n for (a, b, c), n in counts_h.items() if (a, b) == (ti, qi) and ren[c] == s
                    ),
                )
            for (j, qi), v in y.items():
                md.add_hint(v, int(j in multi_h and multi_h[j][0] == qi))
            for (j, qi, s), v in z.items():
                n = 0
                if j in multi_h and multi_h[j][0] == qi:
                    n = sum(g for s0, g in multi_h[j][1].items() if ren[s0] == s)
                md.add_hint(v, n)
            stats["hint_value"] = start.value
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    if max_deterministic_time is not None:
        solver.parameters.max_deterministic_time = float(max_deterministic_time)
    if seed is not None:
        solver.parameters.random_seed = int(seed)
    code = solver.solve(md)
    stats.update(
        cpsat_status=solver.status_name(code),
        branches=solver.num_branches,
        conflicts=solver.num_conflicts,
        wall_time_s=solver.wall_time,
    )
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        runtime = time.perf_counter() - t0
        if code == cp_model.INFEASIBLE:
            return SolveResult(Status.INFEASIBLE, None, None, None, "cpsat", runtime, stats)
        bound = rel if rel is not None else relaxation_bound(st)
        return SolveResult(Status.TIMEOUT, None, bound, None, "cpsat", runtime, stats)
    counts = {key: int(solver.value(v)) for key, v in w.items()}
    multi: dict[int, tuple[int, dict[int, int]]] = {}
    for (j, qi), v in y.items():
        if solver.value(v):
            parts = {s: int(solver.value(z[j, qi, s])) for s in range(S)}
            multi[j] = (qi, {s: n for s, n in parts.items() if n > 0})
    alloc = decode(st, counts, multi)
    value = total_tput(snap, alloc)
    bound = float(solver.best_objective_bound) / ts
    if rel is not None and rel < bound:
        bound = rel
    if code == cp_model.OPTIMAL and t_exact:
        status = Status.OPTIMAL
        bound = value
    elif value >= bound - 1e-9 * max(1.0, abs(bound)):
        status = Status.OPTIMAL
    else:
        status = Status.FEASIBLE
    return make_result(
        snap, alloc, "cpsat", time.perf_counter() - t0, status=status, bound=bound, stats=stats
    )
