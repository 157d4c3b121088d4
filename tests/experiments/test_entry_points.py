"""Every runnable study is reached from `schedlab` or `make bench`, not by `python -m` alone.

A `bench_*` module registers its `run(quick)` in BENCHMARKS; no module of `experiments` keeps a
`__main__` block or an argparse parser of its own, except the two entry points themselves and
bench_anchor's launcher, a standard-library script it runs by path (not a study).
"""

from __future__ import annotations

import pkgutil
from pathlib import Path

import schedlab.experiments
from schedlab.experiments.registry import BENCHMARKS

ROOT = Path(schedlab.experiments.__file__).resolve().parent
ENTRY_POINTS = {"cli.py", "bench/__main__.py"}  # `schedlab` and `make bench`
LAUNCHERS = {"bench/measure_child.py"}  # run by path by bench_anchor, no study


def test_no_study_has_an_entry_point_of_its_own():
    own = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        runnable = '__name__ == "__main__"' in text or "argparse" in text
        if rel not in ENTRY_POINTS | LAUNCHERS and runnable:
            own.append(rel)
    assert own == []


def test_every_bench_module_registers_a_benchmark():
    modules = {
        info.name
        for info in pkgutil.walk_packages([str(ROOT)], "schedlab.experiments.")
        if info.name.rsplit(".", 1)[-1].startswith("bench_")
    }
    registered = {e.obj.__module__ for e in BENCHMARKS.entries()}
    assert modules and modules <= registered
    assert "bench_queues_gap" in BENCHMARKS.names()


def test_bench_queues_gap_quick_prints_its_table(capsys):
    BENCHMARKS.get("bench_queues_gap").obj(quick=True)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split()[:2] == ["queues", "stages"] and len(lines) == 2 + 3
