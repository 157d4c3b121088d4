"""`python -m schedlab.experiments.bench [NAME ...] [--quick]`: run the registered benchmarks."""

from __future__ import annotations

import argparse
import time

from schedlab.experiments.registry import BENCHMARKS
from schedlab.solvers.errors import InvalidInput


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("names", nargs="*", help="benchmark names (bench_*); default: all")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = ap.parse_args()
    known = BENCHMARKS.names()
    unknown = [n for n in args.names if n not in known]
    if unknown:
        ap.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from: {', '.join(known)}")
    for entry in BENCHMARKS.entries():
        if args.names and entry.name not in args.names:
            continue
        print(f"\n=== {entry.name} ({time.strftime('%Y-%m-%d %H:%M:%S')}) ===", flush=True)
        try:
            entry.obj(quick=args.quick)
        except InvalidInput as exc:  # e.g. a bad SCHEDLAB_BENCH_* setting: exit 2, no traceback
            ap.exit(2, f"{entry.name}: error: {exc}\n")


if __name__ == "__main__":
    main()
