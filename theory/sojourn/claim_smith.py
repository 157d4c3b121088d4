"""Claims 3 and 4: where Smith's rule (ascending E[X]/pi) is optimal, and where it is not.

Claim 3: Smith's order attains the exact optimum (subset DP; brute force as a second oracle
for small n) of A, TK and DK for every K. Claim 4 states "Smith's rule is optimal for B"; it
is expected to fail: for n = 2, sympy shows the B-better of two orders is decided by the
per-node index at u = 1/2, not by Smith's (u = 1); a search over simple instances (integer
sizes, fractional probabilities) finds the smallest counterexample, confirmed in exact rational
arithmetic; random instances at n = 5..8 measure how often and by how much Smith misses.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.heuristics import order_by_index, smith_key, u_index
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.evidence import save_instance
from schedlab.theory.sojourn.exact_b import b_enumeration, rationalize
from schedlab.theory.verdict import (
    RunnerFactory,
    Verdict,
    instance_seed,
    rel_gap,
    rows_for,
    settings,
    verdict_from,
)

REL_TOL = 1e-9
IndexFn = Callable[[Instance], np.ndarray]

DEFAULTS_3: dict[str, dict[str, Any]] = {
    "small": {"ns": [2, 3, 4, 5, 6], "per_n": 4, "max_checkpoints": 3, "brute_max_n": 5},
    "full": {"ns": [2, 3, 4, 5, 6, 7, 8], "per_n": 100, "max_checkpoints": 3, "brute_max_n": 7},
}
DEFAULTS_4: dict[str, dict[str, Any]] = {
    "small": {"search_ns": [2, 3], "max_size": 5, "denominators": [2, 3, 4, 5], "ns": [5, 6],
              "per_n": 25},
    "full": {"search_ns": [2, 3, 4], "max_size": 8, "denominators": [2, 3, 4, 5, 6, 8, 10],
             "ns": [5, 6, 7, 8], "per_n": 500},
}  # fmt: skip


def objectives_for(n: int) -> list[Objective]:
    """A, and TK and DK for every K = 1..n."""
    return [Objective("A")] + [Objective(t, k) for t in ("TK", "DK") for k in range(1, n + 1)]


# ---- claim 3 ------------------------------------------------------------------------------
def smith_row(inst: Instance, index_fn: IndexFn, brute_max_n: int) -> dict[str, Any]:
    """Gap of the index order to the optimum for A, TK, DK (all K) on one instance."""
    order = order_by_index(index_fn(inst))
    gaps: dict[str, float] = {}
    oracle_diff = 0.0
    for obj in objectives_for(inst.n):
        opt = solve(SojournProblem(inst, obj), "dp")
        assert opt.is_optimal and opt.value is not None
        if inst.n <= brute_max_n:
            br = solve(SojournProblem(inst, obj), "brute")
            assert br.value is not None
            oracle_diff = max(oracle_diff, abs(rel_gap(br.value, opt.value)))
        gaps[obj.label] = rel_gap(evaluate(inst, order, obj), opt.value)
    label = max(gaps, key=lambda k: gaps[k])
    return {"max_gap": gaps[label], "worst_objective": label, "gaps": gaps,
            "oracle_diff": oracle_diff, "order": order}  # fmt: skip


def _smith_cell(
    key: dict[str, Any], *, seed: int, max_checkpoints: int, index_fn: IndexFn, brute_max_n: int
) -> dict[str, Any]:
    """Claim 3's row of cell (n, i) (module-level, so a sweep can send it to workers)."""
    s = instance_seed(seed, key["n"], key["i"])
    inst = generate(key["n"], s, max_checkpoints=max_checkpoints)
    return {"instance_seed": s, **smith_row(inst, index_fn, brute_max_n)}


def _b_gap_cell(key: dict[str, Any], *, seed: int, index_fn: IndexFn) -> dict[str, Any]:
    """Claim 4's row of cell (n, i) (module-level, so a sweep can send it to workers)."""
    s = instance_seed(seed, key["n"], key["i"])
    return {"instance_seed": s, **b_gap_row(generate(key["n"], s), index_fn)}


@register_claim(
    "3", "smith-optimal-A-TK-DK", "Smith's rule E[X]/pi is optimal for A, TK, DK, all K"
)
def claim_smith_optimal(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    index_fn: IndexFn = smith_key,
    **overrides: Any,
) -> Verdict:
    """Claim 3. `index_fn` is the rule under test (inject another to see the check fail)."""
    cfg = settings(DEFAULTS_3, size, overrides)
    config = {"check": "smith-A-TK-DK", "seed": seed, **cfg,
              "index": getattr(index_fn, "__name__", "custom")}  # fmt: skip

    compute = partial(_smith_cell, seed=seed, max_checkpoints=cfg["max_checkpoints"],
                      index_fn=index_fn, brute_max_n=cfg["brute_max_n"])  # fmt: skip
    keys = [{"n": n, "i": i} for n in cfg["ns"] for i in range(cfg["per_n"])]
    rows = rows_for(runner, "smith-A-TK-DK", ["n", "i"], config, keys, compute)
    bad_oracle = [r for r in rows if r["oracle_diff"] > REL_TOL]
    below = [r for r in rows if r["max_gap"] < -REL_TOL]  # better than the optimum: a bug
    misses = [r for r in rows if r["max_gap"] > REL_TOL]
    r = max(rows, key=lambda r: r["max_gap"])
    inst = generate(r["n"], r["instance_seed"], max_checkpoints=cfg["max_checkpoints"])
    worst: dict[str, Any] = {
        "value": r["max_gap"],
        "measure": "relative gap of the rule's order to the exact optimum",
        "objective": r["worst_objective"],
        "n": r["n"],
        "instance_seed": r["instance_seed"],
        "order": inst.ids_of(r["order"]),
        "instance": None,
    }
    files = []
    if misses:
        worst["instance"] = save_instance(inst, outdir, "claim3-worst", claim="3", **worst)
        files.append(worst["instance"])
    by_obj: dict[str, int] = {}
    for row in misses:
        for lab, g in row["gaps"].items():
            if g > REL_TOL:
                kind = lab.split("(")[0]
                by_obj[kind] = by_obj.get(kind, 0) + 1
    checked = sum(len(row["gaps"]) for row in rows)
    evidence = {
        "instances": len(rows),
        "objective_values_checked": checked,
        "misses": len(misses),
        "misses_by_objective": by_obj,
        "oracle_disagreements_dp_vs_brute": len(bad_oracle),
        "rule_below_optimum": len(below),
        "index": config["index"],
        "settings": cfg,
    }
    summary = (
        f"{len(misses)}/{len(rows)} instances where the rule misses ({checked} objective "
        f"values; worst {worst['value']:.3g} on {worst['objective']})"
    )
    return Verdict(
        "3",
        "Smith's rule E[X]/pi is optimal for A, TK, DK, all K",
        verdict_from(not misses, bool(bad_oracle or below), enough=bool(rows)),
        len(rows),
        worst,
        {"rel_tol": REL_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )


# ---- claim 4 ------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def two_job_b_difference() -> dict[str, Any]:
    """sympy: B(1 then 2) - B(2 then 1) for two general jobs.

    It equals pi1 pi2 (I_1 - I_2) with I_i = (e_i + pi_i m_i / 2) / pi_i, the per-node index
    at u = 1/2, and not the Smith comparison pi2 E[X_1] - pi1 E[X_2] (the index at u = 1):
    already at n = 2 the B-optimal order is not Smith's. Symbols: pi_i success probability,
    m_i success size, e_i = E[X_i 1{cancelled}].
    """
    p1, p2, m1, m2 = sp.symbols("pi1 pi2 m1 m2", positive=True)
    e1, e2 = sp.symbols("e1 e2", nonnegative=True)

    def b(first: tuple[Any, Any, Any], second: tuple[Any, Any, Any]) -> sp.Expr:
        (pa, ma, ea), (pb, mb, _) = first, second
        both = pa * pb * (ma + (ma + mb)) / 2
        only_first = pa * (1 - pb) * ma
        only_second = pb * (ea + (1 - pa) * mb)  # E[(X_a + m_b) 1{a cancelled}] pi_b
        return both + only_first + only_second

    diff = sp.expand(b((p1, m1, e1), (p2, m2, e2)) - b((p2, m2, e2), (p1, m1, e1)))
    half = sp.expand(p1 * p2 * ((e1 + p1 * m1 / 2) / p1 - (e2 + p2 * m2 / 2) / p2))
    smith = sp.expand(p2 * (e1 + p1 * m1) - p1 * (e2 + p2 * m2))
    return {
        "difference": str(diff),
        "index_at_half_comparison": str(half),
        "equals_index_at_half": sp.simplify(diff - half) == 0,
        "smith_comparison": str(smith),
        "equals_smith": sp.simplify(diff - smith) == 0,
    }


def _grid_instances(
    n: int, checkpoints: int, max_size: int, den: int
) -> Iterator[tuple[list[list[int]], list[list[Fraction]]]]:
    """Instances with integer sizes <= max_size, probabilities in multiples of 1/den, and
    `checkpoints` checkpoints in total (each used structure once, jobs in canonical order)."""
    probs_k: dict[int, list[list[Fraction]]] = {1: [[Fraction(1)]]}
    probs_k |= {
        k: [
            [Fraction(a, den) for a in c]
            for c in itertools.product(range(1, den), repeat=k)
            if sum(c) == den
        ]
        for k in range(2, checkpoints + 2)
    }
    for split in itertools.combinations_with_replacement(range(checkpoints + 1), n):
        if sum(split) != checkpoints:
            continue
        per_job = [
            [
                (list(sz), pr)
                for sz in itertools.combinations(range(1, max_size + 1), c + 1)
                for pr in probs_k[c + 1]
            ]
            for c in split
        ]
        for combo in itertools.product(*per_job):
            yield [list(sz) for sz, _ in combo], [pr for _, pr in combo]


def _consistent_orders(index: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """Rows of `perms` that sort `index` ascending (all tie-breaks)."""
    vals = index[perms]
    return np.all(vals[:, 1:] >= vals[:, :-1] - 1e-12 * np.abs(vals[:, :-1]), axis=1)


def rule_gap_all_ties(inst: Instance, index_fn: IndexFn) -> tuple[float, list[int], list[int]]:
    """Gap of the best order consistent with the index (any tie-break) to the B optimum,
    by brute force; returns (gap, that order, an optimal order)."""
    perms = np.array(list(itertools.permutations(range(inst.n))), dtype=np.int64)
    vals = evaluate_orders(inst, perms, Objective("B"))
    ok = _consistent_orders(index_fn(inst), perms)
    k_rule = int(np.flatnonzero(ok)[np.argmin(vals[ok])])
    k_opt = int(np.argmin(vals))
    return (
        rel_gap(float(vals[k_rule]), float(vals[k_opt])),
        [int(i) for i in perms[k_rule]],
        [int(i) for i in perms[k_opt]],
    )


def smallest_counterexample(
    search_ns: list[int], max_size: int, denominators: list[int], index_fn: IndexFn
) -> dict[str, Any] | None:
    """The first instance where every order consistent with the index misses the B optimum,
    in the order: fewest jobs, fewest checkpoints, smallest largest size, smallest
    probability denominator, then lexicographic. None if the grid has none."""
    tried = 0
    for n in search_ns:
        for checkpoints in range(1, n + 1):
            for msize in range(2, max_size + 1):
                for den in denominators:
                    for sizes, probs in _grid_instances(n, checkpoints, msize, den):
                        if max(max(s) for s in sizes) != msize:
                            continue  # smaller largest sizes were tried before
                        inst = Instance.from_arrays(sizes, [[float(p) for p in pr] for pr in probs])
                        tried += 1
                        gap, rule, opt = rule_gap_all_ties(inst, index_fn)
                        if gap > REL_TOL:
                            return {"instance": inst, "gap": gap, "rule_order": rule,
                                    "optimal_order": opt, "tried": tried, "checkpoints":
                                    checkpoints, "max_size": msize, "denominator": den}  # fmt: skip
    return {"instance": None, "tried": tried}


def b_gap_row(inst: Instance, index_fn: IndexFn) -> dict[str, Any]:
    """Gap of the index order and of the u*-index order to the exact B optimum (subset DP)."""
    obj = Objective("B")
    opt = solve(SojournProblem(inst, obj), "dp")
    assert opt.value is not None
    rule = order_by_index(index_fn(inst))
    ustar = order_by_index(u_index(inst))
    return {
        "gap": rel_gap(evaluate(inst, rule, obj), opt.value),
        "gap_uindex": rel_gap(evaluate(inst, ustar, obj), opt.value),
        "opt": opt.value,
    }


def _stats(vals: list[float]) -> dict[str, Any]:
    a = np.array(vals)
    pos = a[a > REL_TOL]
    return {
        "instances": len(a),
        "share_missing": float(np.mean(a > REL_TOL)) if len(a) else 0.0,
        "mean_gap": float(a.mean()) if len(a) else 0.0,
        "median_gap_when_missing": float(np.median(pos)) if len(pos) else 0.0,
        "max_gap": float(a.max()) if len(a) else 0.0,
    }


def _smallest_counterexample(
    found: dict[str, Any], outdir: Path, evidence: dict[str, Any], files: list[str]
) -> dict[str, Any]:
    """The worst case of claim 4: the smallest counterexample (exact rationals), if any."""
    worst: dict[str, Any] = {"value": 0.0, "measure": "relative gap to the B optimum",
                             "instance": None}  # fmt: skip
    inst = found.get("instance")
    if inst is None:
        return worst
    rule, opt = found["rule_order"], found["optimal_order"]
    b_rule = b_enumeration(inst, rule, rationalize)
    b_opt = b_enumeration(inst, opt, rationalize)
    exact = {"B_rule_order": str(b_rule), "B_optimal_order": str(b_opt),
             "exact_gap": str((b_rule - b_opt) / b_opt)}  # fmt: skip
    evidence["smallest_counterexample"] = {
        "n": inst.n,
        "jobs": [j.to_dict() for j in inst.jobs],
        "rule_order": inst.ids_of(rule),
        "optimal_order": inst.ids_of(opt),
        "gap": found["gap"],
        "exact": exact,
    }
    path = save_instance(
        Instance(inst.jobs, name="claim4-smallest-counterexample"),
        outdir,
        "claim4-smallest-counterexample",
        claim="4",
        rule_order=inst.ids_of(rule),
        optimal_order=inst.ids_of(opt),
        exact=exact,
    )
    files.append(path)
    return {"value": found["gap"], "measure": "relative gap to the B optimum (smallest "
            "counterexample)", "n": inst.n, "instance": path,
            "rule_order": inst.ids_of(rule), "optimal_order": inst.ids_of(opt)}  # fmt: skip


def _worst_random(
    rows: list[dict[str, Any]], outdir: Path, evidence: dict[str, Any], files: list[str]
) -> None:
    """Save the random instance with the largest gap, when the rule missed there."""
    r = max(rows, key=lambda r: r["gap"]) if rows else None
    if r is not None and r["gap"] > REL_TOL:
        winst = generate(r["n"], r["instance_seed"])
        wpath = save_instance(winst, outdir, "claim4-worst-random", claim="4", gap=r["gap"],
                              instance_seed=r["instance_seed"])  # fmt: skip
        files.append(wpath)
        evidence["worst_random"] = {"gap": r["gap"], "n": r["n"], "instance": wpath}


@register_claim(
    "4", "smith-optimal-B", "Smith's rule is optimal for B (expected to fail at finite n)"
)
def claim_smith_B(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    index_fn: IndexFn = smith_key,
    **overrides: Any,
) -> Verdict:
    """Claim 4. Fails when a counterexample exists; `index_fn` is the rule under test."""
    cfg = settings(DEFAULTS_4, size, overrides)
    sym = two_job_b_difference()
    found = smallest_counterexample(cfg["search_ns"], cfg["max_size"], cfg["denominators"],
                                    index_fn)  # fmt: skip
    assert found is not None
    config = {"check": "smith-B", "seed": seed, "ns": cfg["ns"], "per_n": cfg["per_n"],
              "index": getattr(index_fn, "__name__", "custom")}  # fmt: skip

    compute = partial(_b_gap_cell, seed=seed, index_fn=index_fn)
    keys = [{"n": n, "i": i} for n in cfg["ns"] for i in range(cfg["per_n"])]
    rows = rows_for(runner, "smith-B", ["n", "i"], config, keys, compute)
    by_n = {
        str(n): {
            "rule": _stats([r["gap"] for r in rows if r["n"] == n]),
            "uindex": _stats([r["gap_uindex"] for r in rows if r["n"] == n]),
        }
        for n in cfg["ns"]
    }
    files: list[str] = []
    evidence: dict[str, Any] = {
        "two_jobs_symbolic": sym,
        "search": {k: v for k, v in found.items() if k != "instance"},
        "random_by_n": by_n,
        "index": config["index"],
        "settings": cfg,
    }
    worst = _smallest_counterexample(found, outdir, evidence, files)
    _worst_random(rows, outdir, evidence, files)
    inst = found.get("instance")
    misses = sum(r["gap"] > REL_TOL for r in rows)
    counterexample = inst is not None or misses > 0
    if inst is not None:
        summary = (
            f"smallest counterexample n={inst.n} (gap {found['gap']:.3g}, exact rationals); "
            f"random n={cfg['ns'][0]}..{cfg['ns'][-1]}: misses {misses}/{len(rows)}"
        )
    else:
        summary = f"no counterexample on {found['tried']} grid + {len(rows)} random instances"
    return Verdict(
        "4",
        "Smith's rule is optimal for B (expected to fail at finite n)",
        verdict_from(not counterexample, not sym["equals_index_at_half"]),
        len(rows) + found["tried"],
        worst,
        {"rel_tol": REL_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )
