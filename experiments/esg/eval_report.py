"""Tables of ESG's evaluation studies (`evaluation.run_study` rows): per-cell rates with
intervals made for them, the paired comparisons with ESG, the factor table, and the
paper-vs-ours table whose verdicts follow the claims catalogue's primary definitions.

Definitions (the catalogue's rows `hit-gain-61-80` and `cost-saving-47-187`,
theory/esg/claims.toml):
- relative hit-rate gain of ESG over baseline b: hit_ESG / hit_b - 1 (ratio of the mean hit
  rates over the same seeds; paired bootstrap interval); alternative reading: the difference
  in points, hit_ESG - hit_b (paired t-interval);
- cost saving of ESG against b: cost_b / cost_ESG - 1 (ratio of the mean costs per request;
  paired bootstrap interval; the only reading under which a saving above 100 % exists);
  alternative reading: 1 - cost_ESG / cost_b (the share of b's cost saved, at most 100 %).
A cell's verdict: "matches" when its interval meets the paper's range widened by the
catalogue's tolerance, "consistent in magnitude" when the value lies within the catalogue's
magnitude factor of the range, else "does not match".
"""

from __future__ import annotations

import math
import tomllib
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from schedlab.experiments.esg.eval_stats import mean_interval, paired_points, paired_ratio
from schedlab.experiments.esg.evaluation import (
    ARMS,
    BASELINES,
    Comparison,
    Study,
    by_cell,
    paired,
)

#: The catalogue rows whose paper numbers and tolerances the verdicts use.
HIT_CLAIM, COST_CLAIM = "hit-gain-61-80", "cost-saving-47-187"


@cache
def claim_band(claim_id: str) -> dict[str, float]:
    """The paper's range (%), tolerance and magnitude factor of a catalogue row."""
    text = resources.files("schedlab.theory.esg").joinpath("claims.toml").read_text()
    for c in tomllib.loads(text)["claims"]:
        if c["id"] == claim_id:
            pn, tol = c["paper_number"], c.get("tolerance", {})
            return {"low": float(pn["low"]), "high": float(pn["high"]),
                    "tol": float(tol.get("abs", 0.0)),
                    "magnitude": float(tol.get("magnitude", 2.0))}  # fmt: skip
    raise KeyError(f"claim {claim_id!r} not in theory/esg/claims.toml")


def band_verdict(value: float, lo: float, hi: float, claim_id: str) -> str:
    """A cell's verdict against the paper's range (values in %)."""
    b = claim_band(claim_id)
    if not math.isfinite(value):
        return "does not match"
    low, high = b["low"] - b["tol"], b["high"] + b["tol"]
    lo, hi = (value, value) if math.isnan(lo) else (lo, hi)
    if hi >= low and lo <= high:
        return "matches"
    if b["low"] / b["magnitude"] <= value <= b["high"] * b["magnitude"]:
        return "consistent in magnitude"
    return "does not match"


def cell_rows(study: Study, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (scenario, load, arm): mean hit rate and cost with 95 % bootstrap intervals over
    seeds, the pooled-request hit rate, p99 latency and decision time (means)."""
    out = []
    for (sc, x, arm), runs in sorted(by_cell(rows).items(), key=lambda kv: _order(study, kv[0])):
        rs = [runs[i] for i in sorted(runs)]
        hit, hlo, hhi = mean_interval([r["slo_hit_rate"] for r in rs])
        cost, clo, chi = mean_interval([r["cost"] for r in rs])
        out.append({
            "cell": f"{sc}@{x:g}/{arm}", "scenario": sc, "load": x, "arm": arm,
            "seeds": len(rs), "hit": hit, "hit_lo": hlo, "hit_hi": hhi, "cost": cost,
            "cost_lo": clo, "cost_hi": chi,
            "hit_pooled": sum(r["slo_hits"] for r in rs) / sum(r["measured_requests"] for r in rs),
            "p99_ms": float(np.mean([r["p99_latency_ms"] for r in rs])),
            "decision_p50_ms": float(np.mean([r["decision_ms_p50"] for r in rs])),
            "decision_p99_ms": float(np.mean([r["decision_ms_p99"] for r in rs])),
            "decision_cpu_p99_ms": float(np.mean([r["decision_cpu_ms_p99"] for r in rs])),
        })  # fmt: skip
    return out


def _order(study: Study, key: tuple[str, float, str]) -> tuple[int, float, int]:
    sc, x, arm = key
    return list(study.scenarios).index(sc), x, list(ARMS).index(arm)


def paired_rows(
    study: Study, rows: list[dict[str, Any]], status: dict[Comparison, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per comparison with ESG: the paired differences and ratios, on the arm's seeds."""
    cells = by_cell(rows)
    out = []
    for c in sorted(status, key=lambda c: _order(study, c)):
        n = status[c]["seeds"]
        ref_h, arm_h = paired(cells, c, n)
        ref_c, arm_c = paired(cells, c, n, "cost")
        d, dlo, dhi = paired_points(ref_h, arm_h)
        g, glo, ghi = paired_ratio(ref_h, arm_h)
        s, slo, shi = paired_ratio(arm_c, ref_c)
        alt = 1.0 - np.mean(ref_c) / np.mean(arm_c)
        out.append({
            "cell": f"{c[0]}@{c[1]:g}/{c[2]}", "scenario": c[0], "load": c[1], "arm": c[2],
            "seeds": len(ref_h),
            "decided": status[c]["decided"], "capped": status[c]["capped"],
            "hit_esg": float(np.mean(ref_h)), "hit_arm": float(np.mean(arm_h)),
            "gain_pts": d, "gain_pts_lo": dlo, "gain_pts_hi": dhi,
            "rel_gain_pct": 100 * g, "rel_gain_lo": 100 * glo, "rel_gain_hi": 100 * ghi,
            "cost_saving_pct": 100 * s, "cost_saving_lo": 100 * slo,
            "cost_saving_hi": 100 * shi, "cost_saving_alt_pct": 100 * float(alt),
        })  # fmt: skip
    return out


def paper_rows(paired_table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The paper-vs-ours rows: each baseline comparison with both verdicts and the readings."""
    out = []
    for r in paired_table:
        if r["arm"] not in BASELINES:
            continue
        out.append({
            "cell": f"{r['scenario']}@{r['load']:g}/{r['arm']}", "scenario": r["scenario"],
            "load": r["load"], "baseline": r["arm"], "seeds": r["seeds"],
            "rel_gain_pct": r["rel_gain_pct"], "rel_gain_lo": r["rel_gain_lo"],
            "rel_gain_hi": r["rel_gain_hi"],
            "hit_verdict": band_verdict(r["rel_gain_pct"], r["rel_gain_lo"], r["rel_gain_hi"],
                                        HIT_CLAIM),
            "gain_pts": r["gain_pts"], "gain_pts_lo": r["gain_pts_lo"],
            "gain_pts_hi": r["gain_pts_hi"],
            "cost_saving_pct": r["cost_saving_pct"], "cost_saving_lo": r["cost_saving_lo"],
            "cost_saving_hi": r["cost_saving_hi"],
            "cost_verdict": band_verdict(r["cost_saving_pct"], r["cost_saving_lo"],
                                         r["cost_saving_hi"], COST_CLAIM),
            "cost_saving_alt_pct": r["cost_saving_alt_pct"],
        })  # fmt: skip
    return out


def _ci(v: float, lo: float, hi: float, digits: int = 1) -> str:
    """'v [lo, hi]' ('v' when no interval; 'inf' for an infinite value)."""
    if not math.isfinite(v):
        return "inf"
    if math.isnan(lo) or math.isnan(hi):
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _mark(r: dict[str, Any]) -> str:
    """The stopping rule's outcome: decided, or the seed cap reached."""
    return "" if r["decided"] else " (cap)"


def cells_md(cells: list[dict[str, Any]]) -> list[str]:
    """Hit rate and cost per cell (95 % bootstrap intervals over seeds)."""
    lines = ["| scenario | load | arm | seeds | hit rate % | pooled % | cost (1e-6) | p99 ms | "
             "decision p99 ms (wall / CPU) |", "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in cells:
        lines.append(
            f"| {r['scenario']} | {r['load']:g} | {r['arm']} | {r['seeds']} | "
            f"{_ci(100 * r['hit'], 100 * r['hit_lo'], 100 * r['hit_hi'])} | "
            f"{100 * r['hit_pooled']:.1f} | "
            f"{_ci(1e6 * r['cost'], 1e6 * r['cost_lo'], 1e6 * r['cost_hi'], 2)} | "
            f"{r['p99_ms']:.0f} | {r['decision_p99_ms']:.2f} / {r['decision_cpu_p99_ms']:.2f} |"
        )
    return lines


#: The paper's three factors (the "which factor" columns of the factor table).
PAPER_FACTORS = ("no-gpu-sharing", "no-batching", "no-replan")


def factors_md(
    paired_table: list[dict[str, Any]], arms: list[str], cells: list[dict[str, Any]]
) -> list[str]:
    """Per scenario and load: ESG's loss (points, cost %) when each arm replaces it, and which
    of the paper's three factors costs ESG most: in hit rate (the largest loss whose interval
    excludes 0) and in cost (the largest extra cost whose interval excludes 0)."""
    esg = {(c["scenario"], c["load"]): c["hit"] for c in cells if c["arm"] == "esg"}
    cell: dict[tuple[str, float], dict[str, dict[str, Any]]] = {}
    for r in paired_table:
        cell.setdefault((r["scenario"], r["load"]), {})[r["arm"]] = r
    head = "| scenario | load | ESG hit % | " + " | ".join(arms) + " | factor: hit | factor: cost |"
    lines = [head, "|---|---|---|" + "---|" * (len(arms) + 2)]
    for (sc, x), by_arm in cell.items():
        parts = []
        for a in arms:
            if a not in by_arm:
                parts.append("-")
                continue
            r = by_arm[a]
            parts.append(f"{_ci(r['gain_pts'], r['gain_pts_lo'], r['gain_pts_hi'])} pts / "
                         f"{r['cost_saving_pct']:+.0f} %{_mark(r)}")  # fmt: skip
        facs = [by_arm[a] for a in PAPER_FACTORS if a in by_arm]
        hit = [r for r in facs if r["gain_pts_lo"] > 0]
        cost = [r for r in facs if r["cost_saving_lo"] > 0]
        top_hit = max(hit, key=lambda r: r["gain_pts"])["arm"] if hit else "none"
        top_cost = max(cost, key=lambda r: r["cost_saving_pct"])["arm"] if cost else "none"
        lines.append(f"| {sc} | {x:g} | {100 * esg.get((sc, x), float('nan')):.1f} | " +
                     " | ".join(parts) + f" | {top_hit} | {top_cost} |")  # fmt: skip
    return lines


def paper_md(paper: list[dict[str, Any]]) -> list[str]:
    """The paper-vs-ours table, one row per (cell, baseline), both readings and verdicts."""
    lines = [
        "| scenario | load | baseline | seeds | hit_ESG / hit_b - 1 (%) | verdict (61-80 %) | "
        "points | cost_b / cost_ESG - 1 (%) | verdict (47-187 %) | 1 - cost_ESG / cost_b (%) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in paper:
        lines.append(
            f"| {r['scenario']} | {r['load']:g} | {r['baseline']} | {r['seeds']} | "
            f"{_ci(r['rel_gain_pct'], r['rel_gain_lo'], r['rel_gain_hi'], 0)} | "
            f"{r['hit_verdict']} | {_ci(r['gain_pts'], r['gain_pts_lo'], r['gain_pts_hi'])} | "
            f"{_ci(r['cost_saving_pct'], r['cost_saving_lo'], r['cost_saving_hi'], 0)} | "
            f"{r['cost_verdict']} | {r['cost_saving_alt_pct']:.0f} |"
        )
    return lines


def verdict_counts(paper: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per baseline, how many cells each verdict got (hit and cost)."""
    out: dict[str, dict[str, int]] = {}
    for r in paper:
        for k in ("hit", "cost"):
            d = out.setdefault(f"{r['baseline']}/{k}", {})
            d[r[f"{k}_verdict"]] = d.get(r[f"{k}_verdict"], 0) + 1
    return out


def seeds_md(study: Study, status: dict[Comparison, dict[str, Any]]) -> list[str]:
    """How the sequential seeds ended: decided comparisons, and where the cap was reached."""
    capped = [c for c, s in status.items() if s["capped"]]
    lines = [
        f"Seeds: {study.seeds0} to start, +{study.seed_step} while the paired hit-rate "
        f"difference's 95 % t-interval neither excludes 0 nor is narrower than 5 points, cap "
        f"{study.seed_cap}; {len(status) - len(capped)} of {len(status)} comparisons decided."
    ]
    if capped:
        lines.append("Cap reached (undecided): " + ", ".join(
            f"{sc}@{x:g}/{a}" for sc, x, a in sorted(capped, key=lambda c: _order(study, c))
        ) + ".")  # fmt: skip
    left = {s: a for s, a in study.left_out().items() if a}
    if left:
        lines.append("Left out (needs CPU-only profiles): " + "; ".join(
            f"{s}: {', '.join(a)}" for s, a in left.items()) + ".")  # fmt: skip
    return lines


def time_md(rows: list[dict[str, Any]]) -> list[str]:
    """Where the study's CPU time went (each run's CPU seconds as journaled when computed):
    per arm and per scenario and load, with the run counts."""
    total = sum(r.get("cpu_s", 0.0) for r in rows if r.get("cpu_s") == r.get("cpu_s"))
    lines = [f"CPU time of the runs (as journaled when computed): {total:.1f} s over "
             f"{len(rows)} runs.", "", "| by | runs | CPU s | share |",
             "|---|---|---|---|"]  # fmt: skip
    for label, key in (("arm", lambda r: r["arm"]),
                       ("cell", lambda r: f"{r['scenario']}@{r['load']:g}")):  # fmt: skip
        agg: dict[str, list[float]] = {}
        for r in rows:
            c = r.get("cpu_s", 0.0)
            agg.setdefault(key(r), []).append(c if c == c else 0.0)
        for k, v in sorted(agg.items(), key=lambda kv: -sum(kv[1])):
            share = 100 * sum(v) / total if total > 0 else 0.0
            lines.append(f"| {label} {k} | {len(v)} | {sum(v):.1f} | {share:.0f} % |")
    return lines


def attribution_rows(study: Study, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Where ESG's advantage over each baseline comes from: per (scenario, load, baseline),
    the advantage of full ESG and of ESG with each of the paper's factors off, over the
    baseline on their common seeds: hit-rate points (paired t) and the baseline's cost over
    the arm's minus 1 (paired bootstrap). A factor whose removal takes the advantage to 0 is
    where it comes from."""
    cells = by_cell(rows)
    out = []
    for sc in study.scenarios:
        for x in study.loads:
            for b in (a for a in BASELINES if (sc, x, a) in cells):
                for arm in ("esg", *PAPER_FACTORS):
                    if (sc, x, arm) in cells:
                        row = _advantage(cells[(sc, x, arm)], cells[(sc, x, b)])
                        out.append({"scenario": sc, "load": x, "baseline": b, "arm": arm, **row})
    return out


def _advantage(mine: dict[int, dict[str, Any]], base: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """One arm's advantage over a baseline on their common seeds (points; cost saving %)."""
    seeds = sorted(set(mine) & set(base))
    h, hlo, hhi = paired_points(
        [mine[i]["slo_hit_rate"] for i in seeds], [base[i]["slo_hit_rate"] for i in seeds]
    )
    c, clo, chi = paired_ratio([base[i]["cost"] for i in seeds], [mine[i]["cost"] for i in seeds])
    return {"seeds": len(seeds), "gain_pts": h, "gain_pts_lo": hlo, "gain_pts_hi": hhi,
            "cost_saving_pct": 100 * c, "cost_saving_lo": 100 * clo,
            "cost_saving_hi": 100 * chi}  # fmt: skip


def attribution_md(attr: list[dict[str, Any]]) -> list[str]:
    """The attribution table: per cell and baseline, ESG's advantage (points / cost saving %)
    with all factors, and with each factor off."""
    arms = ("esg", *PAPER_FACTORS)
    names = ["ESG" if a == "esg" else f"ESG {a}" for a in arms]
    lines = ["| scenario | load | baseline | " + " | ".join(names) + " |",
             "|---|---|---|" + "---|" * len(arms)]  # fmt: skip
    cell: dict[tuple[str, float, str], dict[str, dict[str, Any]]] = {}
    for r in attr:
        cell.setdefault((r["scenario"], r["load"], r["baseline"]), {})[r["arm"]] = r
    for (sc, x, b), by_arm in cell.items():
        parts = [_adv(by_arm[a]) if a in by_arm else "-" for a in arms]
        lines.append(f"| {sc} | {x:g} | {b} | " + " | ".join(parts) + " |")
    return lines


def _adv(r: dict[str, Any]) -> str:
    pts = _ci(r["gain_pts"], r["gain_pts_lo"], r["gain_pts_hi"])
    return f"{pts} pts / {_ci(r['cost_saving_pct'], r['cost_saving_lo'], r['cost_saving_hi'], 0)} %"
