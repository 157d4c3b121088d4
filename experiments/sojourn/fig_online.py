"""Figures `sojourn-online` (in the reproduction) and `sojourn-online-grid` (the full grid).

Both run the online study of `online_study`: the paper's approach (our reading: Smith's
index applied at each decision, `smith` without and `gamma` with checkpoint preemption)
paired against FCFS, SEPT, SERPT, Gittins and Sevcik's rank, on synthetic Poisson arrivals
and on the Philly trace's arrivals under each success model. `sojourn-online` is the reduced
grid that `schedlab reproduce` runs (small: the shipped 2,000-job Philly sample; full: the
full trace from $SCHEDLAB_PHILLY_TRACE or ../shared/data/philly/philly_jobs.csv);
`sojourn-online-grid` is the larger grid (more server counts, loads and heterogeneities),
outside the reproduction for its time. Rows are journaled (RowStore), so an interrupted run
resumes. Files (STEM = the figure's name): STEM.csv (one row per setting and policy),
STEM-paired.csv (one row per setting, approach and baseline: diff, ci_low, ci_high, verdict
for the mean successful sojourn, then _p90, _p99 and _all), STEM-ranking.csv, STEM-paired.md
(the tables), STEM.{png,pdf} (load curves, mean and p99), STEM-paired.{png,pdf} (heatmaps of
the paired differences), STEM-sensitivity.{png,pdf} (Philly: each policy against SEPT as the
success model's heterogeneity grows) and STEM.json.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import asdict
from pathlib import Path

from schedlab.experiments.ladder import pick
from schedlab.experiments.registry import register_figure
from schedlab.experiments.sojourn import online_plots
from schedlab.experiments.sojourn.online_report import RANKING_FIELDS, markdown, rankings
from schedlab.experiments.sojourn.online_study import (
    APPROACHES,
    BASELINES,
    KEY_FIELDS,
    PAIRED_FIELDS,
    StudyConfig,
    compute,
    paired,
)
from schedlab.experiments.sojourn.workload_philly import OUTCOME_MODEL
from schedlab.experiments.store import results_dir, write_csv, write_json
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.util import atomic_write_text

NAME = "sojourn-online"
GRID = "sojourn-online-grid"
ROOT = Path(__file__).resolve().parents[2]
SHARED_TRACE = ROOT.parent / "shared" / "data" / "philly" / "philly_jobs.csv"
ROW_FIELDS = [
    *KEY_FIELDS,
    "jobs",
    "excluded_jobs",
    "replications",
    "offered_load",
    "mean_sojourn_successful",
    "ci95_successful_low",
    "ci95_successful_high",
    "mean_sojourn_all",
    "ci95_all_low",
    "ci95_all_high",
    "p50_successful",
    "p90_successful",
    "p99_successful",
    "successful_jobs",
    "utilization",
    "preemptions",
    "runtime_s",
]


def full_trace_path() -> str:
    env = os.environ.get("SCHEDLAB_PHILLY_TRACE")
    if env:
        return env
    if SHARED_TRACE.exists():
        return str(SHARED_TRACE)
    raise InvalidInput(
        "figure sojourn-online --size full needs the full Philly trace: set "
        "SCHEDLAB_PHILLY_TRACE=/path/to/philly_jobs.csv"
    )


#: `tiny` (tests, both studies): 100 synthetic jobs and the shipped Philly sample, no trace.
TINY = StudyConfig((2,), (0.5, 0.8), 100, 2, None, (32,), (0.7,), 2, sweep_h=(0.5, 1.0),
                   sweep_loads=(0.7,))  # fmt: skip


def config_for(size: str) -> StudyConfig:
    """`sojourn-online`: the reduced grid of the reproduction (`InvalidInput` on another size)."""
    return pick(size, {"tiny": lambda: TINY, "small": _online_small, "full": _online_full})()


def _online_small() -> StudyConfig:
    return StudyConfig((4,), (0.5, 0.8, 0.95), 2000, 5, None, (64,), (0.95,), 3,
                       sweep_h=(1.0,), sweep_loads=(0.95,))  # fmt: skip


def _online_full() -> StudyConfig:
    return StudyConfig((4, 16), (0.5, 0.7, 0.8, 0.9, 0.95), 10_000, 10, full_trace_path(),
                       (256,), (0.95,), 3)  # fmt: skip


def grid_config_for(size: str) -> StudyConfig:
    """`sojourn-online-grid`: more server counts, loads and heterogeneities."""
    return pick(size, {"tiny": lambda: TINY, "small": _grid_small, "full": _grid_full})()


def _grid_small() -> StudyConfig:
    return StudyConfig((1, 4), (0.5, 0.7, 0.9, 0.95), 2000, 6, None, (32, 64),
                       (0.5, 0.7, 0.9, 0.95), 3, sweep_h=(0.5, 1.0),
                       sweep_loads=(0.8, 0.95))  # fmt: skip


def _grid_full() -> StudyConfig:
    return StudyConfig((1, 4, 16, 64), (0.5, 0.6, 0.7, 0.8, 0.9, 0.95), 20_000, 20,
                       full_trace_path(), (128, 512), (0.5, 0.7, 0.9, 0.95), 3,
                       sweep_h=(0.5, 1.0), sweep_loads=(0.8, 0.95))  # fmt: skip


def caption(cfg: StudyConfig, stem: str, size: str, seed: int) -> str:
    src = cfg.philly_trace or "shipped 2,000-job sample (experiments/traces/data)"
    return (
        f"{stem}, size {size}, seed {seed}. Synthetic: {cfg.synthetic_jobs} jobs x "
        f"{cfg.synthetic_replications} replications, Poisson arrivals, servers "
        f"{list(cfg.synthetic_servers)}, checkpoint law of `sojourn generate` (C="
        f"{cfg.max_checkpoints}). Philly: {src}, GPUs {list(cfg.philly_servers)}, arrivals "
        f"scaled to each load, {cfg.philly_replications} outcome draws. {OUTCOME_MODEL}. "
        f"Approach (our reading): {', '.join(APPROACHES)}; baselines: {', '.join(BASELINES)}; "
        "every policy sees the same jobs and outcomes per replication."
    )


def figure_caption(cfg: StudyConfig, stem: str, size: str, seed: int) -> str:
    """The short caption under each figure (the full one is in STEM-paired.md and the JSON)."""
    src = "full trace" if cfg.philly_trace else "shipped 2,000-job sample"
    text = (
        f"{stem}, size {size}, seed {seed}. Synthetic: {cfg.synthetic_jobs} jobs x "
        f"{cfg.synthetic_replications} replications, Poisson arrivals, servers "
        f"{list(cfg.synthetic_servers)}. Philly ({src}): GPUs {list(cfg.philly_servers)}, "
        f"arrivals scaled to each load, {cfg.philly_replications} outcome draws; success models "
        "with mean 0.624 (docs/sojourn.md). Same jobs and outcomes for every policy per "
        "replication."
    )
    return "\n".join(textwrap.wrap(text, 190))


def build(cfg: StudyConfig, seed: int, outdir: Path, size: str = "custom",
          stem: str = NAME) -> list[Path]:  # fmt: skip
    """Run (or resume) the study and write every file of `stem`."""
    rows = compute(cfg, seed, outdir, stem, size)
    d = results_dir(outdir, "sojourn")
    pair, ranks = paired(rows), rankings(rows)
    cap, short = caption(cfg, stem, size, seed), figure_caption(cfg, stem, size, seed)
    out = [
        write_csv(d / f"{stem}.csv", rows, ROW_FIELDS),
        write_csv(d / f"{stem}-paired.csv", pair, PAIRED_FIELDS),
        write_csv(d / f"{stem}-ranking.csv", ranks, RANKING_FIELDS),
    ]
    md = d / f"{stem}-paired.md"
    atomic_write_text(md, markdown(f"{stem}: the online claim, paired", cap, pair, ranks))
    out.append(md)
    out += online_plots.load_curves(rows, d / stem, short)
    out += online_plots.paired_heatmaps(pair, d / f"{stem}-paired", short)
    if any(r["workload"] == "philly" for r in rows):
        out += online_plots.sensitivity(rows, d / f"{stem}-sensitivity", short)
    meta = {"figure": stem, "size": size, "seed": seed, "config": asdict(cfg), "caption": cap,
            "paired": pair, "ranking": ranks, "rows": rows}  # fmt: skip
    out.append(write_json(d / f"{stem}.json", meta))
    return out


@register_figure(
    NAME, summary="online claim: the paper's approach vs each baseline, paired (reduced grid)"
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    return build(config_for(size), seed, outdir, size, NAME)


@register_figure(
    GRID,
    summary="online claim on the larger grid (servers, loads, heterogeneity); not in reproduce",
    in_reproduce=False,
)
def make_grid(size: str, seed: int, outdir: Path) -> list[Path]:
    return build(grid_config_for(size), seed, outdir, size, GRID)
