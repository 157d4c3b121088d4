"""The Synergy paper's other simulated figures, each a registered study (outside `reproduce`).

Which experiment each paper figure is, is known from the authors' README (`ae-readme.md` of
msr-fiddle/synergy @1bb2bed); its values are not available here (the evaluation section was not
read), so each study writes our numbers and a figure with a caption saying what it shows:

- `synergy-fig1` (Fig 1): LAS and SRTF, GPU-proportional vs TUNE, multi-GPU jobs, JCT vs load.
- `synergy-fig6` (Fig 6): real Philly arrival times and GPU counts on 64 servers (512 GPUs).
  The authors use the full Philly job log (hours 2400-3000 of it, first 8,000 jobs, durations
  as logged), which is not shipped here: we replay the shipped 2,000-job sample of 10 virtual
  clusters (`experiments/traces/data`, CC-BY-4.0), labelled as such.
- `synergy-fig7` (Fig 7): multi-GPU Philly-derived workload, FIFO and SRTF, JCT vs load.
- `synergy-fig9` (Fig 9): task-class splits image/language/speech 20/70/10, 33/33/33, 50/0/50 at
  9 jobs/h, JCT CDFs, FIFO.
- `synergy-fig12` (Fig 12): TETRIS and DRF, each with GREEDY and with TUNE, JCT vs load.
- `synergy-cpu-ratio`: CPU:GPU ratio 3, 4, 5, 6 (servers of 24/32/40/48 CPUs with the authors'
  profiles for that ratio, `solvers/synergy/data/profiles_cpu*.json`), FIFO, proportional vs
  TUNE, JCT vs load.

Our multi-GPU jobs draw 1/2/4/8 GPUs w.p. .70/.10/.15/.05 (the authors' synthetic mix); the
authors' multi-GPU figures take the GPU counts of the full Philly log, which is not public here.
Sizes: "full" 16 servers (64 for Fig 6), jobs 4000-4999, loads per figure below; "tiny" 4
servers with loads scaled by 4/16 and jobs 150-299 (`SMALL`). At "small" the studies whose
catalogue row the quick reproduction computes (`SMALL_AT_FULL`: Fig 6, Fig 9's 50/0/50 split,
CPU:GPU ratio 6 at 8 and 9 jobs/h) run the full size's cells that row reads, the same keys and
so the same numbers as at full; the others are scaled down as at tiny. Seed: the `--seed` (one
seed per point; `synergy-seeds` gives intervals for the default workload). Each writes
results/synergy/<name>.csv (mean, median, p99 JCT, makespan of the window's jobs, GPU/CPU/memory
utilization per point) and <name>.{png,pdf}.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.ladder import check
from schedlab.experiments.plotting import colours_for, new_figure, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.experiments.synergy.cells import sim_cell
from schedlab.experiments.synergy.metrics import cdf

SMALL: dict[str, Any] = {"servers": 4, "window": [150, 300]}  # the scaled-down setting
FULL: dict[str, Any] = {"servers": 16, "window": [4000, 5000]}
#: Size small of the studies whose catalogue row is computed at small: the full size's cells,
#: narrowed to these groups and loads (absent: all; `only` says which in the caption), so the
#: row's number is the full size's; every other study is scaled down (`SMALL`) at small.
SMALL_AT_FULL: dict[str, dict[str, Any]] = {
    "synergy-fig6": {},
    "synergy-fig9": {"groups": ("50/0/50",), "only": "the 50/0/50 split"},
    "synergy-cpu-ratio": {
        "groups": ("ratio 6",),
        "loads16": (8.0, 9.0),
        "only": "ratio 6 at 8 and 9 jobs/h",
    },
}


@dataclass(frozen=True)
class Spec:
    """One paper figure: the cells it sweeps and how it is drawn."""

    name: str
    paper: str
    shows: str
    workload: str
    policies: tuple[str, ...]
    allocs: tuple[str, ...]
    loads16: tuple[float, ...] = ()  # empty: one point (a trace)
    groups: tuple[tuple[str, dict[str, Any]], ...] = (("", {}),)  # label, extra cell keys
    kind: str = "load"  # "load": mean JCT vs load; "cdf": JCT CDF per group
    full_servers: int = 16
    notes: tuple[str, ...] = field(default_factory=tuple)


SPECS: dict[str, Spec] = {
    s.name: s
    for s in (
        Spec(
            "synergy-fig1",
            "Fig 1",
            "LAS and SRTF, GPU-proportional vs TUNE, multi-GPU jobs: mean JCT vs load",
            "multi-gpu",
            ("las", "srtf"),
            ("proportional", "tune"),
            # our multi-GPU jobs average 1.9 GPUs: 128 GPUs saturate near 4 jobs/h
            (1.0, 2.0, 3.0, 3.5, 4.0, 4.5, 5.0),
        ),
        Spec(
            "synergy-fig6",
            "Fig 6",
            "Philly arrivals and GPU counts (shipped 2,000-job sample, not the full log) on "
            "64 servers: JCT CDF",
            "philly",
            ("fifo", "srtf"),
            ("proportional", "greedy", "tune"),
            kind="cdf",
            full_servers=64,
        ),
        Spec(
            "synergy-fig7",
            "Fig 7",
            "multi-GPU Philly-derived workload, FIFO and SRTF: mean JCT vs load",
            "multi-gpu",
            ("fifo", "srtf"),
            ("proportional", "greedy", "tune"),
            (1.0, 2.0, 3.0, 3.5, 4.0, 4.5, 5.0),  # saturation near 4 jobs/h, as in Fig 1
        ),
        Spec(
            "synergy-fig9",
            "Fig 9",
            "task-class splits image/language/speech at 9 jobs/h, FIFO: JCT CDF",
            "philly-derived",
            ("fifo",),
            ("proportional", "greedy", "tune"),
            (9.0,),
            groups=(
                ("20/70/10", {"split": [20, 70, 10]}),
                ("33/33/33", {"split": [33, 33, 33]}),
                ("50/0/50", {"split": [50, 0, 50]}),
            ),
            kind="cdf",
        ),
        Spec(
            "synergy-fig12",
            "Fig 12",
            "TETRIS and DRF, each with GREEDY and with TUNE: mean JCT vs load",
            "philly-derived",
            ("tetris", "drf"),
            ("greedy", "tune"),
            (2.0, 4.0, 6.0, 7.0, 8.0, 9.0),
        ),
        Spec(
            "synergy-cpu-ratio",
            "CPU:GPU ratio experiment",
            "CPU:GPU ratio 3/4/5/6 (authors' profiles per ratio), FIFO, proportional vs TUNE: "
            "mean JCT vs load",
            "philly-derived",
            ("fifo",),
            ("proportional", "tune"),
            (4.0, 6.0, 8.0, 9.0),
            groups=(
                ("ratio 3", {"cpu_ratio": 3}),
                ("ratio 4", {"cpu_ratio": 4}),
                ("ratio 5", {"cpu_ratio": 5}),
                ("ratio 6", {"cpu_ratio": 6}),
            ),
        ),
    )
}


def at_full_scale(spec: Spec, size: str) -> bool:
    """Whether the study's cells at `size` are the full size's (servers, window)."""
    return check(size) == "full" or (size == "small" and spec.name in SMALL_AT_FULL)


def spec_at(spec: Spec, size: str) -> Spec:
    """The figure as computed and drawn at `size`: at small, narrowed by `SMALL_AT_FULL`."""
    narrow = SMALL_AT_FULL.get(spec.name, {}) if check(size) == "small" else {}
    if not narrow:
        return spec
    return replace(
        spec,
        shows=f"{spec.shows}; size small: {narrow['only']} only",
        groups=tuple(g for g in spec.groups if g[0] in narrow.get("groups", [g[0]])),
        loads16=narrow.get("loads16", spec.loads16),
    )


def keys_of(spec: Spec, size: str, seed: int) -> list[dict[str, Any]]:
    """Every cell of the figure at this size."""
    full = at_full_scale(spec, size)
    spec = spec_at(spec, size)
    sz = FULL if full else SMALL
    servers = spec.full_servers if full else sz["servers"]
    loads = spec.loads16 or (None,)
    keys = []
    for label, extra in spec.groups:
        for L in loads:
            for p in spec.policies:
                for a in spec.allocs:
                    k: dict[str, Any] = {
                        "workload": spec.workload,
                        "policy": p,
                        "alloc": a,
                        "servers": servers,
                        "seed": seed,
                        "group": label,
                        "load16": L,
                        "jcts": spec.kind == "cdf",
                        **extra,
                    }
                    if L is not None:
                        k["load"] = L * servers / 16.0
                        k["window"] = list(sz["window"])
                    keys.append(k)
    return keys


def compute(spec: Spec, size: str, seed: int, outdir: Path) -> list[dict[str, Any]]:
    store = RowStore(
        results_dir(outdir, "synergy") / f"{spec.name}-{size}.jsonl",
        ["group", "load16", "policy", "alloc"],
        config={"size": size, "seed": seed, "row_format": 1},
    )
    return store.run(keys_of(spec, size, seed), sim_cell, desc=spec.name)


FIELDS = (
    "group", "load16", "load", "policy", "alloc", "servers", "mean_jct_h", "median_jct_h",
    "p99_jct_h", "p999_jct_h", "makespan_h", "jobs_measured", "jobs_excluded", "gpu_util",
    "cpu_util", "mem_util", "sim_time_h", "runtime_s",
)  # fmt: skip


def plot(spec: Spec, rows: list[dict[str, Any]], size: str, seed: int, stem: Path) -> list[Path]:
    groups = [g for g, _ in spec.groups]
    panels = [(g, p) for g in groups for p in spec.policies]
    fig, axes = new_figure(1, len(panels), figsize=(4.4 * len(panels), 4.0), squeeze=False)
    colours = colours_for(list(spec.allocs))
    for ax, (g, p) in zip(axes[0], panels, strict=True):
        for a in spec.allocs:
            sel = [r for r in rows if r["group"] == g and r["policy"] == p and r["alloc"] == a]
            if spec.kind == "load":
                pts = sorted((r["load"], r["mean_jct_h"]) for r in sel)
                ax.plot(*zip(*pts, strict=True), marker="o", ms=3, label=a, color=colours[a])
                ax.set_xlabel(f"arrival rate (jobs/hour, {sel[0]['servers']} servers)")
                ax.set_ylabel("average JCT (hours)")
            else:
                xs, ys = cdf(np.asarray(sel[0]["jct_h"]))
                ax.step(xs, ys, where="post", label=f"{a} (mean {sel[0]['mean_jct_h']:.1f} h)",
                        color=colours[a])  # fmt: skip
                ax.set_xscale("log")
                ax.set_xlabel("job completion time (hours, log scale)")
                ax.set_ylabel("fraction of measured jobs")
        ax.set_title(f"{p.upper()} {g}".strip())
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    caption = (
        f"{spec.name} (paper {spec.paper}): {spec.shows}; {rows[0]['servers']} servers x 8 GPUs; "
        f"size={size}, seed={seed}"
        + ("" if at_full_scale(spec, size) else " (scaled down: fewer servers and jobs)")
    )
    return save_figure(fig, stem, caption)


def with_ratios(spec: Spec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with `ratio_base_over`: mean JCT of the figure's first allocator (its baseline:
    proportional, or GREEDY in Fig 12) at the same point over this row's."""
    base = {
        (r["group"], r["load16"], r["policy"]): r["mean_jct_h"]
        for r in rows
        if r["alloc"] == spec.allocs[0]
    }
    out = []
    for r in rows:
        b = base.get((r["group"], r["load16"], r["policy"]))
        ratio = b / r["mean_jct_h"] if b is not None and r["mean_jct_h"] else None
        out.append({**r, "baseline": spec.allocs[0], "ratio_base_over": ratio})
    return out


def make(name: str, size: str, seed: int, outdir: Path) -> list[Path]:
    spec = spec_at(SPECS[name], size)
    rows = with_ratios(spec, compute(SPECS[name], size, seed, outdir))
    d = results_dir(outdir, "synergy")
    fields = [*FIELDS, "baseline", "ratio_base_over"]
    return [write_csv(d / f"{name}.csv", rows, fields)] + plot(spec, rows, size, seed, d / name)


def _register(name: str) -> None:
    spec = SPECS[name]

    def figure(size: str, seed: int, outdir: Path) -> list[Path]:
        return make(name, size, seed, outdir)

    figure.__name__ = figure.__qualname__ = "figure_" + name.replace("-", "_")
    figure.__doc__ = f"Study {name}: {spec.shows} (paper {spec.paper})."
    register_figure(name, summary=f"paper {spec.paper}: {spec.shows}", in_reproduce=False)(figure)


for _name in SPECS:
    _register(_name)
