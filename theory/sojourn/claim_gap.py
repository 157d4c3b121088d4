"""Claim 7: Smith's rule (and the u*-index) is asymptotically optimal for B as n grows.

Verdict from the fitted slope of log(mean relative gap) against log(n) (theory.sojourn.gap_study):
holds when the slope is negative and the mean gap at the largest n is below the one at the
smallest n, fails when the slope is >= 0, inconclusive with fewer than three n that have a
positive mean gap, when the largest n is less than 10 times the smallest (too short a range
for an asymptotic statement), or when fewer than half the instances of some n were solved to
proven optimality.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.solvers.sojourn.generate import generate
from schedlab.theory.claims import register_claim
from schedlab.theory.sojourn.evidence import save_instance
from schedlab.theory.sojourn.gap_study import GAP_CONFIGS, ZERO_TOL, gap_rows, summarize
from schedlab.theory.verdict import RunnerFactory, Verdict, settings

TITLE = "Smith's rule (and the u*-index) is asymptotically optimal for B: the gap falls with n"
MIN_RANGE = 10  # the largest n must be at least this multiple of the smallest
DEFAULTS = {"small": dict(GAP_CONFIGS["claim-small"]), "full": dict(GAP_CONFIGS["full"])}


def gap_verdict(summary: dict[str, Any], heuristic: str = "smith") -> tuple[str, str]:
    """(verdict, reason) for the asymptotic claim from the per-n summary."""
    per_n = summary["per_n"]
    thin = [e["n"] for e in per_n if e["proven_optimal"] < max(1, e["instances"] / 2)]
    slope = summary["slopes"][f"{heuristic}_mean"]
    points = summary["slopes"][f"{heuristic}_mean_points"]
    if thin:
        return "inconclusive", f"fewer than half proven optimal at n={thin}"
    suspect = [
        e["n"]
        for e in per_n
        if (e.get("max_crosscheck_rel_diff") or 0) > ZERO_TOL
        or (e.get("max_insertion_improvement") or 0) > ZERO_TOL
    ]
    if suspect:
        return "inconclusive", f"the exact solver failed an independent check at n={suspect}"
    ns = [e["n"] for e in per_n]
    if max(ns) < MIN_RANGE * min(ns):
        return "inconclusive", (
            f"n = {min(ns)}..{max(ns)} spans less than a factor {MIN_RANGE}: too short for an "
            f"asymptotic statement (slope {slope if slope is None else round(slope, 2)})"
        )
    if slope is None or points < 3:
        return "inconclusive", f"only {points} n with a positive mean gap"
    means = [e[heuristic]["mean"] for e in per_n if e[heuristic]["count"]]
    if slope < 0 and means[-1] < means[0]:
        return "holds", f"slope {slope:.2f} < 0"
    return "fails", f"slope {slope:.2f} with mean gap {means[0]:.3g} -> {means[-1]:.3g}"


def _per_n_table(summ: dict[str, Any]) -> dict[str, Any]:
    """Per n: proven share and the gap statistics of Smith's rule and the u*-index."""
    return {
        str(e["n"]): {
            "proven": f"{e['proven_optimal']}/{e['instances']}",
            **{
                h: {k: e[h][k] for k in ("median", "p90", "mean", "max", "share_zero")}
                for h in ("smith", "uindex")
            },
        }
        for e in summ["per_n"]
    }


def _solver_checks(summ: dict[str, Any]) -> dict[str, Any]:
    """The independent checks of the exact answers (cross-check with the DP, insertion)."""
    per_n = summ["per_n"]
    return {
        "large_n_method_vs_dp": {
            "instances": sum(e["crosschecked"] for e in per_n),
            "max_rel_diff": max((e["max_crosscheck_rel_diff"] or 0.0 for e in per_n), default=0.0),
        },
        "no_improving_insertion_above_dp": {
            "instances": sum(e["insertion_checked"] for e in per_n),
            "max_rel_improvement": max(
                (e["max_insertion_improvement"] or 0.0 for e in per_n), default=0.0
            ),
        },
    }


@register_claim("7", "asymptotic-optimality-B", TITLE)
def claim_asymptotic(
    size: str,
    seed: int,
    *,
    outdir: Path = Path("results"),
    runner: RunnerFactory | None = None,
    **overrides: Any,
) -> Verdict:
    """Claim 7 (overrides: ns, count, max_checkpoints, time_limit_s)."""
    cfg = settings(DEFAULTS, size, overrides)
    rows = gap_rows(cfg, seed, runner)
    summ = summarize(rows)
    verdict, reason = gap_verdict(summ, "smith")
    u_verdict, u_reason = gap_verdict(summ, "uindex")
    proven = [r for r in rows if r["gap_smith"] is not None]
    worst_row = max(proven, key=lambda r: r["gap_smith"], default=None)
    worst: dict[str, Any] = {"value": None, "measure": "largest relative gap of Smith's rule",
                             "instance": None}  # fmt: skip
    files = []
    if worst_row is not None:
        worst.update(value=worst_row["gap_smith"], n=worst_row["n"],
                     instance_seed=worst_row["instance_seed"])  # fmt: skip
        if verdict == "fails":
            inst = generate(worst_row["n"], worst_row["instance_seed"],
                            max_checkpoints=cfg["max_checkpoints"])  # fmt: skip
            worst["instance"] = save_instance(inst, outdir, "claim7-worst", claim="7", **worst)
            files.append(worst["instance"])
    s = summ["slopes"]
    table, checks = _per_n_table(summ), _solver_checks(summ)
    not_proven = sum(e["not_proven"] for e in summ["per_n"])
    evidence = {
        "reason": reason,
        "uindex_verdict": u_verdict,
        "uindex_reason": u_reason,
        "by_n": table,
        "slopes": s,
        "fit": summ["fit"],
        "not_proven_excluded": not_proven,
        "exact_solver_checks": checks,
        "summary": summ,
        "settings": cfg,
    }

    def fmt(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.2f}"

    text = (
        f"slope of mean gap vs n: Smith {fmt(s['smith_mean'])}, u* {fmt(s['uindex_mean'])} "
        f"(n={cfg['ns'][0]}..{cfg['ns'][-1]}, {cfg['count']} each"
        + (f", {not_proven} not proven optimal, excluded" if not_proven else "")
        + ")"
    )
    return Verdict(
        "7",
        TITLE,
        verdict,
        len(rows),
        worst,
        {"zero_gap_rel_tol": ZERO_TOL},
        0.0,
        evidence,
        text,
        files=files,
    )
