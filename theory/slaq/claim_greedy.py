"""Claims 9 and 10: when SLAQ's marginal-gain greedy maximizes the sum of qualities.

Claim 9 (proof). Let job j get e_j of the R free cores, Q_j(base_j + e) = Q_j(base_j) +
sum_{k<e} g_jk with gains g_jk = Q_j(base_j + k + 1) - Q_j(base_j + k). Every allocation's
value is the constant sum_j Q_j(base_j) plus the sum of R gains chosen *prefix-closed* per
job (job j contributes its first e_j gains). So its value is at most the constant plus the
sum of the R largest gains of the multiset {g_jk}. When every Q_j is concave, each job's
gains are non-increasing in k, so the R largest gains can be taken prefix-closed (if g_jk is
among them, so is every g_jl, l < k, being at least as large; ties are broken consistently
by the heap's (gain, job) order). The heap greedy takes, at each step, the largest gain still
available at the head of some job's sequence; with non-increasing sequences the heads are the
largest remaining gains, so after R steps it holds exactly R largest gains: it attains the
bound and is optimal. Concavity of the families (sympy, `family_concavity`): L^(k) =
a^(k - b) + c has d2L/dk2 = a^(k-b) log(a)^2 >= 0, so Q is concave for every fit; the naive
and geometric rules are linear/convex in k, and clipping at 0 (a max of convex functions)
keeps convexity. For L^ = 1/(a k^2 + b k + c) + d, d2L/dk2 = 2 (3a^2 k^2 + 3abk + b^2 - ac) /
(a k^2 + b k + c)^3, which is negative where ac > b^2 and k is small: such Q are not concave.
Numerically: greedy = exact DP (and enumeration) on random concave tables (ties included)
and on fitted exponential-family snapshots.

Claim 10 (search). With the inverse-poly family and the optimizer's constraints (a, b, c,
d >= 0) a fitted L^ can be concave early on (a flat start), making Q_j convex there; the
greedy then loses. The check searches random snapshots of flat-start curves, then improves
the worst one by random local moves, and reports the worst relative gap (opt - greedy) / opt;
the counterexample snapshot is saved as results/theory/claim10-worst.json.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from schedlab.solvers.slaq.exact_enum import best_by_dp, best_by_enumeration
from schedlab.solvers.slaq.generate import random_concave_tables, random_snapshot
from schedlab.solvers.slaq.heuristics import greedy_extra
from schedlab.solvers.slaq.problem import Job, Snapshot
from schedlab.solvers.slaq.quality import QualityModel, quality_model
from schedlab.solvers.util import atomic_write_text
from schedlab.theory.claims import register_claim
from schedlab.theory.verdict import RunnerFactory, Verdict, settings, theory_dir, verdict_from

REL_TOL = 1e-9
W_RANGE = (0.1, 100.0)  # core-seconds per iteration allowed in the search
TITLE_9 = "SLAQ's marginal-gain greedy maximizes the sum of qualities when every Q_j is concave"
TITLE_10 = "SLAQ's greedy maximizes the sum on the qualities of fitted inverse-poly predictors"
DEFAULTS_9: dict[str, dict[str, Any]] = {
    "small": {"tables": 300, "max_jobs": 6, "max_free": 12, "snapshots": 20},
    "full": {"tables": 20_000, "max_jobs": 8, "max_free": 30, "snapshots": 400},
}
DEFAULTS_10: dict[str, dict[str, Any]] = {
    "small": {"snapshots": 150, "local_steps": 60, "max_jobs": 5, "max_cores": 40},
    "full": {"snapshots": 2_000, "local_steps": 1_000, "max_jobs": 8, "max_cores": 80},
}
GreedyFn = Callable[[Sequence[Any], Sequence[int], int], list[int]]
TablesFn = Callable[[np.random.Generator, int, int], list[np.ndarray]]


@cache
def family_concavity() -> dict[str, Any]:
    """sympy: the second derivatives of both families and the sign facts used above."""
    k = sp.Symbol("k", positive=True)
    a, b, c, d = sp.symbols("a b c d", nonnegative=True)
    lam = sp.Symbol("lam", positive=True)  # a = exp(-lam), 0 < a < 1
    exp_fam = sp.exp(-lam * (k - b)) + c
    exp_dd = sp.simplify(sp.diff(exp_fam, k, 2))
    inv = 1 / (a * k**2 + b * k + c) + d
    inv_dd = sp.factor(sp.simplify(sp.diff(inv, k, 2)))
    num = sp.expand(sp.numer(sp.together(inv_dd)) / 2)
    expected = 3 * a**2 * k**2 + 3 * a * b * k + b**2 - a * c
    flat = inv_dd.subs({b: 0, a: 1, c: 3, d: 0, k: sp.Rational(1, 2)})
    return {
        "exponential_d2": str(exp_dd),
        "exponential_convex": bool(exp_dd.is_nonnegative),
        "inverse_poly_d2": str(inv_dd),
        "inverse_poly_numerator_is": str(expected),
        "inverse_poly_numerator_matches": sp.simplify(num - expected) == 0,
        "inverse_poly_can_be_concave": bool(flat < 0),
    }


def _table_q(table: np.ndarray) -> Callable[[Any], np.ndarray]:
    return lambda cores: np.take(table, np.asarray(cores, dtype=int), mode="clip")


def greedy_value(tables: Sequence[np.ndarray], free: int, greedy_fn: GreedyFn) -> float:
    extra = greedy_fn([_table_q(t) for t in tables], [0] * len(tables), free)
    assert sum(extra) == free, "greedy must give every free core"
    return float(sum(t[e] for t, e in zip(tables, extra, strict=True)))


def is_concave(table: np.ndarray, tol: float = 1e-12) -> bool:
    g = np.diff(table)
    return bool(np.all(np.diff(g) <= tol * max(1.0, float(np.max(np.abs(table))))))


def _gap(opt: float, val: float) -> float:
    return (opt - val) / max(abs(opt), 1e-12)


def _qm_tables(qm: QualityModel) -> list[np.ndarray]:
    """Tables shifted so index = free cores given (base included in the values)."""
    return qm.tables()


@register_claim("9", "slaq-greedy-concave", TITLE_9, in_worker=True)
def claim_greedy_concave(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    greedy_fn: GreedyFn = greedy_extra,
    tables_fn: TablesFn | None = None,
    **overrides: Any,
) -> Verdict:
    """Claim 9; `greedy_fn` (a broken greedy) or `tables_fn` (non-concave tables) make it fail."""
    cfg = settings(DEFAULTS_9, size, overrides)
    sym = family_concavity()
    sym_ok = (
        sym["exponential_convex"]
        and sym["inverse_poly_numerator_matches"]
        and sym["inverse_poly_can_be_concave"]
    )
    rng = np.random.default_rng(seed)
    make = tables_fn or (lambda r, n, f: random_concave_tables(r, n, f, ties=bool(r.integers(2))))
    worst: dict[str, Any] = {"value": 0.0, "measure": "relative gap (opt - greedy) / opt"}
    fails, non_concave, count = 0, 0, 0
    for i in range(cfg["tables"]):
        n, free = int(rng.integers(1, cfg["max_jobs"] + 1)), int(rng.integers(0, cfg["max_free"]))
        tables = make(rng, n, free)
        non_concave += not all(is_concave(t) for t in tables)
        opt, _ = best_by_dp(tables, free, "sum")
        if i % 10 == 0 and n <= 4:  # a second, independent oracle on the small ones
            opt_enum, _ = best_by_enumeration(tables, free, "sum")
            assert abs(opt - opt_enum) <= 1e-9 * max(1.0, abs(opt)), "DP and enumeration disagree"
        gap = _gap(opt, greedy_value(tables, free, greedy_fn))
        count += 1
        fails += gap > REL_TOL
        if gap > worst["value"]:
            worst = {**worst, "value": gap, "tables": [t.tolist() for t in tables], "free": free}
    for s in range(cfg["snapshots"]):
        snap = random_snapshot(
            int(rng.integers(2, 6)),
            int(rng.integers(10, 40)),
            seed * 1000 + s,
            model="exponential",
            source="mixed",
        )
        tables = _qm_tables(quality_model(snap))
        non_concave += not all(is_concave(t, 1e-9) for t in tables)
        opt, _ = best_by_dp(tables, snap.free_cores(), "sum")
        gap = _gap(opt, greedy_value(tables, snap.free_cores(), greedy_fn))
        count += 1
        fails += gap > REL_TOL
        if gap > worst["value"]:
            worst = {**worst, "value": gap, "snapshot": snap.to_dict()}
    ok = sym_ok and fails == 0
    summary = (
        f"sympy: exponential fits convex ({sym['exponential_convex']}), inverse-poly d2 numerator "
        f"{sym['inverse_poly_numerator_is']}; greedy = exact DP on {count - fails}/{count} "
        f"instances ({non_concave} with a non-concave Q), worst gap {worst['value']:.3g}"
    )
    evidence = {
        "symbolic": sym,
        "instances_with_non_concave_q": non_concave,
        "settings": cfg,
        "greedy": getattr(greedy_fn, "__name__", "custom"),
    }
    return Verdict(
        "9", TITLE_9, verdict_from(ok), count, worst, {"rel_tol": REL_TOL}, 0.0, evidence, summary
    )


# ---- claim 10: the search -----------------------------------------------------------------
def flat_start_curve(rng: np.random.Generator) -> tuple[tuple[float, ...], dict[str, float]]:
    """A short history of 1/(a k^2 + b k + c) + d with ac > b^2 (flat start, then a fall)."""
    a = float(np.exp(rng.uniform(np.log(0.002), np.log(0.2))))
    c = float(rng.uniform(0.5, 3.0))
    b = float(rng.uniform(0, 0.5 * np.sqrt(a * c)))
    d = float(rng.uniform(0.0, 1.0))
    length = int(rng.integers(5, 12))
    k = np.arange(1, length + 1, dtype=float)
    return tuple((1 / (a * k * k + b * k + c) + d).tolist()), {"a": a, "b": b, "c": c, "d": d}


def search_snapshot(rng: np.random.Generator, max_jobs: int, max_cores: int) -> Snapshot:
    """Flat-start inverse-poly jobs beside steady exponential ones, fitted as inverse-poly.

    A flat-start job's W is drawn so that the free cores of one epoch run it past its
    inflection point k* = sqrt(c / 3a) (where its predicted loss turns convex), the regime
    where its Q is convex and a myopic greedy can under-serve it.
    """
    n = int(rng.integers(2, max_jobs + 1))
    cores = int(rng.integers(2 * n, max_cores + 1))
    free = cores - n  # min_cores = 1
    jobs = []
    for j in range(n):
        if j % 2 == 0:
            losses, p = flat_start_curve(rng)
            k_star = float(np.sqrt(p["c"] / (3 * p["a"])))
            span = max(k_star - len(losses), 2.0) * float(rng.uniform(0.5, 3.0))
            w = float(np.clip(3.0 * free / span, *W_RANGE))  # free cores run ~`span` iterations
        else:
            k = np.arange(1, int(rng.integers(5, 30)), dtype=float)
            losses = tuple((rng.uniform(0.8, 0.99) ** k + rng.uniform(0, 1)).tolist())
            w = float(np.exp(rng.uniform(np.log(0.5), np.log(20.0))))
        jobs.append(Job(f"j{j}", losses, w))
    return Snapshot(tuple(jobs), cores, model="inverse-poly", min_cores=1)


def perturb(snap: Snapshot, rng: np.random.Generator) -> Snapshot:
    """A random local move: rescale one job's W (kept in W_RANGE, so that a job cannot be
    made irrelevant by an absurd iteration cost), or change the cores by a few."""
    d = snap.to_dict()
    if rng.random() < 0.7:
        j = int(rng.integers(len(d["jobs"])))
        w = d["jobs"][j]["core_s_per_iter"] * float(np.exp(rng.normal(0, 0.4)))
        d["jobs"][j]["core_s_per_iter"] = float(np.clip(w, *W_RANGE))
    else:
        d["total_cores"] = max(2 * len(d["jobs"]), d["total_cores"] + int(rng.integers(-5, 6)))
    return Snapshot.from_dict(d)


def greedy_gap(snap: Snapshot, greedy_fn: GreedyFn = greedy_extra) -> tuple[float, bool]:
    """(relative gap of the greedy to the exact DP, whether every Q_j is concave)."""
    qm = quality_model(snap)
    tables = _qm_tables(qm)
    opt, _ = best_by_dp(tables, qm.free, "sum")
    return _gap(opt, greedy_value(tables, qm.free, greedy_fn)), all(
        is_concave(t, 1e-9) for t in tables
    )


@register_claim("10", "slaq-greedy-fitted", TITLE_10, in_worker=True)
def claim_greedy_fitted(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    snapshot_fn: Callable[[np.random.Generator, int, int], Snapshot] = search_snapshot,
    **overrides: Any,
) -> Verdict:
    """Claim 10 (expected to fail). `snapshot_fn` may give concave-only inputs (it then holds)."""
    cfg = settings(DEFAULTS_10, size, overrides)
    rng = np.random.default_rng(seed)
    best_gap, best_snap, non_concave, losing = 0.0, None, 0, 0
    for _ in range(cfg["snapshots"]):
        snap = snapshot_fn(rng, cfg["max_jobs"], cfg["max_cores"])
        gap, concave = greedy_gap(snap)
        non_concave += not concave
        losing += gap > REL_TOL
        if gap > best_gap:
            best_gap, best_snap = gap, snap
    improved = 0
    if best_snap is not None:
        for _ in range(cfg["local_steps"]):
            cand = perturb(best_snap, rng)
            gap, _ = greedy_gap(cand)
            if gap > best_gap:
                best_gap, best_snap, improved = gap, cand, improved + 1
    worst: dict[str, Any] = {"value": best_gap, "measure": "relative gap (opt - greedy) / opt"}
    files = []
    if best_snap is not None:
        path = theory_dir(outdir) / "claim10-worst.json"
        atomic_write_text(path, json.dumps(best_snap.to_dict(), indent=1) + "\n")
        worst["instance"] = str(path)
        files.append(str(path))
    n = cfg["snapshots"]
    summary = (
        f"{losing}/{n} random snapshots where the greedy loses ({non_concave} with a non-concave "
        f"fitted Q); worst gap {100 * best_gap:.3g}% after {improved} improving local moves"
    )
    evidence = {
        "non_concave_snapshots": non_concave,
        "losing_snapshots": losing,
        "local_improvements": improved,
        "settings": cfg,
    }
    return Verdict(
        "10",
        TITLE_10,
        verdict_from(losing == 0 and best_gap <= REL_TOL),
        n + cfg["local_steps"],
        worst,
        {"rel_tol": REL_TOL},
        0.0,
        evidence,
        summary,
        files=files,
    )
