"""Greedy cheapest-feasible plans and the baselines ESG compares with (reconstructions).

- greedy: function by function in topological order, the cheapest configuration whose finish
  time plus the fastest possible rest of the DAG still fits the budget (always finds a plan
  when one exists);
- static: fixed resources, no batching: batch 1 with the largest GPU share and vCPUs offered;
- batch (BATCH-like; Ali et al., SC 2020, on AWS Lambda): CPU-only configurations (GPU share
  0), any vCPUs and batch size; greedy over those;
- infless (INFless-like; Yang et al., ASPLOS 2022): CPU-only configurations and GPU shares of
  at most 50 % (INFless's MPS range 10-50 %), any vCPUs and batch size, each function the
  cheapest configuration within its own share of the budget (split in proportion to minimum
  latency, no look-ahead). The simulator's policies add each system's batch rule
  (`experiments/esg/policies.py`).
A baseline whose configuration space holds no plan that fits reports no plan with status
`timeout` (stats say `restricted`): `infeasible` would claim that no plan of the whole space
fits, which only greedy (whose space is the whole one) proves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from schedlab.solvers.esg.plan import longest_path, result
from schedlab.solvers.esg.problem import APP_KINDS, LAT_TOL, App, Function, fits_budget
from schedlab.solvers.options import NoOptions
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


def mask_all(f: Function) -> np.ndarray:
    return np.ones(len(f.configs), dtype=bool)


def mask_static(f: Function) -> np.ndarray:
    """Batch 1 at the largest (GPU share, vCPUs) offered with batch 1 (all when none has b=1)."""
    ones = [k for k, c in enumerate(f.configs) if c.batch == 1] or list(range(len(f.configs)))
    k = max(ones, key=lambda k: (f.configs[k].gpu_share, f.configs[k].vcpus, -k))
    m = np.zeros(len(f.configs), dtype=bool)
    m[k] = True
    return m


#: INFless's GPU shares: MPS active-thread percentages 10-50 % (its released estimator scans
#: 50, 40, 30, 20, 10 % and 0 = CPU-only); on the MIG grid that is 1/7, 2/7 and 3/7.
INFLESS_SHARE_RANGE = (0.1, 0.5)


def mask_cpu_only(f: Function) -> np.ndarray:
    """BATCH-like: CPU-only configurations (GPU share 0), any vCPUs and batch size."""
    return np.array([c.cpu_only for c in f.configs])


def mask_infless(f: Function) -> np.ndarray:
    """INFless-like: CPU-only, or a GPU share within INFLESS_SHARE_RANGE (1e-9 slack for
    shares written as rounded decimals); any vCPUs and batch size."""
    lo, hi = INFLESS_SHARE_RANGE
    return np.array([c.cpu_only or lo - 1e-9 <= c.gpu_share <= hi + 1e-9 for c in f.configs])


MASKS = {
    "greedy": mask_all,
    "static": mask_static,
    "batch": mask_cpu_only,
    "infless": mask_infless,
}


@dataclass(frozen=True)
class Masked:
    """Per-function stage latency and cost with the configurations outside the mask at +inf."""

    lat: list[np.ndarray]
    cost: list[np.ndarray]


def masked(app: App, policy: str) -> Masked:
    lats, costs = app.stage_latency(), app.stage_cost()
    ms = [MASKS[policy](f) for f in app.functions]
    return Masked(
        [np.where(m, a, np.inf) for a, m in zip(lats, ms, strict=True)],
        [np.where(m, c, np.inf) for c, m in zip(costs, ms, strict=True)],
    )


def greedy_choice(
    app: App, mk: Masked, budget: float, *, lookahead: bool = True
) -> list[int] | None:
    """Cheapest-feasible per function in topological order (None when nothing fits).

    With the look-ahead, a plan is found whenever one fits: the look-ahead's sums (budget
    minus the fastest rest) may round differently from the plan's own left-to-right sums at the
    tolerance's edge, so when the pass finds nothing the fastest plan is tried; it has the least
    latency of all plans (IEEE sums and max are monotone), so it fits when any plan does."""
    choice = _greedy_pass(app, mk, budget, lookahead=lookahead)
    if choice is not None or not lookahead:
        return choice
    fastest = [int(np.argmin(a)) for a in mk.lat]
    lat = longest_path(app, [float(a[k]) for a, k in zip(mk.lat, fastest, strict=True)])
    return fastest if fits_budget(lat, budget) else None


def _greedy_pass(app: App, mk: Masked, budget: float, *, lookahead: bool) -> list[int] | None:
    """One pass of `greedy_choice` in topological order (None when a function has no choice)."""
    order, preds = app.topo_order(), app.preds()
    fast = [float(a.min()) for a in mk.lat]
    succ: list[list[int]] = [[] for _ in fast]
    for i, ps in enumerate(preds):
        for p in ps:
            succ[p].append(i)
    tail = [0.0] * len(fast)  # longest fastest path after i finishes
    for i in reversed(order):
        tail[i] = max((fast[j] + tail[j] for j in succ[i]), default=0.0)
    head = [0.0] * len(fast)  # longest fastest path up to the end of i
    for i in order:
        head[i] = max((head[p] for p in preds[i]), default=0.0) + fast[i]
    total_fast = max(head)
    finish, choice = [0.0] * len(fast), [0] * len(fast)
    for i in order:
        start = max((finish[p] for p in preds[i]), default=0.0)
        if lookahead:
            limit = budget - tail[i] - start
        else:  # finish by its own share of the budget (in proportion to the fastest prefix)
            limit = budget * head[i] / total_fast - start if total_fast > 0 else budget - start
            if limit < fast[i]:
                limit = budget - tail[i] - start
        ok = mk.lat[i] <= limit + LAT_TOL
        if not ok.any():
            return None
        k = int(np.argmin(np.where(ok, mk.cost[i], np.inf)))
        if not np.isfinite(mk.cost[i][k]):
            return None
        choice[i], finish[i] = k, start + float(mk.lat[i][k])
    return choice if max(finish) <= budget + LAT_TOL else None


def _baseline(app: App, policy: str, name: str) -> SolveResult:
    t0 = time.perf_counter()
    choice = greedy_choice(app, masked(app, policy), app.budget, lookahead=policy != "infless")
    restricted = policy != "greedy"
    stats = {"restricted": restricted}
    return result(app, choice, name, t0, exact=False, proven_infeasible=not restricted, stats=stats)


@register_method(
    "esg",
    "greedy",
    exact=False,
    kinds=APP_KINDS,
    summary="cheapest feasible configuration per stage",
)
def solve_greedy(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: NoOptions
) -> SolveResult:
    """Greedy cheapest-feasible with a fastest-rest look-ahead."""
    return _baseline(app, "greedy", "greedy")


@register_method(
    "esg", "static", exact=False, kinds=APP_KINDS, summary="fixed resources, no batching"
)
def solve_static(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: NoOptions
) -> SolveResult:
    """Batch 1 at the largest resources offered."""
    return _baseline(app, "static", "static")


@register_method(
    "esg", "batch", exact=False, kinds=APP_KINDS, summary="BATCH-like: batching on CPUs only"
)
def solve_batch(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: NoOptions
) -> SolveResult:
    """Any batch size and vCPUs on CPU-only configurations (Lambda has no GPU)."""
    return _baseline(app, "batch", "batch")


@register_method(
    "esg", "infless", exact=False, kinds=APP_KINDS, summary="INFless-like: CPU or MPS 10-50 %"
)
def solve_infless(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: NoOptions
) -> SolveResult:
    """CPU-only or GPU shares up to 50 %, each function within its own budget share."""
    return _baseline(app, "infless", "infless")
