"""Reference numbers of the Synergy authors' own simulator (msr-fiddle/synergy @1bb2bed).

Copied from `shared/data/synergy/authors_simulator.md` (how they were obtained is there): the
default workload at 9 jobs/h (seed 42, split 20/70/10, jobs 4000-4999) under FIFO, and both
100-job physical-cluster traces replayed in their simulator. `ADDED` are numbers obtained in
this project the same way (their unmodified simulator under Python 3.11, outside the project
tree, driven by a script that builds the cached job list first; command in `ADDED_COMMAND`).
Times in hours; `None`: not recorded.
"""

from __future__ import annotations

from typing import Any

SOURCE = "shared/data/synergy/authors_simulator.md (msr-fiddle/synergy @1bb2bed, runner.py)"
ADDED_COMMAND = (
    "python run_authors.py SCHED LOAD A B (their runner.Runner with seed 42, "
    "configs/default_cluster.ini, split 20/70/10, series_id_filter (A, B); SCHED e.g. "
    "SRTF+tune; run_authors.py builds their cached job list first and stubs the gRPC, cvxpy "
    "and numa imports a simulation never calls)"
)

# (case, alloc) -> metrics. A case names the workload point and the policy.
REFERENCE: dict[tuple[str, str], dict[str, Any]] = {
    ("default-9jph-fifo", "proportional"): {
        "mean_jct_h": 81.0886,
        "p99_jct_h": 214.6102,
        "p999_jct_h": 230.5372,
        "median_jct_h": 70.7026,
        "gpu_alloc": 1.000,
        "cpu_alloc": 1.000,
        "mem_alloc": 1.000,
    },
    ("default-9jph-fifo", "greedy"): {
        "mean_jct_h": 24.9841,
        "p99_jct_h": 159.6781,
        "p999_jct_h": 174.6109,
        "median_jct_h": 14.0650,
        "gpu_alloc": 0.976,
        "cpu_alloc": 0.652,
        "mem_alloc": 0.533,
    },
    ("default-9jph-fifo", "tune"): {
        "mean_jct_h": 21.8766,
        "p99_jct_h": 156.9331,
        "p999_jct_h": 170.6120,
        "median_jct_h": 10.8261,
        "gpu_alloc": 0.993,
        "cpu_alloc": 0.652,
        "mem_alloc": 0.542,
    },
    ("static-fifo", "proportional"): {"makespan_h": 15.25, "mean_jct_h": 5.631},
    ("static-fifo", "greedy"): {"makespan_h": 12.33, "mean_jct_h": 5.494},
    ("static-fifo", "tune"): {"makespan_h": 11.00, "mean_jct_h": 5.082},
    ("static-fifo", "opt"): {"makespan_h": 10.58, "mean_jct_h": 4.662},
    ("dynamic-srtf", "proportional"): {"makespan_h": 19.50, "mean_jct_h": 3.907},
    ("dynamic-srtf", "greedy"): {"makespan_h": 13.92, "mean_jct_h": 3.233},
    ("dynamic-srtf", "tune"): {"makespan_h": 13.25, "mean_jct_h": 3.189},
    ("dynamic-srtf", "opt"): {"makespan_h": 12.83, "mean_jct_h": 3.093},
}

# Numbers this project added with the authors' simulator (see ADDED_COMMAND), each with the
# scheduler name of their runner; their wall time on this 2-core machine in the comment.
ADDED: dict[tuple[str, str], dict[str, Any]] = {
    ("default-9jph-srtf", "tune"): {  # SRTF+tune, 389 s
        "mean_jct_h": 16.603100555555557,
        "p99_jct_h": 182.17108888888876,
        "p999_jct_h": 321.0765727777814,
        "median_jct_h": 3.8981944444444445,
    },
    ("default-6jph-las", "proportional"): {  # LAS+fair, 6 jobs/h, jobs 1000-1999
        "mean_jct_h": 16.749165555555557,
        "p99_jct_h": 156.74128888888887,
        "p999_jct_h": 164.87177111111114,
        "median_jct_h": 4.770694444444445,
    },
    ("default-6jph-las", "greedy"): {  # LAS (GREEDY), 6 jobs/h, jobs 1000-1999
        "mean_jct_h": 14.65099888888889,
        "p99_jct_h": 148.49305277777773,
        "p999_jct_h": 162.27992111111138,
        "median_jct_h": 3.9023611111111114,
    },
    ("default-6jph-las", "tune"): {  # LAS+tune, 6 jobs/h, jobs 1000-1999, 330 s
        "mean_jct_h": 14.65099888888889,
        "p99_jct_h": 148.49305277777773,
        "p999_jct_h": 162.27992111111138,
        "median_jct_h": 3.9023611111111114,
    },
}

# The workload point and policy of each case (cell settings of `cells.sim_cell`).
CASES: dict[str, dict[str, Any]] = {
    "default-9jph-fifo": {"workload": "philly-derived", "load": 9.0, "seed": 42, "policy": "fifo"},
    "default-9jph-srtf": {"workload": "philly-derived", "load": 9.0, "seed": 42, "policy": "srtf"},
    "default-9jph-las": {"workload": "philly-derived", "load": 9.0, "seed": 42, "policy": "las"},
    # LAS at 9 jobs/h runs past 2,400 simulated hours (its starvation guard); the cheaper point:
    "default-6jph-las": {
        "workload": "philly-derived",
        "load": 6.0,
        "seed": 42,
        "policy": "las",
        "window": [1000, 2000],
    },
    "static-fifo": {"workload": "static-100job", "policy": "fifo"},
    "dynamic-srtf": {"workload": "dynamic-100job", "policy": "srtf"},
}
# Shares of the reference utilization table: mean of per-round samples over hours 100-600.
UTIL_HOURS = (100.0, 600.0)


def references() -> dict[tuple[str, str], dict[str, Any]]:
    """Every reference number: the shared file's and the ones added here."""
    out = {k: dict(v) for k, v in REFERENCE.items()}
    for k, v in ADDED.items():
        out.setdefault(k, {}).update(v)
    return out
