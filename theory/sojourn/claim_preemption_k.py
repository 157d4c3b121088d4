"""Claims 3a (TK) and 3b (DK): the first K successes need no preemption (the short paper).

The SIGMETRICS PER version states that minimizing the time to complete the first K successful
jobs on one server needs no preemption, even when preemption costs nothing. For each small
random instance (n <= 5, <= 3 checkpoints per job) and every K = 1..n, three exact values come
from the policy DP over job states (theory.sojourn.policy_dp): the optimal checkpoint-
preemptive policy, the optimal adaptive non-preemptive policy (the next job may depend on the
outcomes seen; a started job runs to its end) and the best fixed order (subset DP of
solvers.sojourn, re-evaluated by the policy DP against the closed form). The check holds when
neither policy class beats the best fixed order by more than the tolerance.

Searched instances: the gains are exactly zero where the claim holds, which gives a search
nothing to climb. The search descends instead on the order's margin (`policy_dp.order_margin`):
the smallest amount by which the best fixed order's next step beats every alternative step
(a preemption or another job) at the states it reaches. A negative margin is a better step,
so the search walks toward the boundary where a counterexample would appear.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.claim_preemption import (
    REL_TOL,
    gain_stats,
    inconsistencies,
    perturb_instance,
    policy_preempts,
)
from schedlab.theory.sojourn.evidence import save_instance
from schedlab.theory.sojourn.policy_dp import (
    PolicySolver,
    evaluate_policy_exact,
    initial_state,
    optimal_policy,
    order_margin,
)
from schedlab.theory.verdict import (
    RunnerFactory,
    Verdict,
    instance_seed,
    rel_gap,
    rows_for,
    settings,
    verdict_from,
)

DEFAULTS: dict[str, dict[str, Any]] = {
    "small": {"ns": [2, 3, 4], "per_n": 3, "max_checkpoints": 2, "climb_ns": [4],
              "climb_steps": 6},
    "full": {"ns": [2, 3, 4, 5], "per_n": 16, "max_checkpoints": 3, "climb_ns": [3, 4, 5],
             "climb_steps": 15},
}  # fmt: skip
CLAIM_TITLES = {
    "TK": "TK (time of the K-th success): neither checkpoint preemption nor adaptivity beats "
    "the best fixed order, every K",
    "DK": "DK (sum of the first K successes' completion times): neither checkpoint preemption "
    "nor adaptivity beats the best fixed order, every K",
}
CLAIM_IDS = {"TK": "3a", "DK": "3b"}
OrderFn = Callable[[Instance, Objective], Sequence[int]]
GAINS = ("gain_preemptive_over_fixed", "gain_adaptive_over_fixed", "gain_preemptive_over_adaptive")


def best_order_dp_k(inst: Instance, obj: Objective) -> list[int]:
    """The best non-preemptive order for `obj` by the exact subset DP."""
    res = solve(SojournProblem(inst, obj), "dp")
    return list(inst.order_from_ids(res.solution))


def compare_k(inst: Instance, kind: str, k: int, best_order: OrderFn) -> dict[str, Any]:
    """Exact values of the three policy classes for TK/DK at K = k, with margins and checks."""
    obj = Objective(kind, k)
    order = list(best_order(inst, obj))
    v_fixed = evaluate(inst, order, obj)
    v_fixed_dp = optimal_policy(inst, kind, "fixed", order, k=k).value
    pre = PolicySolver(inst, kind, "preemptive", k=k)
    ad = PolicySolver(inst, kind, "adaptive", k=k)
    v_pre, v_ad = pre.value(initial_state(inst)), ad.value(initial_state(inst))
    v_enum = evaluate_policy_exact(inst, pre.policy, kind, k)
    return {
        "v_preemptive": v_pre,
        "v_adaptive": v_ad,
        "v_fixed": v_fixed,
        "fixed_order": order,
        "gain_preemptive_over_fixed": rel_gap(v_fixed, v_pre),
        "gain_adaptive_over_fixed": rel_gap(v_fixed, v_ad),
        "gain_preemptive_over_adaptive": rel_gap(v_ad, v_pre),
        "margin_preemptive": _finite(order_margin(pre, order)),
        "margin_adaptive": _finite(order_margin(ad, order)),
        "check_fixed_dp_vs_closed": abs(rel_gap(v_fixed_dp, v_fixed)),
        "check_policy_enumeration": abs(rel_gap(v_enum, v_pre)),
        "preemptive_policy_preempts": policy_preempts(inst, pre.policy),
        "states": len(pre.memo),
    }


def _finite(x: float) -> float | None:
    """JSON-safe margin: None when the order never faces a non-tied choice."""
    return None if x == float("inf") else x


def margin_of(row: dict[str, Any]) -> float:
    """The smaller of the two margins (inf when neither exists)."""
    vals = [row[f] for f in ("margin_preemptive", "margin_adaptive") if row[f] is not None]
    return min(vals, default=float("inf"))


def _row(
    key: dict[str, Any], *, kind: str, seed: int, max_checkpoints: int, best: OrderFn
) -> dict[str, Any]:
    """The row of cell (n, k, i): module-level, so a sweep can send it to worker processes."""
    s = instance_seed(seed, key["n"], key["i"])
    inst = generate(key["n"], s, max_checkpoints=max_checkpoints)
    return {"instance_seed": s, **compare_k(inst, kind, key["k"], best)}


def _climb_cell(
    key: dict[str, Any], *, kind: str, seed: int, steps: int, max_checkpoints: int
) -> dict[str, Any]:
    """Descend on the margin from the start instance of cell (n, k) (module-level cell)."""
    start = generate(key["n"], key["start_seed"], max_checkpoints=max_checkpoints)
    rng = np.random.default_rng([seed, key["n"], key["k"]])
    cur = compare_k(start, kind, key["k"], best_order_dp_k)
    cur_inst, cur_m = start, margin_of(cur)
    start_m = cur_m
    top = {g: cur[g] for g in GAINS}
    for step in range(steps):
        cand = perturb_instance(cur_inst, rng, 0.3 if step < steps // 2 else 0.1)
        v = compare_k(cand, kind, key["k"], best_order_dp_k)
        top = {g: max(top[g], v[g]) for g in GAINS}
        if margin_of(v) < cur_m:
            cur_inst, cur, cur_m = cand, v, margin_of(v)
    return {
        "visited": steps + 1,
        "start_margin": _finite(start_m),
        "best_margin": _finite(cur_m),
        **{f"max_{g}_seen": top[g] for g in GAINS},
        "best": {k: cur[k] for k in cur if k != "fixed_order"},
        "instance_json": cur_inst.to_json(),
    }


def _tag_k(row: dict[str, Any]) -> str:
    return f"n={row['n']} K={row['k']} seed={row['instance_seed']}"


def _by(rows: list[dict[str, Any]], field: str, group: str) -> dict[str, dict[str, Any]]:
    vals = sorted({r[group] for r in rows})
    return {str(v): gain_stats([r[field] for r in rows if r[group] == v]) for v in vals}


def _climbs(
    kind: str,
    rows: list[dict[str, Any]],
    cfg: dict[str, Any],
    seed: int,
    runner: RunnerFactory | None,
) -> list[dict[str, Any]]:
    """One margin descent per (n in climb_ns, K), from that cell's smallest-margin instance
    (none where every order ties)."""
    if cfg["climb_steps"] <= 0:
        return []
    keys = []
    for n in cfg["climb_ns"]:
        for k in range(1, n + 1):
            cand = [r for r in rows if r["n"] == n and r["k"] == k]
            start = min(cand, key=margin_of, default=None)
            # no margin: every order ties (TK at K = n is the makespan), nothing to descend on
            if start is not None and margin_of(start) < float("inf"):
                keys.append({"n": n, "k": k, "start_seed": start["instance_seed"]})
    config = {"check": f"preemption-search-{kind}", "seed": seed, "steps": cfg["climb_steps"],
              "max_checkpoints": cfg["max_checkpoints"], "starts": keys}  # fmt: skip
    compute = partial(_climb_cell, kind=kind, seed=seed, steps=cfg["climb_steps"],
                      max_checkpoints=cfg["max_checkpoints"])  # fmt: skip
    return rows_for(runner, f"preemption-search-{kind}", ["n", "k"], config, keys, compute)


def check_k(
    kind: str,
    size: str,
    seed: int,
    outdir: Path,
    runner: RunnerFactory | None,
    best_order: OrderFn,
    overrides: dict[str, Any],
) -> Verdict:
    """The shared body of claims 3a and 3b."""
    cfg = settings(DEFAULTS, size, overrides)
    cid = CLAIM_IDS[kind]
    config = {"check": "preemption-k", "kind": kind, "seed": seed, **cfg,
              "best_order": getattr(best_order, "__name__", "custom")}  # fmt: skip
    keys = [{"n": n, "k": k, "i": i} for n in cfg["ns"] for k in range(1, n + 1)
            for i in range(cfg["per_n"])]  # fmt: skip
    compute = partial(_row, kind=kind, seed=seed, max_checkpoints=cfg["max_checkpoints"],
                      best=best_order)  # fmt: skip
    rows = rows_for(runner, f"preemption-{kind}", ["n", "k", "i"], config, keys, compute)
    climbs = _climbs(kind, rows, cfg, seed, runner) if best_order is best_order_dp_k else []
    bad = inconsistencies(rows, _tag_k)
    searched = [c["best"] for c in climbs]
    worst_gain = max(r["gain_preemptive_over_fixed"] for r in rows)
    seen = max([c["max_gain_preemptive_over_fixed_seen"] for c in climbs], default=0.0)
    seen_ad = max([c["max_gain_adaptive_over_fixed_seen"] for c in climbs], default=0.0)
    margins = [margin_of(r) for r in rows] + [margin_of(b) for b in searched]
    min_margin = min(margins, default=float("inf"))
    ok = (
        all(r["gain_preemptive_over_fixed"] <= REL_TOL for r in rows)
        and all(r["gain_adaptive_over_fixed"] <= REL_TOL for r in rows)
        and max(seen, seen_ad) <= REL_TOL
        and min_margin >= -REL_TOL
    )
    worst, files = _worst(kind, cid, rows, climbs, cfg, outdir)
    visited = sum(c["visited"] for c in climbs)
    evidence: dict[str, Any] = {
        "objective": kind,
        **{g: gain_stats([r[g] for r in rows]) for g in GAINS},
        "gain_preemptive_over_fixed_by_k": _by(rows, "gain_preemptive_over_fixed", "k"),
        "gain_preemptive_over_fixed_by_n": _by(rows, "gain_preemptive_over_fixed", "n"),
        "min_margin_random": _finite(min((margin_of(r) for r in rows), default=float("inf"))),
        "search": [{k: c[k] for k in c if k not in ("instance_json", "best")} for c in climbs],
        "min_margin_searched": _finite(min((margin_of(b) for b in searched), default=float("inf"))),
        "max_gain_seen_in_search": max(seen, seen_ad),
        "optimal_policy_preempts_on_some_path": sum(r["preemptive_policy_preempts"] for r in rows),
        "max_states": max(r["states"] for r in rows),
        "inconsistencies": bad[:20],
        "settings": cfg,
        "method": "exact DP over job states (theory.sojourn.policy_dp) vs the subset-DP order; "
        "search: descent on the order's margin",
    }
    summary = (
        f"max gain over the best order: preemptive {worst_gain:.3g}, adaptive "
        f"{max(r['gain_adaptive_over_fixed'] for r in rows):.3g} on {len(rows)} (instance, K) "
        f"pairs; {visited} searched, max gain seen {max(seen, seen_ad):.3g}; smallest margin "
        f"{min_margin:.3g}"
    )
    if bad:
        summary += f"; {len(bad)} inconsistencies"
    return Verdict(cid, CLAIM_TITLES[kind], verdict_from(ok, bool(bad), enough=bool(rows)),
                   len(rows) + visited, worst, {"rel_tol": REL_TOL}, 0.0, evidence, summary,
                   files=files)  # fmt: skip


def _worst(
    kind: str,
    cid: str,
    rows: list[dict[str, Any]],
    climbs: list[dict[str, Any]],
    cfg: dict[str, Any],
    outdir: Path,
) -> tuple[dict[str, Any], list[str]]:
    """The row with the largest gain; if none gains, the closest call (smallest margin)."""
    files: list[str] = []
    r = max(rows, key=lambda r: (r["gain_preemptive_over_fixed"], -margin_of(r)))
    inst = generate(r["n"], r["instance_seed"], max_checkpoints=cfg["max_checkpoints"])
    worst: dict[str, Any] = {
        "value": r["gain_preemptive_over_fixed"],
        "measure": "gain_preemptive_over_fixed",
        "n": r["n"],
        "k": r["k"],
        "instance_seed": r["instance_seed"],
        **{f: r[f] for f in ("v_preemptive", "v_adaptive", "v_fixed", "gain_adaptive_over_fixed",
                             "margin_preemptive", "margin_adaptive")},
        "fixed_order": inst.ids_of(r["fixed_order"]),
        "instance": None,
    }  # fmt: skip
    if worst["value"] > REL_TOL:
        worst["instance"] = save_instance(
            inst, outdir, f"claim{cid}-worst-{kind}", claim=cid, **worst
        )
        files.append(worst["instance"])
    if climbs:
        c = min(climbs, key=lambda c: margin_of(c["best"]))
        closest = Instance.loads(c["instance_json"], source="the closest call")
        meta = {"claim": cid, "k": c["k"], "found_by": "descent on the order's margin",
                **{f: c["best"][f] for f in ("margin_preemptive", "margin_adaptive",
                                             "gain_preemptive_over_fixed")}}  # fmt: skip
        worst["closest_call"] = {**meta, "n": c["n"], "file": None}
        worst["closest_call"]["file"] = save_instance(
            closest, outdir, f"claim{cid}-closest-{kind}", **meta
        )
        files.append(worst["closest_call"]["file"])
    return worst, files


@register_claim("3a", "no-preemption-TK", CLAIM_TITLES["TK"])
def claim_no_preemption_TK(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    best_order: OrderFn = best_order_dp_k,
    **overrides: Any,
) -> Verdict:
    """Claim 3a (TK, every K). `best_order` may be replaced to test that the check can fail."""
    return check_k("TK", size, seed, outdir, runner, best_order, overrides)


@register_claim("3b", "no-preemption-DK", CLAIM_TITLES["DK"])
def claim_no_preemption_DK(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    best_order: OrderFn = best_order_dp_k,
    **overrides: Any,
) -> Verdict:
    """Claim 3b (DK, every K). `best_order` may be replaced to test that the check can fail."""
    return check_k("DK", size, seed, outdir, runner, best_order, overrides)
