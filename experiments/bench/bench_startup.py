"""The CPU a quick command pays before it starts: `schedlab --help` and a heuristic solve.

Target (issue #62): under 0.3 s of CPU (user + system) each, on the 2-core development machine;
a heuristic's path must load no MILP, CP-SAT or JIT library (`tests/core/test_lazy_imports.py`
holds that without timing). Each command runs `repeats` times (5; 3 with --quick) in a fresh
process, its CPU read from `os.wait4`; the table gives the median, the range and the solver
libraries the command's process loaded.

Run: `python -m schedlab.experiments.bench bench_startup [--quick] [--repeats K] [--out FILE]`
(`--out`: also write the table as CSV to FILE).
"""

from __future__ import annotations

import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import generate

TARGET_CPU_S = 0.3
#: The libraries a quick command has no use for: MILP, CP-SAT, JIT, and the rest of the stack.
SOLVER_LIBRARIES = ("pulp", "highspy", "ortools", "numba", "scipy", "pandas", "matplotlib", "dask")
HEADERS = ["command", "runs", "cpu_s_median", "cpu_s_min", "cpu_s_max", "wall_s_median",
           "target_cpu_s", "verdict", "libraries_loaded"]  # fmt: skip

LOADED = """
import json, sys
from schedlab.experiments.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit:
    pass
with open(sys.argv[2], "w") as f:
    json.dump(sorted(m for m in json.loads(sys.argv[3]) if m in sys.modules), f)
"""


def schedlab_command() -> list[str]:
    """The console command beside this interpreter (what a user runs), else `python -m`."""
    script = Path(sys.executable).with_name("schedlab")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "schedlab.experiments.cli"]


def cpu_of(cmd: Sequence[str]) -> tuple[float, float]:
    """(CPU s, wall s) of one run of `cmd` in a fresh process; InvalidInput if it fails."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise InvalidInput(f"{' '.join(cmd)} exited {proc.returncode}: {err[-500:]}")
    return ru.ru_utime + ru.ru_stime, wall


def libraries_loaded(args: Sequence[str], folder: Path) -> list[str]:
    """The `SOLVER_LIBRARIES` that `schedlab ARGS` imports (run once more, in this Python)."""
    out = folder / "loaded.json"
    lists = [json.dumps(list(args)), str(out), json.dumps(SOLVER_LIBRARIES)]
    subprocess.run([sys.executable, "-c", LOADED, *lists], capture_output=True, check=True)
    loaded: list[str] = json.loads(out.read_text())
    return loaded


def measure(name: str, args: Sequence[str], repeats: int, folder: Path) -> list[object]:
    """One table row: `repeats` runs of `schedlab ARGS`."""
    runs = [cpu_of([*schedlab_command(), *args]) for _ in range(repeats)]
    cpu = [c for c, _ in runs]
    median = statistics.median(cpu)
    return [
        name,
        repeats,
        f"{median:.3f}",
        f"{min(cpu):.3f}",
        f"{max(cpu):.3f}",
        f"{statistics.median(w for _, w in runs):.3f}",
        TARGET_CPU_S,
        "ok" if median <= TARGET_CPU_S else "over",
        " ".join(libraries_loaded(args, folder)) or "none",
    ]


@register_benchmark("bench_startup", summary="CPU of `schedlab --help` and a heuristic solve")
def run(quick: bool, repeats: int | None = None, out: str | None = None) -> None:
    """Print (and with `out`, write as CSV) the startup table."""
    k = repeats if repeats is not None else (3 if quick else 5)
    if k < 1:
        raise InvalidInput(f"--repeats: must be at least 1 (got {k})")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inst = folder / "inst.json"
        inst.write_text(json.dumps(generate(8, 1).to_dict()))
        solve = ["sojourn", "solve", str(inst), "--objective", "B", "--method", "smith"]
        rows = [
            measure("schedlab --help", ["--help"], k, folder),
            measure("schedlab sojourn solve (n=8) --method smith", solve, k, folder),
        ]
    print(format_table(HEADERS, rows))
    if out is not None:
        with open(out, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(HEADERS)
            writer.writerows(rows)
        print(f"wrote {out}")
