"""Claim 14: ESG's A* with dual-blade pruning returns the cheapest configuration path in the SLO.

ESG (Hui et al., HPDC 2024) configures a queue's remaining pipeline stages (batch, vCPUs, GPU
share per function) by an A* search over configuration paths (ESG_1Q), pruned by its
"dual-blade": a latency blade drops a partial path that cannot finish within the SLO even with
the fastest remaining stages, a cost blade one that cannot beat the cheapest complete path
found. The paper presents this search as returning the lowest-cost configuration that meets the
SLO, faster than searching every path (docs/esg.md). ESG's code is not public: the search
checked here is schedlab's reconstruction (solvers/esg/astar.py, the method in exact_astar.py).

Check, on random chains (2..6 stages, 4..12 configurations per stage, the seeded profile
families of `solvers/esg/generate.py`) with latency budgets spread from below the fastest path
(infeasible) to above the slowest, and budgets set exactly to one path's latency (a tie at the
boundary): the A* answer in two settings,

- "paper": latency blade, cost blade and Pareto pre-filter, with the heuristic "sum of the
  remaining stages' minimum costs" and without schedlab's dominance pruning;
- "schedlab": the default (the DP lower-bound heuristic and the dominance pruning added),

against the exact oracle, the enumeration of every path (`brute`, numpy back end: every
configuration path, no pruning), and on every k-th chain the MILP as a second oracle. The A*
plan is re-evaluated from the raw configuration data: its summed latency must fit the budget
and its cost must equal the oracle's minimum (relative 1e-9); "no plan" must coincide with the
oracle's infeasible. Inject `plan_fn` (e.g. the stage-wise greedy) to see the check fail.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.problem import LAT_TOL, App
from schedlab.solvers.result import PROOF_TOL, SolveResult, Status
from schedlab.solvers.solve import solve
from schedlab.solvers.util import atomic_write_text
from schedlab.theory.claims import register_claim
from schedlab.theory.verdict import (
    RunnerFactory,
    Verdict,
    instance_seed,
    rows_for,
    settings,
    theory_dir,
    verdict_from,
)

CLAIM_ID = "14"
TITLE = "ESG's A* with dual-blade pruning returns the cheapest configuration path within the SLO"
REL_TOL = 1e-9
PAPER = {"latency_blade": True, "cost_blade": True, "pareto": True, "dominance": False,
         "dp_buckets": 0}  # fmt: skip
DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {"chains": 40, "max_stages": 5, "max_configs": 10, "milp_every": 5},
    "full": {"chains": 2_000, "max_stages": 6, "max_configs": 12, "milp_every": 10},
}
PlanFn = Callable[[App], dict[str, SolveResult]]


def astar_plans(app: App) -> dict[str, SolveResult]:
    """The A* under test, in the paper's setting and in schedlab's default."""
    return {
        "paper": solve(app, "astar", options=PAPER),
        "schedlab": solve(app, "astar"),
    }


def draw_chain(seed: int, max_stages: int, max_configs: int) -> App:
    """A random chain with a random budget (sometimes infeasible, sometimes a path's latency)."""
    rng = np.random.default_rng(seed)
    stages = int(rng.integers(2, max_stages + 1))
    app = generate(stages, int(rng.integers(4, max_configs + 1)), seed)
    lats = app.stage_latency()
    lo, hi = sum(float(x.min()) for x in lats), sum(float(x.max()) for x in lats)
    kind = int(rng.integers(4))
    if kind == 0:  # exactly the latency of one random path: the optimum may sit on the boundary
        budget = sum(float(x[int(rng.integers(len(x)))]) for x in lats)
    elif kind == 1:  # below the fastest path: infeasible
        budget = lo * float(rng.uniform(0.5, 0.999))
    else:
        budget = lo + (hi - lo) * float(rng.uniform(-0.05, 1.1))
    return app.with_budget(max(budget, 1e-3))


def plan_latency_cost(app: App, result: SolveResult) -> tuple[float, float]:
    """(summed stage latency, cost) of a result's plan, from the raw configuration data."""
    plan = result.solution
    lats, costs = app.stage_latency(), app.stage_cost()
    ks = [plan.configs[f.id] for f in app.functions]  # type: ignore[union-attr]
    lat = sum(float(lats[i][k]) for i, k in enumerate(ks))
    return lat, float(sum(float(costs[i][k]) for i, k in enumerate(ks)))


def check_plan(app: App, result: SolveResult, opt: float | None) -> str | None:
    """Why `result` is not the oracle's answer (None when it is)."""
    if opt is None:
        return None if result.status == Status.INFEASIBLE else f"{result.status.value}, none fits"
    if result.solution is None or result.status != Status.OPTIMAL:
        return f"{result.status.value} with no plan, optimum {opt:.6g}"
    lat, cost = plan_latency_cost(app, result)
    if lat > app.budget + LAT_TOL:
        return f"latency {lat:.6g} ms over the budget {app.budget:.6g}"
    if abs(cost - opt) > REL_TOL * max(abs(opt), 1e-300):
        return f"cost {cost:.9g} vs optimum {opt:.9g}"
    return None


def reason(why: str) -> str:
    """The kind of a `check_plan` message: over_budget, cost or feasibility."""
    if "over the budget" in why:
        return "over_budget"
    return "cost" if why.startswith("cost") else "feasibility"


def astar_row(app: App, plan_fn: PlanFn, milp: bool) -> dict[str, Any]:
    """One chain: the enumeration optimum and each A* setting's disagreement with it."""
    brute = solve(app, "brute", options={"backend": "numpy"})
    opt = brute.value if brute.status == Status.OPTIMAL else None
    assert brute.status in (Status.OPTIMAL, Status.INFEASIBLE), brute.stats
    row: dict[str, Any] = {
        "stages": len(app.functions),
        "configs": [len(f.configs) for f in app.functions],
        "budget_ms": app.budget,
        "opt": opt,
        "wrong": {},
        "nodes_expanded": {},
        "oracle_diff": None,
    }
    excess = 0.0
    for name, res in plan_fn(app).items():
        why = check_plan(app, res, opt)
        if why is not None:
            row["wrong"][name] = why
        if opt is not None and res.solution is not None:
            excess = max(excess, (plan_latency_cost(app, res)[1] - opt) / max(abs(opt), 1e-300))
        row["nodes_expanded"][name] = res.stats.get("nodes_expanded")
    row["excess"] = excess
    if milp:
        m = solve(app, "milp")
        m_opt = m.value if m.status == Status.OPTIMAL else None
        if (m_opt is None) != (opt is None):
            row["oracle_diff"] = float("inf")
        elif opt is not None and m_opt is not None:
            row["oracle_diff"] = abs(m_opt - opt) / max(abs(opt), 1e-300)
        else:
            row["oracle_diff"] = 0.0
    return row


def _astar_cell(
    key: dict[str, Any], *, seed: int, plan_fn: PlanFn, max_stages: int, max_configs: int,
    every: int,
) -> dict[str, Any]:  # fmt: skip
    """The row of cell i (module-level, so a sweep can send it to workers)."""
    s = instance_seed(seed, 0, key["i"])
    app = draw_chain(s, max_stages, max_configs)
    return {"instance_seed": s, **astar_row(app, plan_fn, key["i"] % every == 0)}


@register_claim(CLAIM_ID, "esg-astar-optimal", TITLE)
def claim_astar_optimal(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    plan_fn: PlanFn = astar_plans,
    **overrides: Any,
) -> Verdict:
    """Claim 14. `plan_fn` gives the plans under test (inject a heuristic to see it fail)."""
    cfg = settings(DEFAULTS, size, overrides)
    name = getattr(plan_fn, "__name__", "custom")
    config = {"check": "esg-astar", "seed": seed, **cfg, "plans": name}
    compute = partial(_astar_cell, seed=seed, plan_fn=plan_fn, max_stages=cfg["max_stages"],
                      max_configs=cfg["max_configs"], every=cfg["milp_every"])  # fmt: skip
    rows = rows_for(runner, "esg-astar", ["i"], config, [{"i": i} for i in range(cfg["chains"])],
                    compute)  # fmt: skip
    wrong = [r for r in rows if r["wrong"]]
    disagree = [r for r in rows if r["oracle_diff"] is not None and r["oracle_diff"] > 1e-6]
    by_setting: dict[str, int] = {}
    by_reason: dict[str, int] = {}
    for r in wrong:
        for s, why in r["wrong"].items():
            by_setting[s] = by_setting.get(s, 0) + 1
            by_reason[reason(why)] = by_reason.get(reason(why), 0) + 1
    worst: dict[str, Any] = {
        "value": max((r["excess"] for r in rows), default=0.0),
        "measure": "largest relative cost of an A* plan above the enumeration's optimum "
        "(a plan over the budget or a wrong infeasible is in `why`)",
        "instance": None,
    }
    files = []
    if wrong:
        w = max(wrong, key=lambda r: r["excess"])
        app = draw_chain(w["instance_seed"], cfg["max_stages"], cfg["max_configs"])
        path = theory_dir(outdir) / f"claim{CLAIM_ID}-worst.json"
        atomic_write_text(path, app.to_json() + "\n")
        worst.update(instance_seed=w["instance_seed"], budget_ms=w["budget_ms"], why=w["wrong"])
        worst["instance"] = str(path)
        files.append(str(path))
    feasible = [r for r in rows if r["opt"] is not None]
    nodes = {
        s: float(np.median([r["nodes_expanded"][s] or 0 for r in rows]))
        for s in (rows[0]["nodes_expanded"] if rows else {})
    }
    evidence: dict[str, Any] = {
        "chains": len(rows),
        "feasible": len(feasible),
        "infeasible": len(rows) - len(feasible),
        "wrong_by_setting": by_setting,
        "wrong_by_reason": by_reason,
        "median_nodes_expanded": nodes,
        "median_paths": float(np.median([float(np.prod(r["configs"])) for r in rows])),
        "milp_checked": sum(r["oracle_diff"] is not None for r in rows),
        "brute_milp_disagreements": len(disagree),
        "paper_setting": PAPER,
        "plans": name,
        "settings": cfg,
    }
    summary = (
        f"A* = enumeration on {len(rows) - len(wrong)}/{len(rows)} chains ({len(feasible)} "
        f"feasible, {len(rows) - len(feasible)} infeasible budgets; settings: "
        f"{', '.join(nodes) or 'none'}); wrong by setting: {by_setting or 0} (worst cost "
        f"excess {worst['value']:.3g}); median nodes expanded {nodes} of "
        f"{evidence['median_paths']:.3g} paths"
    )
    return Verdict(
        CLAIM_ID,
        TITLE,
        verdict_from(not wrong, bool(disagree), enough=bool(rows)),
        len(rows),
        worst,
        {"rel_tol": REL_TOL, "lat_tol_ms": LAT_TOL, "proof_tol": PROOF_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )
