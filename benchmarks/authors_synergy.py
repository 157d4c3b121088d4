"""Side by side: the Synergy authors' simulator and schedlab's, same jobs, same allocators.

For each case (a workload and a policy) and each allocator both simulators have, runs one
simulation of each as a separate process and records, per simulation, wall and CPU seconds
(user + system of the child process, from `os.wait4`) and the mean JCT it reports:

- the authors' simulator (msr-fiddle/synergy, `simulator/`, run unmodified under their own
  Python environment through `authors_synergy_driver.py`, which prints one JSON line);
- schedlab's, `schedlab synergy simulate --as-authors ... --json` (their rules and job stream).

Cases: `default` is their Philly-derived single-GPU workload (seed, load, measured job-id
window; FIFO), `static` and `dynamic` their two 100-job physical-cluster traces replayed
(FIFO, static at time 0; SRTF). Allocator names, theirs in brackets: proportional (`+fair`),
greedy (no suffix), tune (`+tune`), opt (`+opt`).

Setup, once, outside this tree (their code is never copied here):

    git clone https://github.com/msr-fiddle/synergy CHECKOUT
    git -C CHECKOUT checkout 1bb2bed6edc9c5f953d0b7f0a40e4fdad053489c
    python3.8 -m venv VENV      # their tested version; Python 3.11 fails on collections.Mapping
    VENV/bin/pip install "numpy<1.22" pandas==1.3.5 matplotlib==3.4.3 "cvxpy<1.4" cvxopt \
        grpcio grpcio-tools psutil
    (cd CHECKOUT/simulator/deployment && PATH=VENV/bin:$PATH make rpc)   # their gRPC stubs

Run (paths as arguments; nothing here assumes where things are):

    nice -n 15 python benchmarks/authors_synergy.py --authors-sim CHECKOUT/simulator \
        --authors-python VENV/bin/python --schedlab .venv/bin/schedlab \
        --cases static dynamic default --allocs proportional greedy tune opt \
        --window 200:400 --timeout 400 --out benchmarks/authors_synergy_runs.csv

`--authors-opt-solver SCIPY` (with `--allocs opt`) runs their OPT with HiGHS in place of their
GLPK_MI (a deviation, see the driver); `--only authors|schedlab` runs one side; `--label TEXT`
tags the rows (e.g. the commit). Rows are appended to `--out` as they finish (a rerun skips
rows already there with the same label) and a Markdown table is printed at the end. Timings are
of the machine as it is: run at low priority on a shared machine and report its state.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SUFFIX = {"proportional": "+fair", "greedy": "", "tune": "+tune", "opt": "+opt"}
CASES: dict[str, dict[str, Any]] = {
    "default": {"policy": "fifo"},
    "static": {"policy": "fifo", "trace": "deploy_trace/static_100job_6_3_1100.0",
               "ours": "static-100job", "static": True},
    "dynamic": {"policy": "srtf", "trace": "deploy_trace/dynamic/srtf.log",
                "ours": "dynamic-100job", "static": False},
}  # fmt: skip
TRACE_CONFIG = "configs/deployment.ini"  # their 4 x 8-GPU cluster of the traces
FIELDS = ["case", "policy", "alloc", "simulator", "opt_solver", "jobs", "window",
          "load_jobs_per_h", "seed", "mean_jct_h", "end_h", "wall_s", "cpu_s", "sim_wall_s",
          "rc", "label", "command"]  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Paths, cases, allocators, workload point, output file."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--authors-sim", required=True, type=Path, help="their simulator/ dir")
    p.add_argument("--authors-python", required=True, help="python of their environment")
    p.add_argument("--schedlab", default="schedlab", help="schedlab executable")
    p.add_argument("--cases", nargs="+", default=["static", "dynamic", "default"],
                   choices=sorted(CASES))  # fmt: skip
    p.add_argument("--allocs", nargs="+", default=list(SUFFIX), choices=list(SUFFIX))
    p.add_argument("--window", default="400:800", help="default case: measured ids START:END")
    p.add_argument("--load", type=float, default=9.0, help="default case: jobs per hour")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per simulation")
    p.add_argument("--out", type=Path, required=True, help="CSV of rows (appended)")
    p.add_argument(
        "--authors-opt-solver",
        default=None,
        help="their OPT's GLPK_MI replaced by this cvxpy solver (e.g. SCIPY)",
    )
    p.add_argument("--label", default="", help="free text stored with each row (e.g. a commit)")
    p.add_argument("--only", choices=["authors", "schedlab"], help="run one simulator only")
    return p.parse_args(argv)


def measure(cmd: list[str], cwd: Path | None, timeout: float) -> dict[str, Any]:
    """Run cmd; its last stdout line as JSON ({} on failure), plus wall, CPU and exit code.

    CPU is the change of this process's RUSAGE_CHILDREN (user + system) across the run: the
    child and anything it waited for; runs are sequential, so nothing else is counted.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        rc, out = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired:  # run() kills and reaps the child
        rc, out = 124, ""
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = out.strip().splitlines()
    data: dict[str, Any] = json.loads(lines[-1]) if rc == 0 and lines else {}
    data.update(_wall_s=wall, _cpu_s=cpu, _rc=rc)
    return data


def authors_cmd(a: argparse.Namespace, case: str, alloc: str) -> list[str]:
    """Their simulator through the driver, for one case and allocator."""
    c = CASES[case]
    cmd = [a.authors_python, str(HERE / "authors_synergy_driver.py"),
           "--scheduler", c["policy"].upper() + SUFFIX[alloc], "--seed", str(a.seed)]  # fmt: skip
    if alloc == "opt" and a.authors_opt_solver:
        cmd += ["--opt-solver", a.authors_opt_solver]
    if "trace" not in c:
        return cmd + ["--load", str(a.load), "--window", a.window]
    cmd += ["--replay", c["trace"], "--config", TRACE_CONFIG]
    return cmd + (["--static"] if c["static"] else [])


def ours_cmd(a: argparse.Namespace, case: str, alloc: str) -> list[str]:
    """schedlab's simulator with every rule of theirs (--as-authors), same case and allocator."""
    c = CASES[case]
    cmd = [a.schedlab, "synergy", "simulate", "--as-authors", "--policy", c["policy"],
           "--alloc", alloc, "--json"]  # fmt: skip
    if "trace" not in c:
        return cmd + ["--seed", str(a.seed), "--load", str(a.load), "--window", a.window]
    return cmd + ["--workload", c["ours"]] + (["--static"] if c["static"] else [])


def solver_of(a: argparse.Namespace, alloc: str, who: str) -> str:
    """The MILP solver behind their OPT in this row ('' for other rows)."""
    if alloc != "opt" or who != "authors":
        return ""
    return a.authors_opt_solver or "GLPK_MI"


def row(a: argparse.Namespace, case: str, alloc: str, who: str) -> dict[str, Any]:
    """One simulation, measured, as a CSV row."""
    authors = who == "authors"
    cmd = authors_cmd(a, case, alloc) if authors else ours_cmd(a, case, alloc)
    d = measure(cmd, a.authors_sim if authors else None, a.timeout)
    synthetic = "trace" not in CASES[case]
    return {
        "case": case, "policy": CASES[case]["policy"], "alloc": alloc, "simulator": who,
        "opt_solver": solver_of(a, alloc, who),
        "jobs": d.get("measured_jobs" if authors else "jobs_measured"),
        "window": a.window if synthetic else "all",
        "load_jobs_per_h": a.load if synthetic else "", "seed": a.seed if synthetic else "",
        "mean_jct_h": d.get("mean_jct_h"),
        "end_h": d.get("end_time_h" if authors else "sim_time_h"),
        "wall_s": round(d["_wall_s"], 3), "cpu_s": round(d["_cpu_s"], 3),
        "sim_wall_s": d.get("wall_s" if authors else "runtime_s"), "rc": d["_rc"],
        "label": a.label,
        "command": " ".join(cmd),
    }  # fmt: skip


def done_keys(path: Path) -> set[tuple[str, ...]]:
    """(case, alloc, simulator, window, opt_solver, label) of rows already in the CSV."""
    if not path.exists():
        return set()
    with path.open() as fh:
        return {
            (r["case"], r["alloc"], r["simulator"], r["window"], r["opt_solver"], r["label"])
            for r in csv.DictReader(fh)
        }


def append(path: Path, r: dict[str, Any]) -> None:
    """Append one row (header first if the file is new)."""
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow(r)


def table(path: Path) -> str:
    """Markdown table: one line per run of theirs, beside schedlab's run of the same point.

    Where schedlab ran a point more than once (labels), the last row in the file is shown.
    """
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    ours = {(r["case"], r["alloc"], r["window"]): r for r in rows if r["simulator"] == "schedlab"}
    out = ["| case | alloc | jobs | authors wall / CPU s | schedlab wall / CPU s | CPU ratio "
           "| mean JCT h authors / schedlab |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    for t in (r for r in rows if r["simulator"] == "authors"):
        s = ours.get((t["case"], t["alloc"], t["window"]))
        if s is None:
            continue
        ratio = float(t["cpu_s"]) / float(s["cpu_s"])
        alloc = t["alloc"] + (f" ({t['opt_solver']})" if t["opt_solver"] else "")
        jct_t = t["mean_jct_h"] or f"none (rc {t['rc']})"
        out.append(
            f"| {t['case']} | {alloc} | {s['jobs']} | {t['wall_s']} / {t['cpu_s']} "
            f"| {s['wall_s']} / {s['cpu_s']} | {ratio:.1f} | {jct_t} / {s['mean_jct_h']} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    """Run every missing (case, allocator, simulator) row, then print the table."""
    a = parse_args(argv)
    a.authors_sim = a.authors_sim.resolve()
    done = done_keys(a.out)
    whos = [a.only] if a.only else ["authors", "schedlab"]
    for case in a.cases:
        win = a.window if "trace" not in CASES[case] else "all"
        for alloc in a.allocs:
            for who in whos:
                if (case, alloc, who, win, solver_of(a, alloc, who), a.label) in done:
                    continue
                r = row(a, case, alloc, who)
                append(a.out, r)
                print(json.dumps({k: r[k] for k in FIELDS[:-1]}), file=sys.stderr, flush=True)
    print(table(a.out))


if __name__ == "__main__":
    main()
