"""`python -m schedlab.experiments.bench [NAME ...] [--quick] [--lop-dir DIR] [--json]
[--time-limit S] [--anchor PATH] [--repeats K] [--out FILE]`: run the registered benchmarks.

Benchmark-specific options (`--lop-dir`, `--json`, `--time-limit`, `--anchor`, `--repeats`,
`--out`) are passed through as keyword arguments to the named benchmarks whose `run` takes them
(`--lop-dir` `bench_exact` and `bench_anchor`; `--json` `bench_exact`; `--time-limit` and
`--anchor` `bench_anchor`; `--repeats` and `--out` `bench_anchor` and `bench_startup`); naming one
that does not is a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time

from schedlab.experiments.registry import BENCHMARKS
from schedlab.solvers.errors import InvalidInput

# flag -> keyword of `run`; only benchmarks whose run() has that keyword accept the flag
PASS_THROUGH = {
    "--lop-dir": "lop_dir",
    "--json": "json",
    "--time-limit": "time_limit",
    "--anchor": "anchor",
    "--repeats": "repeats",
    "--out": "out",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("names", nargs="*", help="benchmark names (bench_*); default: all")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    ap.add_argument(
        "--lop-dir",
        metavar="DIR",
        help="bench_exact: run lpcut's routes on every linear-ordering matrix file in DIR "
        "(first token n, then the n x n matrix row by row) and print a table; bench_anchor: "
        "the external solver and lpcut on every PACE .gr file in DIR (else seeded graphs)",
    )
    ap.add_argument(
        "--json",
        action="store_true",
        help="bench_exact with --lop-dir: one JSON object per file and line (name, n, value, "
        "bound, status, runtime_s, routes), nothing else on stdout",
    )
    ap.add_argument(
        "--time-limit",
        type=float,
        metavar="S",
        help="bench_anchor: seconds per solve of each solver (default 120, 30 with --quick)",
    )
    ap.add_argument(
        "--anchor",
        metavar="PATH",
        help="bench_anchor: the external solver run beside lpcut (`PATH -timelimitS < FILE`, "
        "the free vertices' ids on stdout: PACE2024's oscm)",
    )
    ap.add_argument(
        "--repeats",
        type=int,
        metavar="K",
        help="bench_anchor: runs of each solver per graph, interleaved (default 1); "
        "bench_startup: runs of each command (default 5, 3 with --quick)",
    )
    ap.add_argument(
        "--out",
        metavar="FILE",
        help="bench_anchor: append every finished run to FILE (JSON lines); a rerun skips "
        "the runs it holds; bench_startup: also write the table to FILE (CSV)",
    )
    args = ap.parse_args()
    known = BENCHMARKS.names()
    unknown = [n for n in args.names if n not in known]
    if unknown:
        ap.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from: {', '.join(known)}")
    # given flags only: a store_true flag left off is False, an option left off None (a given
    # `--time-limit 0` is passed on, so that the benchmark refuses it by name)
    given = {kw: getattr(args, kw) for kw in PASS_THROUGH.values()}
    extra = {kw: v for kw, v in given.items() if v is not None and v is not False}
    entries = [e for e in BENCHMARKS.entries() if not args.names or e.name in args.names]
    if extra:
        flags = ", ".join(f for f, kw in PASS_THROUGH.items() if kw in extra)
        if not args.names:
            ap.error(f"{flags}: name the benchmark that takes it (bench_exact)")
        for e in entries:
            if not set(extra) <= set(inspect.signature(e.obj).parameters):
                ap.error(f"{flags}: benchmark {e.name} does not take it")
    for entry in entries:
        header = f"\n=== {entry.name} ({time.strftime('%Y-%m-%d %H:%M:%S')}) ==="
        print(header, file=sys.stderr if args.json else sys.stdout, flush=True)
        try:
            entry.obj(quick=args.quick, **extra)
        except InvalidInput as exc:  # e.g. a bad SCHEDLAB_BENCH_* setting: exit 2, no traceback
            ap.exit(2, f"{entry.name}: error: {exc}\n")


if __name__ == "__main__":
    main()
