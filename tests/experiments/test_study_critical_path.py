"""A study's manifest names its critical path: the CPU of its longest cell, reused or new."""

from __future__ import annotations

from schedlab.experiments.studies import StudyStats


def _stats() -> StudyStats:
    return StudyStats("s", "figure", "synergy", "full", 0, "v", "t", "cmd")


def test_longest_cell_counts_reused_and_computed_cells() -> None:
    stats = _stats()
    stats.count_cells(4, [1.0, 3.0])
    stats.count_computed({"cpu_s": 2.0}, True)
    assert stats.longest_cell_cpu_s == 3.0
    stats.count_computed({"cpu_s": 5.5}, True)
    assert stats.longest_cell_cpu_s == 5.5
    assert stats.cell_cpu_s == 11.5


def test_a_failed_cell_is_not_the_critical_path() -> None:
    stats = _stats()
    stats.count_cells(2, [])
    stats.count_computed({"cpu_s": 9.0}, False)
    stats.count_computed({"cpu_s": 1.0}, True)
    assert stats.longest_cell_cpu_s == 1.0
    assert stats.to_dict()["longest_cell_cpu_s"] == 1.0
