"""The one summary of a gap study: per (group, rung, method), gap statistics with 95 % intervals.

Over the instances whose optimum was proven: the mean gap with its t-interval, the median with
its distribution-free interval (order statistics of Binomial(n, 1/2)), the worst gap, and the
share of instances where the method is optimal (gap within `study.ZERO_TOL`) with its Wilson
interval; the method's mean and worst time. Instances whose exact solve proved nothing are left
out of these and counted (`unproven`), with the largest gap to the best proven bound among them
(an upper bound on the true gap). A gap below zero on a proven instance means the method's
answer lies outside the exact problem's feasible set (Synergy's GREEDY) or the optimum is wrong:
counted as `below_optimum`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedlab.experiments.gap.study import ZERO_TOL, Study
from schedlab.experiments.stats import t_half_width

Z95 = 1.959963984540054  # two-sided 95 % normal quantile (Wilson interval)


def median_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float | None, ...]:
    """(lo, hi): order statistics x_(j), x_(n+1-j) covering the median with probability at
    least `confidence` (None, None when n is too small for any pair to reach it)."""
    x = sorted(values)
    n = len(x)
    alpha = 1 - confidence
    cdf, j = 0.0, 0
    while True:
        nxt = cdf + math.comb(n, j) / (1 << n)  # exact integers: no overflow
        if nxt > alpha / 2 or j + 1 > n - j:
            break
        cdf, j = nxt, j + 1
    if j == 0:
        return None, None
    return x[j - 1], x[n - j]


def wilson(successes: int, n: int) -> tuple[float | None, float | None]:
    """The 95 % Wilson score interval of a share (None, None for n = 0)."""
    if n == 0:
        return None, None
    p, z2 = successes / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _zero(gap: float, row: dict[str, Any]) -> bool:
    scale = 1.0 if row["gap_kind"] == "relative" else max(1.0, abs(row["optimum"] or 0.0))
    return abs(gap) <= ZERO_TOL * scale


def _gap_stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean, median and worst gap with intervals, share optimal, over rows of proven optima."""
    with_gap = [r for r in rows if r["gap"] is not None]
    gaps = np.array([0.0 if _zero(r["gap"], r) else r["gap"] for r in with_gap], dtype=float)
    opt = int(sum(_zero(r["gap"], r) for r in with_gap))
    lo, hi = median_interval(list(gaps))
    slo, shi = wilson(opt, len(gaps))
    n = len(gaps)
    return {
        "gaps": n,
        "mean_gap": float(gaps.mean()) if n else None,
        "mean_gap_ci95": t_half_width(gaps) if n else None,
        "median_gap": float(np.median(gaps)) if n else None,
        "median_lo": lo,
        "median_hi": hi,
        "worst_gap": float(gaps.max()) if n else None,
        "share_optimal": opt / n if n else None,
        "share_optimal_lo": slo,
        "share_optimal_hi": shi,
        "below_optimum": int(sum(g < 0 for g in gaps)),
    }


def _times(rows: list[dict[str, Any]]) -> dict[str, Any]:
    t = [r["runtime_s"] for r in rows if r["runtime_s"] is not None]
    return {"mean_time_s": float(np.mean(t)) if t else None, "max_time_s": max(t, default=None)}


def summarize(study: Study) -> list[dict[str, Any]]:
    """One row per (group, rung, method) in ladder order, exact methods first."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in study.rows:
        groups.setdefault((r["group"], r["rung"], r["method"]), []).append(r)
    out = []
    for (group, label, method), rs in groups.items():
        proven = [r for r in rs if r["proven"]]
        unproven = [r for r in rs if not r["proven"] and not r["infeasible"]]
        vs_bound = [r["gap"] for r in unproven if r["gap"] is not None]
        out.append(
            {
                "group": group,
                "rung": label,
                "size": rs[0]["size"],
                "kind": rs[0]["kind"],
                "method": method,
                "role": rs[0]["role"],
                "gap_kind": rs[0]["gap_kind"],
                "instances": len(rs),
                "proven": len(proven),
                "infeasible": sum(r["infeasible"] for r in rs),
                **_gap_stats(proven),
                "no_value": sum(r["value"] is None for r in proven),
                "unproven": len(unproven),
                "max_gap_vs_bound_unproven": max(vs_bound, default=None),
                "disagree": sum(r["agrees"] is False for r in rs),
                **_times(rs),
            }
        )
    return out


def _pct(x: float | None, kind: str, digits: int = 2) -> str:
    """A relative gap in % (two decimals; two significant digits below 0.01 %), an absolute
    one with three significant digits."""
    if x is None:
        return "–"
    if kind != "relative":
        return f"{x:.3g}"
    return f"{100 * x:.2g}" if 0 < abs(100 * x) < 10**-digits else f"{100 * x:.{digits}f}"


def _cell(s: dict[str, Any]) -> list[str]:
    k = s["gap_kind"]
    mean = _pct(s["mean_gap"], k)
    if s["mean_gap_ci95"] is not None:
        mean += f" ± {_pct(s['mean_gap_ci95'], k)}"
    med = _pct(s["median_gap"], k)
    if s["median_lo"] is not None:
        med += f" [{_pct(s['median_lo'], k)}, {_pct(s['median_hi'], k)}]"
    share = "–" if s["share_optimal"] is None else f"{100 * s['share_optimal']:.0f}"
    if s["share_optimal_lo"] is not None:
        share += f" [{100 * s['share_optimal_lo']:.0f}, {100 * s['share_optimal_hi']:.0f}]"
    ms = "–" if s["mean_time_s"] is None else f"{1000 * s['mean_time_s']:.3g}"
    return [mean, med, _pct(s["worst_gap"], k), share, ms]


def markdown(study: Study, summary: list[dict[str, Any]], caption: str) -> str:
    """Per group, a table of rung x method: proven/instances, mean, median, worst gap (%, or
    absolute), share optimal (%) with 95 % intervals, mean time."""
    parts = [caption, ""]
    for group in dict.fromkeys(s["group"] for s in summary):
        rows = [s for s in summary if s["group"] == group]
        unit = "%" if rows[0]["gap_kind"] == "relative" else "absolute"
        parts += [
            f"{study.subject} / {study.family}, {group}: gap to the proven optimum ({unit}); "
            "mean ± 95 % t-interval, median [95 % interval], worst; optimal % [95 % Wilson]",
            "",
            "| size | method | proven / instances | mean gap | median gap | worst gap | "
            "optimal % | mean time (ms) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for s in rows:
            tag = " (exact)" if s["role"] == "exact" else ""
            note = f", {s['below_optimum']} below" if s["below_optimum"] else ""
            note += f", {s['no_value']} no answer" if s["no_value"] else ""
            parts.append(
                f"| {s['rung']} | {s['method']}{tag} | {s['proven']}/{s['instances']}{note} | "
                + " | ".join(_cell(s))
                + " |"
            )
        parts.append("")
    return "\n".join(parts)
