"""`python -m schedlab.experiments.bench [NAME ...] [--quick]`: run the registered benchmarks."""

from __future__ import annotations

import argparse
import importlib
import time

from schedlab.experiments.registry import BENCH_MODULES


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("names", nargs="*", help="module names (last dotted part); default: all")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = ap.parse_args()
    for mod in BENCH_MODULES:
        short = mod.rsplit(".", 1)[-1]
        if args.names and short not in args.names:
            continue
        print(f"\n=== {short} ({time.strftime('%Y-%m-%d %H:%M:%S')}) ===", flush=True)
        importlib.import_module(mod).run(quick=args.quick)


if __name__ == "__main__":
    main()
