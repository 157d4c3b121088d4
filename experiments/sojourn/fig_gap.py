"""Figure `sojourn-gap`: the index heuristics' gap to the exact B optimum as n grows (log-log).

A thin call of the shared gap study (`experiments.gap`) on sojourn's family "b-large"
(`experiments/sojourn/gapspec.py`: claim 7's instances and sizes; every method tagged "index",
Smith's rule and the u*-index among them; exact optimum by the subset DP for n <= 20 and CP-SAT
above, CP-SAT checked against the DP on 10 <= n <= 20). With `family="cyclic"` (`schedlab
figure sojourn-gap --family cyclic`) the cyclic family, lpcut as the solver. Writes
results/sojourn/sojourn-gap[-cyclic].csv (the shared summary per n and method),
-instances.csv (one row per instance and method, with `gap`), .json (the fitted slope of
log(mean gap) on log(n) per method and how each optimum was proved), .md and .{png,pdf}.
Claim 7 computes its verdict from `theory/sojourn/gap_study.py` on the same instances.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedlab.experiments.gap.report import GAP_TAG, write_study
from schedlab.experiments.gap.study import Study, run_study
from schedlab.experiments.gap.summary import summarize
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import results_dir, write_json
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import FAMILIES
from schedlab.theory.sojourn.gap_study import fit_slope

NAME = "sojourn-gap"
GAP_FAMILY = {"default": "b-large", "cyclic": "cyclic"}


def slopes(summary: list[dict[str, Any]]) -> dict[str, Any]:
    """Per compared method: least-squares slope of log(mean gap) on log(n) over the n where the
    mean gap is positive, and how many such n there were."""
    out: dict[str, Any] = {}
    for m in dict.fromkeys(s["method"] for s in summary if s["role"] == "method"):
        pts = [(s["size"], s["mean_gap"]) for s in summary if s["method"] == m and s["mean_gap"]]
        out[m] = {
            "mean_gap_slope": fit_slope([p[0] for p in pts], [p[1] for p in pts]),
            "points": sum(1 for p in pts if p[1] > 0),
        }
    return out


def proofs(study: Study) -> dict[str, int]:
    """How the proven optima were proved: subset DP, a solver, or the pairwise-minimum argument
    (a transitive preference tournament: no solver call)."""
    out = {"subset DP": 0, "solver": 0, "pairwise minimum": 0, "unknown": 0}
    for r in study.rows:
        if not (r["reference"] and r["status"] == "optimal"):
            continue
        calls = r.get("solver_calls")
        kind = (
            "subset DP"
            if r["method"] == "dp"
            else "unknown"
            if calls is None
            else ("solver" if calls else "pairwise minimum")
        )
        out[kind] += 1
    return out


@register_figure(
    NAME,
    summary="gap of the index heuristics to the exact B optimum vs n (log-log, CSV, table)",
    in_reproduce=True,
    tags=(GAP_TAG,),
)
def figure(size: str, seed: int, outdir: Path, family: str = "default") -> list[Path]:
    """Small: n = 5..20, 20 instances each; full: n up to 200, 100 each. `family="cyclic"`
    (files sojourn-gap-cyclic.*): n = 10..60, 10 instances each (small) or n up to 80, 50 each
    (full), every optimum above n = 20 proven by a solver (lpcut)."""
    if family not in FAMILIES:
        raise InvalidInput(f"family: sojourn-gap takes {' or '.join(FAMILIES)} (got {family!r})")
    study = run_study("sojourn", GAP_FAMILY[family], size, seed, outdir)
    summary = summarize(study)
    name = NAME if family == "default" else f"{NAME}-{family}"
    how = proofs(study)
    note = "proofs: " + ", ".join(f"{v} by {k}" for k, v in how.items() if v)
    out = write_study(
        study,
        outdir,
        name=name,
        rows_suffix="-instances",
        summary_suffix="",
        summary=summary,
        xlabel="number of jobs n (log scale)",
        note=note,
    )
    meta = {
        "family": family,
        "size": size,
        "seed": seed,
        "slopes": slopes(summary),
        "fit": "least squares of log(mean gap) on log(n) over the n where it is positive",
        "proofs": how,
        "summary": summary,
    }
    return out + [write_json(results_dir(outdir, "sojourn") / f"{name}.json", meta)]
