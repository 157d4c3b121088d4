"""Tables of the online study: policy rankings per setting, where they change, and Markdown.

`rankings` orders the policies of each setting by a metric (exact ties joined by "=", as
Gittins and Sevcik's rank always tie); for a Philly setting under a feature success model it
also names the pairs of policies whose order differs from the uniform model's at the same
servers and load, and which of those swaps are significant at both ends (paired 95%
intervals on opposite sides of zero). `markdown` writes the paired table (the paper's
approach against each baseline) and the ranking table as one Markdown file.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from schedlab.experiments.sojourn.online_study import (
    APPROACHES,
    BASELINES,
    METRICS,
    SETTING_FIELDS,
    compare,
    setting_of,
)

RANK_METRICS = {"mean": "rep_mean_successful", "p99": "rep_p99_successful"}
RANKING_FIELDS = [
    *SETTING_FIELDS,
    "metric",
    "ranking",
    "best",
    "changed_vs_uniform",
    "swaps",
    "significant_swaps",
]


def _mean(values: Sequence[float]) -> float:
    v = [x for x in values if x is not None and np.isfinite(x)]
    return float(np.mean(v)) if v else float("nan")


def ranking_text(means: dict[str, float]) -> str:
    """'a < b = c < d': ascending by value, exact ties joined by '='."""
    order = sorted(means, key=lambda p: (means[p], p))
    text = order[0]
    for prev, p in itertools.pairwise(order):
        text += (" = " if means[p] == means[prev] else " < ") + p
    return text


def _swaps(
    ref: dict[str, dict[str, Any]], cur: dict[str, dict[str, Any]], field: str
) -> tuple[list[str], list[str]]:
    """Pairs ordered differently in `cur` than in `ref` (ties never swap), and those whose
    paired intervals lie on opposite sides of 0 in both."""
    swaps, significant = [], []
    for p, q in itertools.combinations(sorted(cur), 2):
        if p not in ref or q not in ref:
            continue
        r0 = _mean(ref[p][field]) - _mean(ref[q][field])
        r1 = _mean(cur[p][field]) - _mean(cur[q][field])
        if r0 * r1 < 0:
            first, second = (p, q) if r1 < 0 else (q, p)
            swaps.append(f"{first}<{second}")
            _, ci0, _ = compare(ref[p], ref[q], field)
            _, ci1, _ = compare(cur[p], cur[q], field)
            if ci0 and ci1 and (ci0[1] < 0 < ci1[0] or ci1[1] < 0 < ci0[0]):
                significant.append(f"{first}<{second}")
    return swaps, significant


def rankings(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (setting, metric): the ranking, and what changed against the uniform model."""
    groups: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(setting_of(r), {})[r["policy"]] = r
    out = []
    for s, pols in groups.items():
        row = dict(zip(SETTING_FIELDS, s, strict=True))
        uniform = None
        if row["workload"] == "philly" and row["outcome_model"] != "uniform":
            uniform = groups.get(("philly", "uniform", 0.0, row["servers"], row["load"]))
        for metric, field in RANK_METRICS.items():
            means = {p: _mean(r[field]) for p, r in pols.items()}
            rec = {**row, "metric": metric, "ranking": ranking_text(means),
                   "best": min(means, key=lambda p: (means[p], p)), "changed_vs_uniform": "",
                   "swaps": "", "significant_swaps": ""}  # fmt: skip
            if uniform is not None:
                sw, sig = _swaps(uniform, pols, field)
                rec.update(changed_vs_uniform="yes" if sw else "no", swaps="; ".join(sw),
                           significant_swaps="; ".join(sig))  # fmt: skip
            out.append(rec)
    return out


# ---- Markdown --------------------------------------------------------------------------------
def _cell(r: dict[str, Any], suffix: str) -> str:
    d, lo, hi, v = (r[f"{c}{suffix}"] for c in ("diff", "ci_low", "ci_high", "verdict"))
    if d is None or lo is None:
        return "n/a"
    mark = {"better": " **better**", "worse": " worse", "no difference": " ="}.get(v, "")
    return f"{100 * d:+.1f}% [{100 * lo:+.1f}, {100 * hi:+.1f}]{mark}"


def _setting_label(r: dict[str, Any]) -> list[str]:
    h = r["heterogeneity"]
    return [r["workload"], r["outcome_model"], "" if h is None else f"{h:g}",
            str(r["servers"]), f"{r['load']:g}"]  # fmt: skip


def paired_markdown(pair: list[dict[str, Any]]) -> list[str]:
    """Per approach and metric: a table, one row per setting, one column per baseline."""
    lines = []
    head = ["workload", "outcome model", "h", "servers", "load", *[f"vs {b}" for b in BASELINES]]
    for ap in APPROACHES:
        for suffix, (_field, what) in METRICS.items():
            rows = [r for r in pair if r["approach"] == ap]
            lines += [f"### `{ap}` vs each baseline: {what}", ""]
            lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            by: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
            for r in rows:
                by.setdefault(tuple(_setting_label(r)), {})[r["baseline"]] = r
            for label, cells in by.items():
                vals = [_cell(cells[b], suffix) if b in cells else "" for b in BASELINES]
                lines.append("| " + " | ".join([*label, *vals]) + " |")
            lines.append("")
    return lines


def claim_summary(pair: list[dict[str, Any]]) -> list[str]:
    """Where the approach beats every baseline on the claim's metric (mean, successful)."""
    lines = []
    for ap in APPROACHES:
        by: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for r in pair:
            if r["approach"] == ap:
                by.setdefault(tuple(_setting_label(r)), []).append(r)
        holds = [k for k, rs in by.items() if all(r["verdict"] == "better" for r in rs)]
        worse = [k for k, rs in by.items() if any(r["verdict"] == "worse" for r in rs)]
        lines.append(
            f"- `{ap}`: better than every baseline (mean sojourn of successful jobs, paired 95%) "
            f"in {len(holds)} of {len(by)} settings; worse than at least one in {len(worse)}."
        )
        for k in holds:
            lines.append(f"  - holds: {', '.join(x for x in k if x)}")
    return lines


def ranking_markdown(ranks: list[dict[str, Any]]) -> list[str]:
    head = ["workload", "outcome model", "h", "servers", "load", "metric", "ranking (lowest first)",
            "swaps vs uniform (significant)"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in ranks:
        sw = r["swaps"] or ("none" if r["changed_vs_uniform"] == "no" else "")
        if r["significant_swaps"]:
            sw += f" ({r['significant_swaps']})"
        lines.append("| " + " | ".join([*_setting_label(r), r["metric"], r["ranking"], sw]) + " |")
    return lines


def markdown(
    title: str, caption: str, pair: list[dict[str, Any]], ranks: list[dict[str, Any]]
) -> str:
    lines = [f"# {title}", "", caption, "", "## Where the claim holds", ""]
    lines += claim_summary(pair) + ["", "## Paired differences (approach / baseline - 1)", ""]
    lines += [
        "Each cell: mean over replications of the relative difference, [95% interval], and the "
        "verdict (**better**: the interval lies below 0; worse: above; =: no difference).",
        "",
    ]
    lines += paired_markdown(pair)
    lines += ["## Rankings, and where they change against the uniform success model", ""]
    lines += ranking_markdown(ranks) + [""]
    return "\n".join(lines)
