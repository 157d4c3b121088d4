"""Run ONE simulation of the Synergy authors' simulator and print one JSON line.

Runs under the authors' own Python environment (not schedlab's), from their `simulator/`
directory (msr-fiddle/synergy, MIT License), which it imports unmodified. Their `runner.py`
has no command-line choice of scheduler, load or measured window (they are edited into its
`benchmark()`), so this driver constructs their `runner.Runner` the way `benchmark()` does and
calls `run_simulation()`:

- the scheduler name is theirs: `FIFO+fair` (GPU-proportional), `FIFO` (Synergy-GREEDY),
  `FIFO+tune` (Synergy-TUNE), `FIFO+opt` (Synergy-OPT); likewise `SRTF+...`, `LAS+...`;
- synthetic runs (Philly-derived, single-GPU): their job list is normally parsed from the
  Philly log and cached as a pickle in the working directory; the log only contributes its
  length there (durations are redrawn, demand forced to 1). The Philly log is not in their
  repository snapshot, so the driver writes a log of `--log-jobs` valid entries, seeds
  `random` and lets their parser build the cached list, then reseeds before the run, exactly
  what a run with the cache present does;
- replay runs (`--replay FILE`, their 100-job traces) pass the trace as their `--replay_trace`.

The one stub: the `numa` module (a C extension that does not build here), used only for
NUMA-aware CPU pinning on a physical cluster, never in simulation.

Timing covers `Runner(...)` plus `run_simulation()` (not the imports or the cache build):
wall (`time.perf_counter`) and CPU of this process (`time.process_time`, user + system).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import pickle
import random
import sys
import tempfile
import time
import types
from typing import Any

CACHE = "philly_jobs_sum_attempts_exp_single.pickle"  # their cache name for this mode


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command line: scheduler, load, window, seed, or a trace to replay."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scheduler", required=True, help="e.g. FIFO+tune, FIFO+fair, FIFO, FIFO+opt")
    p.add_argument("--load", type=float, default=9.0, help="jobs per hour (synthetic)")
    p.add_argument("--window", default="4000:5000", help="measured job ids START:END")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--split", default="20,70,10", help="class split image,language,speech")
    p.add_argument("--log-jobs", type=int, default=20000, help="entries of the written log")
    p.add_argument("--replay", default=None, help="trace file to replay (their --replay_trace)")
    p.add_argument("--static", action="store_true", help="their --static (replayed at t=0)")
    p.add_argument("--config", default="configs/default_cluster.ini")
    p.add_argument(
        "--opt-solver",
        default=None,
        help="replace their OPT's GLPK_MI by this cvxpy solver (e.g. SCIPY)",
    )
    p.add_argument("--log", action="store_true", help="their INFO log to stderr (as runner.py)")
    return p.parse_args(argv)


def stub_numa() -> None:
    """Stand-in for the `numa` module, imported at top level but unused in simulation."""
    sys.modules.setdefault("numa", types.ModuleType("numa"))


def replace_opt_solver(name: str) -> None:
    """Their OPT calls cvxpy with GLPK_MI hard-coded; route those calls to `name` instead.

    The boolean variables are then snapped to 0/1: a MILP solver such as HiGHS returns values
    within its tolerance (0.9999999), which their table lookups by CPU and memory value miss.
    A deviation from their code, used only when asked and reported with the numbers.
    """
    import cvxpy as cp
    import numpy as np

    original = cp.Problem.solve

    def solve(self: Any, *a: Any, **kw: Any) -> Any:
        if kw.get("solver") == "GLPK_MI":
            kw["solver"] = name
        out = original(self, *a, **kw)
        for v in self.variables():
            if v.attributes.get("boolean") and v.value is not None:
                v.value = np.round(v.value)
        return out

    cp.Problem.solve = solve


def write_log(path: str, n: int) -> None:
    """A Philly-format job log of n single-GPU jobs of 1 h each (kept by their filter)."""
    attempt = {
        "start_time": "2017-10-01 00:00:00",
        "end_time": "2017-10-01 01:00:00",
        "detail": [{"gpus": ["gpu0"]}],
    }
    jobs = [
        {"jobid": f"j{i}", "vc": "vc", "user": "u", "submitted_time": "2017-10-01 00:00:00",
         "attempts": [attempt]}
        for i in range(n)
    ]  # fmt: skip
    with open(path, "w") as fh:
        json.dump(jobs, fh)


def build_cache(seed: int, n: int) -> str:
    """Build their cached job list as their first run would (fresh seed, then parse)."""
    from helpers import parse_philly_trace_full

    log = os.path.join(tempfile.mkdtemp(prefix="synergy-log-"), "cluster_job_log")
    write_log(log, n)
    random.seed(seed)
    jobs = parse_philly_trace_full.parse_jobs_full(log, True, True, False, False, False)
    with open(CACHE, "wb") as fh:
        pickle.dump(jobs, fh)
    return log


def run(args: argparse.Namespace) -> dict[str, Any]:
    """One simulation; JCTs of the measured window, wall and CPU seconds."""
    stub_numa()
    if args.log:
        logging.basicConfig(format="%(module)s - %(funcName)s - %(message)s", level=logging.INFO)
    sys.path.insert(0, os.getcwd())
    if args.opt_solver:
        replace_opt_solver(args.opt_solver)
    import runner as their_runner

    name = args.scheduler
    flags = {k: k in name.split("+")[1:] for k in ("fair", "tune", "opt")}
    log = None
    if args.replay is None:
        log = build_cache(args.seed, args.log_jobs)
        start, end = (int(x) for x in args.window.split(":"))
    else:
        with open(args.replay) as fh:
            start, end = 0, sum(1 for line in fh if line.strip())
    random.seed(args.seed)
    t0, c0 = time.perf_counter(), time.process_time()
    r = their_runner.Runner(
        cluster_job_log=log, scheduler=name.split("+")[0], jobs_per_hour=args.load,
        series_id_filter=(start, end), model_class_split=tuple(int(x) for x in args.split.split(",")),  # noqa: E501
        exponential=True, multigpu=False, static=args.static, placement=True,
        prioritize=False, simulate=True, config_file=args.config, trace=args.replay, **flags,
    )  # fmt: skip
    r.run_simulation()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    jct_s = [y for _, y in r.job_completion_times.data_series]
    return {
        "simulator": "authors",
        "scheduler": name,
        "load_jobs_per_h": args.load if args.replay is None else None,
        "window": [start, end],
        "seed": args.seed,
        "replay": args.replay,
        "opt_solver": args.opt_solver or "GLPK_MI (theirs)",
        "static": args.static,
        "measured_jobs": len(jct_s),
        "generated_jobs": r.num_jobs_so_far if args.replay is None else end,
        "mean_jct_h": sum(jct_s) / len(jct_s) / 3600 if jct_s else math.nan,
        "end_time_h": r.time / 3600,
        "wall_s": wall,
        "cpu_s": cpu,
    }


def main() -> None:
    """Parse, run, print one JSON line on stdout (their logging goes to stderr)."""
    print(json.dumps(run(parse_args())))


if __name__ == "__main__":
    main()
