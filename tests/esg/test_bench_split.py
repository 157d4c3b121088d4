"""`bench_split --quick` runs and prints the gap table and the online table."""

from __future__ import annotations

from schedlab.experiments.registry import BENCHMARKS


def test_bench_split_quick_prints_its_tables(capsys):
    BENCHMARKS.get("bench_split").obj(quick=True)
    out = capsys.readouterr().out
    assert "opt (ours)" in out and "paper min_latency" in out and "milp (optimum)" in out
    assert "critical_path" in out and "hit_rate_%" in out
