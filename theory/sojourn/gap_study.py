"""Gap of Smith's rule and of the u*-index to the exact B optimum as n grows (claim 7).

One implementation serves claim 7 and the figure `sojourn-gap`: `gap_rows` computes one row
per random instance (resumable through a Runner), `summarize` turns rows into per-n
statistics and the fitted slope of log(gap) against log(n).

Exact optimum: the subset DP for n <= DP_MAX_N, else the registered CP-SAT (or MILP)
linear-ordering model under a time limit. That model is checked against the DP on the rows
with CROSSCHECK_MIN_N <= n <= DP_MAX_N, and above DP_MAX_N its order is checked to admit no
improving insertion move (a necessary condition). A row whose exact solve did not prove
optimality is never counted as optimal: it is left out of the gap statistics and counted, and
its gap to the solver's proven bound (an upper bound on the true gap) is reported separately.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.sojourn.batch import linear_ordering_weights
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.heuristics import order_by_index, smith_key, u_index
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import METHODS, solve
from schedlab.theory.verdict import RunnerFactory, instance_seed, rel_gap, rows_for

DP_MAX_N = 20
ZERO_TOL = 1e-9  # relative gaps at or below this count as zero (the heuristic is optimal)
HEURISTICS = ("smith", "uindex")
LARGE_N_METHODS = ("cpsat", "milp")
CYCLIC_METHODS = ("lpcut", "cpsat", "milp")  # the cyclic family: the method that proves most
CROSSCHECK_MIN_N = 10  # from here to DP_MAX_N the large-n method is checked against the DP
ROW_FORMAT = 2  # bump when a row's fields change, so journals of older rows are not reused

GAP_CONFIGS: dict[str, dict[str, Any]] = {
    # tests and the notebook
    "tiny": {"ns": [4, 6, 8], "count": 5, "max_checkpoints": 3, "time_limit_s": 10.0},
    # claim 7 at size small (a few seconds)
    "claim-small": {"ns": [4, 6, 8, 10, 12], "count": 12, "max_checkpoints": 3,
                    "time_limit_s": 10.0},
    # figure sojourn-gap at size small (about a minute)
    "small": {"ns": [5, 8, 11, 14, 17, 20], "count": 20, "max_checkpoints": 3,
              "time_limit_s": 10.0},
    # claim 7 and the figure at size full (the sizes)
    "full": {"ns": [5, 10, 20, 50, 100, 200], "count": 100, "max_checkpoints": 3,
             "time_limit_s": 120.0},
    # figure sojourn-gap --family cyclic (one large preference component: solver proofs)
    "cyclic-small": {"ns": [10, 15, 20, 30, 45, 60], "count": 10, "max_checkpoints": 1,
                     "time_limit_s": 60.0, "family": "cyclic"},
    "cyclic-full": {"ns": [10, 20, 30, 45, 60, 80], "count": 50, "max_checkpoints": 1,
                    "time_limit_s": 120.0, "family": "cyclic"},
}  # fmt: skip


def exact_b(inst: Instance, time_limit_s: float, family: str = "default") -> SolveResult:
    """The exact B optimum: subset DP up to DP_MAX_N jobs, else CP-SAT or MILP if registered
    (lpcut on the cyclic family, where every proof needs a solver)."""
    obj = Objective("B")
    if inst.n <= DP_MAX_N:
        return solve(SojournProblem(inst, obj), "dp")
    method = large_n_method(family)
    if method is not None:
        return solve(SojournProblem(inst, obj), method, time_limit=time_limit_s, seed=0)
    return SolveResult(Status.ERROR, None, None, None, "none", 0.0,
                       {"reason": f"no exact method for n > {DP_MAX_N} is registered"})  # fmt: skip


def heuristic_orders(inst: Instance) -> dict[str, list[int]]:
    return {"smith": order_by_index(smith_key(inst)), "uindex": order_by_index(u_index(inst))}


def large_n_method(family: str = "default") -> str | None:
    """The exact method used above DP_MAX_N jobs (None when none is registered)."""
    names = METHODS.names(scope="sojourn", exact=True)
    prefer = CYCLIC_METHODS if family == "cyclic" else LARGE_N_METHODS
    return next((m for m in prefer if m in names), None)


def solver_checks(
    inst: Instance, res: SolveResult, time_limit_s: float, family: str = "default"
) -> dict[str, Any]:
    """Independent checks of the exact answer: at CROSSCHECK_MIN_N <= n <= DP_MAX_N the
    large-n method against the DP; above, that no insertion move improves its order."""
    out: dict[str, Any] = {"crosscheck_rel_diff": None, "insertion_improvement": None}
    if not res.is_optimal or res.value is None:
        return out
    obj = Objective("B")
    method = large_n_method(family)
    if CROSSCHECK_MIN_N <= inst.n <= DP_MAX_N and method is not None:
        other = solve(SojournProblem(inst, obj), method, time_limit=time_limit_s, seed=0)
        if other.is_optimal and other.value is not None:
            out["crosscheck_rel_diff"] = abs(rel_gap(other.value, res.value))
    elif inst.n > DP_MAX_N:
        order = inst.order_from_ids(res.solution)
        out["insertion_improvement"] = best_insertion_gain(inst, order) / abs(res.value)
    return out


def best_insertion_gain(inst: Instance, order: Sequence[int]) -> float:
    """The largest decrease of B from moving one job to another position (0 if none), in
    O(n^2) from the linear-ordering weights: moving the job at position x behind position y
    changes the cost by sum_{x<k<=y} (W[o_k, o_x] - W[o_x, o_k]), and symmetrically."""
    _, W = linear_ordering_weights(inst, Objective("B"))
    o = np.asarray(order, dtype=np.int64)
    M = W[np.ix_(o, o)]
    A = M.T - M  # A[x, k]: change when o_k passes from after o_x to before it
    best = 0.0
    for x in range(len(o)):
        fwd = np.cumsum(A[x, x + 1 :])
        back = np.cumsum(-A[x, :x][::-1])
        for d in (fwd, back):
            if len(d):
                best = min(best, float(d.min()))
    return max(0.0, -best)


def gap_row(
    n: int, inst_seed: int, max_checkpoints: int, time_limit_s: float, family: str = "default"
) -> dict[str, Any]:
    """One instance: exact B optimum (or the solver's status and bound) and both gaps."""
    inst = generate(n, inst_seed, max_checkpoints=max_checkpoints, family=family)
    obj = Objective("B")
    res = exact_b(inst, time_limit_s, family)
    row: dict[str, Any] = {
        "instance_seed": inst_seed,
        "status": res.status.value,
        "method": res.method,
        "solve_s": res.runtime_s,
        "opt": res.value if res.is_optimal else None,
        "best_found": res.value,
        "bound": res.bound,
        "solver_calls": res.stats.get("solver_calls"),  # 0: the pairwise-minimum argument
        **solver_checks(inst, res, time_limit_s, family),
    }
    for name, order in heuristic_orders(inst).items():
        v = evaluate(inst, order, obj)
        row[f"v_{name}"] = v
        row[f"gap_{name}"] = rel_gap(v, res.value) if res.is_optimal and res.value else None
        row[f"gap_{name}_vs_bound"] = (
            rel_gap(v, res.bound) if not res.is_optimal and res.bound else None
        )
    return row


def gap_rows(
    config: dict[str, Any], seed: int, runner: RunnerFactory | None = None
) -> list[dict[str, Any]]:
    """Rows for every (n, i) of `config`, computed through `runner` (resumable)."""
    settings = {"check": "sojourn-gap", "row_format": ROW_FORMAT, "seed": seed, **config}
    keys = [{"n": n, "i": i} for n in config["ns"] for i in range(config["count"])]
    compute = partial(gap_cell, config=config, seed=seed)
    return rows_for(runner, "gap-rows", ["n", "i"], settings, keys, compute)


def gap_cell(key: dict[str, Any], *, config: dict[str, Any], seed: int) -> dict[str, Any]:
    """The row of cell (n, i): module-level, so a sweep can send it to worker processes."""
    s = instance_seed(seed, key["n"], key["i"])
    family = config.get("family", "default")
    return gap_row(key["n"], s, config["max_checkpoints"], config["time_limit_s"], family)


def fit_slope(ns: Sequence[float], values: Sequence[float]) -> float | None:
    """Least-squares slope of log(value) on log(n) over the positive values (None if < 2)."""
    pts = [(math.log(n), math.log(v)) for n, v in zip(ns, values, strict=True) if v and v > 0]
    if len(pts) < 2:
        return None
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def _stats(gaps: list[float]) -> dict[str, Any]:
    a = np.array(gaps, dtype=float)
    if len(a) == 0:
        return {"count": 0, "median": None, "p90": None, "mean": None, "max": None,
                "share_zero": None, "below_solver": 0}  # fmt: skip
    clipped = np.where(np.abs(a) <= ZERO_TOL, 0.0, a)
    return {
        "count": int(len(a)),
        "median": float(np.median(clipped)),
        "p90": float(np.percentile(clipped, 90)),
        "mean": float(clipped.mean()),
        "max": float(clipped.max()),
        "share_zero": float(np.mean(clipped == 0.0)),
        "below_solver": int(np.sum(a < -ZERO_TOL)),
    }


def proof_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """How the proven rows were proved: subset DP, a solver, or the pairwise-minimum argument
    (a transitive preference tournament: no solver call)."""
    out = {"subset DP": 0, "solver": 0, "pairwise minimum": 0, "unknown": 0}
    for r in rows:
        calls = r.get("solver_calls")
        if r["method"] == "dp":
            out["subset DP"] += 1
        elif calls is None:
            out["unknown"] += 1
        else:
            out["solver" if calls else "pairwise minimum"] += 1
    return out


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-n statistics (median, p90, mean, share of zero gaps) and fitted slopes."""
    ns = sorted({r["n"] for r in rows})
    per_n = []
    for n in ns:
        rs = [r for r in rows if r["n"] == n]
        proven = [r for r in rs if r["status"] == Status.OPTIMAL.value]
        entry: dict[str, Any] = {
            "n": n,
            "instances": len(rs),
            "proven_optimal": len(proven),
            "not_proven": len(rs) - len(proven),
            "statuses": sorted({r["status"] for r in rs}),
            "methods": sorted({r["method"] for r in rs}),
            "max_solve_s": max(r["solve_s"] for r in rs),
            "crosschecked": sum(r.get("crosscheck_rel_diff") is not None for r in rs),
            "max_crosscheck_rel_diff": max(
                (r["crosscheck_rel_diff"] for r in rs if r.get("crosscheck_rel_diff") is not None),
                default=None,
            ),
            "proofs": proof_counts(proven),
            "insertion_checked": sum(r.get("insertion_improvement") is not None for r in rs),
            "max_insertion_improvement": max(
                (
                    r["insertion_improvement"]
                    for r in rs
                    if r.get("insertion_improvement") is not None
                ),
                default=None,
            ),
        }
        for h in HEURISTICS:
            entry[h] = _stats([r[f"gap_{h}"] for r in proven])
            ub = [r[f"gap_{h}_vs_bound"] for r in rs if r.get(f"gap_{h}_vs_bound") is not None]
            entry[h]["max_gap_vs_bound_unproven"] = max(ub) if ub else None
        per_n.append(entry)
    slopes: dict[str, Any] = {}
    for h in HEURISTICS:
        for stat in ("mean", "p90", "median"):
            pts = [(e["n"], e[h][stat]) for e in per_n if e[h]["count"]]
            slopes[f"{h}_{stat}"] = fit_slope([p[0] for p in pts], [p[1] for p in pts])
            slopes[f"{h}_{stat}_points"] = sum(1 for p in pts if p[1] and p[1] > 0)
    return {
        "per_n": per_n,
        "slopes": slopes,
        "fit": "least squares of log(statistic) on log(n) over the n where it is positive; "
        "the headline slope uses the mean gap (zero gaps kept in the mean)",
        "zero_tol": ZERO_TOL,
    }
