"""Figure `sojourn-gap`: gap of Smith's rule and the u*-index to the exact B optimum vs n.

The numbers come from theory.sojourn.gap_study (the computation behind claim 7, one implementation):
random instances per n, exact optimum by subset DP (n <= 20) or CP-SAT, rows journaled under
results/theory/journal/ so a rerun resumes and claim 7 at the same size reuses them. Writes
results/sojourn/sojourn-gap.{png,pdf,csv,json} and sojourn-gap-instances.csv; with the option
family="cyclic" (`schedlab figure sojourn-gap --family cyclic`) the same for the cyclic family
under sojourn-gap-cyclic.*. The caption counts which argument proved each optimum.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from matplotlib.ticker import NullFormatter, ScalarFormatter

from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import results_dir, write_csv, write_json
from schedlab.experiments.theory_cli import journal_runner
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import FAMILIES
from schedlab.theory.sojourn.gap_study import GAP_CONFIGS, HEURISTICS, ZERO_TOL, gap_rows, summarize
from schedlab.theory.verdict import RunnerFactory

NAME = "sojourn-gap"
LABELS = {"smith": "Smith's rule E[X]/π", "uindex": "u*-index, u* = 1 − 1/E[N]"}
COLORS = {"smith": "tab:blue", "uindex": "tab:red"}
STATS = ("median", "p90", "mean", "max", "share_zero", "count")


def table(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One CSV row per n: counts, then median/p90/mean/max/share_zero per heuristic."""
    out = []
    for e in summary["per_n"]:
        row: dict[str, Any] = {k: e[k] for k in ("n", "instances", "proven_optimal", "not_proven")}
        for h in HEURISTICS:
            for s in STATS:
                row[f"{h}_{s}"] = e[h][s]
        out.append(row)
    return out


def plot(summary: dict[str, Any], stem: Path, caption: str) -> list[Path]:
    """Left: median and p90 gap vs n (log-log; zero gaps drawn at the floor). Right: share
    of instances where the heuristic is optimal."""
    fig, (ax, ax2) = new_figure(1, 2, figsize=(10, 5.6), gridspec_kw={"width_ratios": [3, 2]})
    per_n = [e for e in summary["per_n"] if e["smith"]["count"]]
    ns = [e["n"] for e in per_n]
    floor = ZERO_TOL
    slopes = summary["slopes"]
    for h in HEURISTICS:
        slope = slopes.get(f"{h}_mean")
        tag = f" (mean-gap slope {slope:.2f})" if slope is not None else ""
        for stat, style, marker, lw in (
            ("median", "-", "o", 1.6),
            ("p90", "--", "s", 1.6),
            ("mean", ":", "^", 1.0),
        ):
            ys = [max(e[h][stat], floor) for e in per_n]
            ax.plot(ns, ys, style, marker=marker, color=COLORS[h], lw=lw, ms=4,
                    label=f"{LABELS[h]}: {stat}" + (tag if stat == "mean" else ""))  # fmt: skip
        ax2.plot(ns, [100 * e[h]["share_zero"] for e in per_n], "-o", color=COLORS[h],
                 label=LABELS[h])  # fmt: skip
    ax.axhline(floor, color="0.6", lw=0.8, ls=":")
    ax.text(ns[0] if ns else 1, floor * 1.4, f"gap ≤ {floor:g} (optimal) drawn here",
            fontsize=7, color="0.4")  # fmt: skip
    for a in (ax, ax2):
        a.set_xscale("log")
        a.set_xticks(ns)
        a.xaxis.set_major_formatter(ScalarFormatter())
        a.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yscale("log")
    ax.set_xlabel("number of jobs n (log scale)")
    ax.set_ylabel("relative gap to exact B optimum (log scale)")
    ax.set_title("Gap of index heuristics for B (median, p90, mean)")
    ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    ax.grid(True, which="both", alpha=0.3)
    ax2.set_ylim(-2, 102)
    ax2.set_xlabel("number of jobs n (log scale)")
    ax2.set_ylabel("instances where the heuristic is optimal (%)")
    ax2.set_title("Share of zero gaps")
    ax2.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    ax2.grid(True, alpha=0.3)
    return save_figure(fig, stem, textwrap.fill(caption, 190))


def make(
    config: dict[str, Any],
    seed: int,
    outdir: Path,
    size_label: str,
    runner: RunnerFactory | None = None,
) -> list[Path]:
    """Compute (resuming) the gap rows of `config`, write CSV/JSON and the figure."""
    rows = gap_rows(config, seed, runner or journal_runner(outdir))
    summary = summarize(rows)
    d = results_dir(outdir, "sojourn")
    family = config.get("family", "default")
    name = NAME if family == "default" else f"{NAME}-{family}"
    paths = [
        write_csv(d / f"{name}.csv", table(summary)),
        write_csv(d / f"{name}-instances.csv", rows),
        write_json(d / f"{name}.json", {"config": config, "seed": seed, **summary}),
    ]
    not_proven = sum(e["not_proven"] for e in summary["per_n"])
    kinds = summary["per_n"][0]["proofs"]
    proofs = {k: sum(e["proofs"][k] for e in summary["per_n"]) for k in kinds}
    how = ", ".join(f"{v} by {k}" for k, v in proofs.items() if v)
    if config.get("family", "default") == "cyclic":
        workload = (
            "solvers.sojourn.generate.generate(family='cyclic') (one checkpoint/job, "
            "index lines through one point: one preference component of >= 80% of n)"
        )
    else:
        workload = (
            f"solvers.sojourn.generate.generate (<= {config['max_checkpoints']} "
            "checkpoints/job, success sizes log-uniform on [1, 100])"
        )
    caption = (
        f"workload: {workload}; {config['count']} instances per n; size {size_label}; seed "
        f"{seed}; exact optimum: subset DP (n <= 20), {', '.join(summary['per_n'][-1]['methods'])}"
        f" above ({config['time_limit_s']:g} s limit; {not_proven} not proven optimal, "
        f"excluded); proofs: {how}"
    )  # fmt: skip
    return plot(summary, d / name, caption) + paths


@register_figure(
    NAME,
    summary="gap of Smith's rule and the u*-index to the exact B optimum vs n (log-log, CSV)",
    in_reproduce=True,
)
def figure(size: str, seed: int, outdir: Path, family: str = "default") -> list[Path]:
    """Small: n = 5..20, 20 instances each (about a minute); full: n up to 200, 100 each.
    `family="cyclic"` (files sojourn-gap-cyclic.*): n = 10..60, 10 instances each (small) or
    n up to 80, 50 each (full), every optimum above n = 20 proven by a solver (lpcut)."""
    if family not in FAMILIES:
        raise InvalidInput(f"family: sojourn-gap takes {' or '.join(FAMILIES)} (got {family!r})")
    key = size if family == "default" else f"{family}-{size}"
    return make(GAP_CONFIGS[key], seed, outdir, size)
