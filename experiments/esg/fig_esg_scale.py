"""Figure `esg-scale` (outside `schedlab reproduce`: its full run is minutes of solver time):
decision time and plan cost of ESG with and without the dominator split, against whole-DAG A*
and the MILP, as the DAG grows (5 -> 80 functions, 30 configurations each) and as the
configurations per function grow (10 -> 990, 10 functions).

Methods, on random layered DAGs (`generate(..., shape="dag")`, the SLO by the generator's
rule), each instance planned at its SLO:
- offline, the whole DAG: `split` (the dominator split with the paper's rule, A* per segment),
  `split_opt` (our optimal split), `astar_dag` (whole-DAG A*, no split), `milp` (HiGHS), each
  under the time limit; plan time per instance;
- online, the esg policy's decisions (`EsgPolicy.choose`, no cache; planning tables without a
  fill wait, so they plan the same problem): `policy-split` (its default optimal split) and
  `policy-nosplit` (`--split critical_path`); for each function, a head at its planned start
  (the budget left then, as `plan_request` plans); time per decision, and the cost of the plan
  these decisions make against the optimum (`feasible` when it fits the SLO).
Per (sweep, size, method): p50/p99 of the times (over instances offline, over decisions
online), instances solved within the limit, the mean cost gap to the best proven optimum
(MILP, else whole-DAG A*; "-" when none is proven). A method is *unusable* at a size when an
instance runs past the time limit (offline) or its p99 decision exceeds 10 ms (online, the
summaries' overhead); larger sizes of an unusable offline method are not run. Writes
results/esg/esg-scale.csv, esg-scale-table.md, esg-scale.{png,pdf}.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.esg.fig_esg import plain_log_ticks
from schedlab.experiments.ladder import pick
from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.solvers.util import atomic_write_text

NAME = "esg-scale"
OFFLINE = ("split", "split_opt", "astar_dag", "milp")
ONLINE = ("policy-split", "policy-nosplit")
METHODS = OFFLINE + ONLINE
#: The overhead the summaries of ESG's paper state (secondary source): under 10 ms.
DECISION_LIMIT_MS = 10.0
#: Configurations of the generator's largest GPU grid; beyond it CPU-only ones are added.
GPU_GRID = 960


@dataclass(frozen=True)
class ScaleConfig:
    functions: tuple[int, ...]
    configs: tuple[int, ...]
    base_configs: int  # configurations per function of the DAG-size sweep
    base_functions: int  # functions of the configuration sweep
    instances: int
    time_limit_s: float


SIZES = {
    "small": ScaleConfig((5, 10, 20), (10, 30, 100), 30, 10, 2, 2.0),
    "full": ScaleConfig((5, 10, 20, 35, 50, 80), (10, 30, 100, 300, 990), 30, 10, 4, 10.0),
}


def build(key: dict[str, Any], cfg: dict[str, Any], seed: int) -> Any:
    """The instance of a cell: a random layered DAG of the cell's size."""
    from schedlab.solvers.esg.generate import generate

    n = key["size"] if key["sweep"] == "functions" else cfg["base_functions"]
    c = cfg["base_configs"] if key["sweep"] == "functions" else key["size"]
    extra = max(c - GPU_GRID, 0)
    s = 100_000 * seed + 1_000 * n + key["i"]
    return generate(n, min(c, GPU_GRID), s, shape="dag", shares="mps", cpu_configs=extra)


def cell(key: dict[str, Any], cfg: dict[str, Any], seed: int) -> dict[str, Any]:
    """One (instance, method): the plan's status, cost and time(s)."""
    from schedlab.solvers.esg.generate import generate
    from schedlab.solvers.solve import solve

    app = build(key, cfg, seed)
    if key["method"] in ONLINE:
        _online(generate(4, 4, 1, shape="dag"), key["method"])  # warm-up: imports, first calls
        return _online(app, key["method"])
    opts = {"rule": "min_latency"} if key["method"] == "split" else None
    solve(generate(4, 4, 1, shape="dag"), key["method"], options=opts)  # warm-up
    c0 = time.process_time()
    r = solve(app, key["method"], time_limit=cfg["time_limit_s"], options=opts)
    return {"status": r.status.value, "value": r.value, "bound": r.bound,
            "times_ms": [1000.0 * (time.process_time() - c0)],
            "wall_ms": [1000.0 * r.runtime_s], "functions": len(app.functions),
            "configs": int(np.mean([len(f.configs) for f in app.functions]))}  # fmt: skip


def _online(app: Any, method: str) -> dict[str, Any]:
    """The esg policy's decisions for one request planned stage by stage at its planned
    starts (no cache, no fill wait): each decision's time, and the plan's cost and fit."""
    from schedlab.experiments.esg.policies import EsgPolicy
    from schedlab.solvers.esg.plan import feasible, make_plan

    pol = EsgPolicy("opt" if method == "policy-split" else "critical_path")
    c0, w0 = time.process_time(), time.perf_counter()
    st = pol.prepare(app, 1e12)  # no fill wait: the offline problem
    prepare_ms = 1000.0 * (time.process_time() - c0)
    prepare_wall = 1000.0 * (time.perf_counter() - w0)
    preds, times, walls = app.preds(), [], []
    finish, choice = [0.0] * len(app.functions), [0] * len(app.functions)
    for f in app.topo_order():
        start = max((finish[p] for p in preds[f]), default=0.0)
        c, w = time.process_time(), time.perf_counter()
        k = pol.choose(st, f, app.slo_ms - start)
        times.append(1000.0 * (time.process_time() - c))
        walls.append(1000.0 * (time.perf_counter() - w))
        choice[f] = int(np.argmin(st.cost[f])) if k is None else k
        finish[f] = start + float(st.lat[f][choice[f]])
    plan = make_plan(app, choice)
    ok = feasible(app, plan)
    return {"status": "feasible" if ok else "misses", "value": plan.cost if ok else None,
            "bound": None, "times_ms": times, "wall_ms": walls, "prepare_ms": prepare_ms,
            "prepare_wall_ms": prepare_wall,
            "functions": len(app.functions),
            "configs": int(np.mean([len(f.configs) for f in app.functions]))}  # fmt: skip


def compute(cfg: ScaleConfig, seed: int, outdir: Path, size: str) -> list[dict[str, Any]]:
    """All cells, size by size; an offline method that ran past the limit at a size is not
    run at the larger sizes of that sweep."""
    d = results_dir(outdir, "esg")
    spec = json.loads(json.dumps({**cfg.__dict__, "seed": seed}))
    store = RowStore(d / f"{NAME}-{size}.jsonl", ["sweep", "size", "i", "method"], config=spec)
    fn = partial(cell, cfg=spec, seed=seed)
    rows: list[dict[str, Any]] = []
    for sweep, sizes in (("functions", cfg.functions), ("configs", cfg.configs)):
        live = set(METHODS)
        for n in sizes:
            keys = [{"sweep": sweep, "size": n, "i": i, "method": m}
                    for m in METHODS if m in live for i in range(cfg.instances)]  # fmt: skip
            got = store.run(keys, fn, desc=f"{NAME} {sweep}={n}")
            rows += got
            for m in OFFLINE:
                if any(r["method"] == m and _late(r, cfg.time_limit_s) for r in got):
                    live.discard(m)
    return rows


def _late(r: dict[str, Any], limit_s: float) -> bool:
    """An offline run that the time limit stopped: no plan (timeout), not proven where the
    method is exact and a proof was due (milp, astar_dag), or the limit's CPU time used (the
    solvers' limit is wall time, which a loaded machine inflates: a proof within the limit
    counts as in time)."""
    if r["status"] == "timeout" or max(r["times_ms"]) >= 950.0 * limit_s:
        return True
    if r["method"] in ("milp", "astar_dag"):
        return r["status"] != "optimal" and r["status"] != "infeasible"
    return r["status"] != "optimal" and max(r["wall_ms"]) >= 950.0 * limit_s


def table(rows: list[dict[str, Any]], cfg: ScaleConfig) -> list[dict[str, Any]]:
    """Per (sweep, size, method): time p50/p99, solved, the gap to the best proven optimum."""
    best: dict[tuple[str, int, int], float] = {}
    for r in rows:
        if r["method"] in ("milp", "astar_dag") and r["status"] == "optimal":
            best.setdefault((r["sweep"], r["size"], r["i"]), r["value"])
    out = []
    groups: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["sweep"], r["size"], r["method"]), []).append(r)
    for (sweep, n, m), rs in groups.items():
        times = [t for r in rs for t in r["times_ms"]]
        gaps = [100.0 * (r["value"] / best[(sweep, n, r["i"])] - 1.0) for r in rs
                if r["value"] is not None and (sweep, n, r["i"]) in best]  # fmt: skip
        p99 = float(np.percentile(times, 99))
        late = any(_late(r, cfg.time_limit_s) for r in rs) if m in OFFLINE else False
        out.append({
            "sweep": sweep, "size": n, "method": m, "functions": rs[0]["functions"],
            "configs": rs[0]["configs"], "instances": len(rs), "samples": len(times),
            "p50_ms": float(np.percentile(times, 50)), "p99_ms": p99,
            "solved": sum(r["status"] in ("optimal", "feasible") for r in rs),
            "optimal": sum(r["status"] == "optimal" for r in rs),
            "gap_pct": float(np.mean(gaps)) if gaps else None,
            "gap_max_pct": float(np.max(gaps)) if gaps else None,
            "prepare_ms": float(np.mean([r["prepare_ms"] for r in rs])) if m in ONLINE else None,
            "in_limit": not late if m in OFFLINE else True,
            "within_10ms": p99 <= DECISION_LIMIT_MS,
        })  # fmt: skip
    return sorted(
        out, key=lambda r: (r["sweep"] != "functions", r["size"], METHODS.index(r["method"]))
    )


def markdown(tab: list[dict[str, Any]], cfg: ScaleConfig) -> str:
    lines = [
        f"Time limit {cfg.time_limit_s:g} s (wall) per plan; {cfg.instances} DAGs per size; "
        "online: one decision per function per DAG. Times are CPU ms of this process (a shared "
        "machine: wall times are inflated by other jobs), after a warm-up call. Two bars: p99 "
        f"within {DECISION_LIMIT_MS:g} ms (the overhead the summaries state, for a decision "
        "made per request), and every plan within the time limit (offline; `-` online: the "
        "policy's prepare, once per app, is its own column); larger sizes of a method past the "
        "limit are not run. gap: cost over the best proven optimum (MILP or whole-DAG A*).",
        "",
        "| sweep | functions | configs | method | p50 CPU ms | p99 CPU ms | solved | optimal | "
        "mean / max gap % | prepare ms | p99 <= 10 ms | within limit |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in tab:
        gap = "-" if r["gap_pct"] is None else f"{r['gap_pct']:.2f} / {r['gap_max_pct']:.2f}"
        prep = "-" if r["prepare_ms"] is None else f"{r['prepare_ms']:.1f}"
        lines.append(
            f"| {r['sweep']} | {r['functions']} | {r['configs']} | {r['method']} | "
            f"{r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['solved']}/{r['instances']} | "
            f"{r['optimal']} | {gap} | {prep} | {'yes' if r['within_10ms'] else 'no'} | "
            f"{('yes' if r['in_limit'] else 'no') if r['method'] in OFFLINE else '-'} |"
        )
    return "\n".join(lines) + "\n"


def plot(tab: list[dict[str, Any]], stem: Path, caption: str) -> list[Path]:
    fig, axes = new_figure(1, 2, figsize=(11, 4.2))
    sweeps = (("functions", "functions per DAG (30 configurations)"),
              ("configs", "configurations per function (10 functions)"))  # fmt: skip
    for ax, (sweep, xl) in zip(axes, sweeps, strict=True):
        for m in METHODS:
            rs = [r for r in tab if r["sweep"] == sweep and r["method"] == m]
            if rs:
                ax.loglog([r["size"] for r in rs], [max(r["p99_ms"], 1e-3) for r in rs],
                          marker="o", label=m)  # fmt: skip
        ax.axhline(DECISION_LIMIT_MS, color="0.5", ls="--", lw=0.8, label="10 ms")
        ax.set_xlabel(xl)
        ax.set_ylabel("p99 time (ms): plan (offline) or decision (online)")
        ax.grid(True, alpha=0.3)
        plain_log_ticks(ax)
    axes[0].legend(fontsize=7)
    return save_figure(fig, stem, caption)


@register_figure(
    NAME,
    summary="ESG scale: decision time and cost with and without the dominator split vs "
    "whole-DAG A* and the MILP, as DAGs and configurations grow; outside reproduce",
    in_reproduce=False,
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    cfg = pick(size, SIZES)
    rows = compute(cfg, seed, outdir, size)
    tab = table(rows, cfg)
    d = results_dir(outdir, "esg")
    atomic_write_text(d / f"{NAME}-table.md", markdown(tab, cfg))
    paths = [write_csv(d / f"{NAME}.csv", tab), d / f"{NAME}-table.md"]
    caption = (f"{NAME}, size={size}, seed={seed}: random layered DAGs (generate, MPS grid), "
               f"{cfg.instances} per size, limit {cfg.time_limit_s:g} s")  # fmt: skip
    return paths + plot(tab, d / NAME, caption)
