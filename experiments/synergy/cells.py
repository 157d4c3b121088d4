"""One simulation as a sweep cell: a flat dict of settings in, a flat dict of numbers out.

Every Synergy study (`fig_authors`, `fig_seeds`, `fig_paper`) runs its simulations through
`sim_cell` on the one sweep runner (`RowStore.run`), so cells pickle to worker processes, are
journaled and resume. Keys of a cell (all optional but `policy` and `alloc`):
workload ("philly-derived", "multi-gpu", "philly", "static-100job", "dynamic-100job"), load
(jobs/h), seed, stream ("numpy" | "authors"), split ([image, language, speech]), servers,
cpu_ratio (3-6), window ([a, b]), switches (names of `fidelity.CHOICES` at the authors' rule),
jcts (true: also return the window's sorted JCTs, hours, for CDFs), util_h ([a, b]: also the
allocated GPU/CPU/memory shares averaged over rounds starting in that span of hours, as the
authors' reference table does).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schedlab.experiments.synergy.fidelity import Fidelity
from schedlab.experiments.synergy.simulator import SimConfig, SimResult, simulate
from schedlab.experiments.synergy.workloads import (
    DEFAULT_CLASS_SPLIT,
    Workload,
    WorkloadRequest,
)


def workload_of(key: dict[str, Any]) -> Workload:
    """The workload a cell names (built by its registered builder)."""
    from schedlab.experiments.registry import WORKLOADS

    name = key.get("workload", "philly-derived")
    entry = WORKLOADS.get(name, scope="synergy")
    servers = key.get("servers") or entry.meta.get("default_servers", 16)
    req = WorkloadRequest(
        load=float(key.get("load", 9.0)),
        seed=int(key.get("seed", 0)),
        jobs=key.get("jobs"),
        max_gpus=8 * int(servers),
        stream=key.get("stream", "numpy"),
        split=tuple(key.get("split", DEFAULT_CLASS_SPLIT)),  # type: ignore[arg-type]
    )
    built: Workload = entry.obj(req)
    return built


def config_of(key: dict[str, Any]) -> SimConfig:
    """The simulator settings a cell names."""
    ratio = int(key.get("cpu_ratio", 3))
    window = key.get("window")
    return SimConfig(
        policy=key["policy"],
        alloc=key["alloc"],
        servers=key.get("servers"),
        cpus_per_server=8.0 * ratio,
        window=None if window is None else (int(window[0]), int(window[1])),
        fidelity=Fidelity().with_authors(*key.get("switches", ())),
        profile_set="default" if ratio == 3 else f"cpu-ratio-{ratio}",
    )


def util_between(res: SimResult, a_h: float, b_h: float) -> dict[str, float]:
    """Mean allocated shares over the rounds that start in [a_h, b_h) hours (run rounds only,
    as the authors' per-round samples)."""
    u = res.utilization
    sel = (u.round_start_s >= a_h * 3600.0) & (u.round_start_s < b_h * 3600.0)
    if not sel.any():
        return {"gpu_alloc": float("nan"), "cpu_alloc": float("nan"), "mem_alloc": float("nan")}
    return {
        "gpu_alloc": float(u.gpu[sel].mean()),
        "cpu_alloc": float(u.cpu[sel].mean()),
        "mem_alloc": float(u.mem[sel].mean()),
    }


def sim_cell(key: dict[str, Any]) -> dict[str, Any]:
    """Run one simulation; its summary numbers (hours for times, shares in [0, 1])."""
    res = simulate(workload_of(key), config_of(key))
    d = res.to_dict()
    out = {
        k: d[k]
        for k in (
            "mean_jct_h",
            "median_jct_h",
            "p99_jct_h",
            "p999_jct_h",
            "max_jct_h",
            "jobs_measured",
            "jobs_arrived",
            "jobs_excluded",
            "makespan_h",
            "sim_time_h",
            "gpu_util",
            "cpu_util",
            "mem_util",
            "runtime_s",
        )
    }
    out["cpu_used"], out["mem_used"] = d.get("cpu_used"), d.get("mem_used")
    if key.get("util_h"):
        out.update(util_between(res, *key["util_h"]))
    if key.get("jcts"):
        out["jct_h"] = [round(float(x), 6) for x in np.sort(res.window_jct_s() / 3600.0)]
    return out
