"""The compiled heap and the threshold allocation (solvers/slaq/alloc_core.py) return exactly the
Python heap's allocation (`greedy.heap_extra`, the oracle): seeded random concave and
non-concave tables with many ties, and fitted qualities of random snapshots."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.slaq.alloc_core import heap_arrays, threshold_extra
from schedlab.solvers.slaq.generate import random_concave_tables, random_snapshot
from schedlab.solvers.slaq.heuristics import (
    greedy_extra,
    heap_extra,
    quality_arrays,
    threshold_greedy,
)
from schedlab.solvers.slaq.quality import QualityBatch, quality_model


def by_table(tables: list[np.ndarray], free: int) -> tuple[np.ndarray, bool]:
    """threshold_extra on tables Q(0..free), padded with Q(free) (the heap's clip)."""
    t = np.stack([np.concatenate([x, x[-1:]]) for x in tables])
    n = len(tables)
    z = np.zeros(n)
    return threshold_extra(
        free, t, np.zeros(n, dtype=np.int64), np.zeros((n, 5)), z, z, z, z + 1, np.zeros(n, int)
    )


def compiled_heap_on(tables: list[np.ndarray], free: int) -> list[int]:
    """heap_arrays on tables Q(0..free), padded with Q(free) (the heap's clip)."""
    t = np.stack([np.concatenate([x, x[-1:]]) for x in tables])
    n = len(tables)
    z = np.zeros(n)
    args = (t, np.zeros(n, dtype=np.int64), np.zeros((n, 5)), z, z, z, z + 1)
    return [int(e) for e in heap_arrays(free, *args, np.zeros(n, dtype=np.int64))]


def heap_on(tables: list[np.ndarray], free: int) -> list[int]:
    qs = [lambda c, t=t: np.take(t, np.asarray(c, dtype=int), mode="clip") for t in tables]
    return heap_extra(qs, [0] * len(tables), free)


def exact_concave_tables(rng: np.random.Generator, n: int, free: int) -> list[np.ndarray]:
    """Concave tables whose differences are exactly the sorted gains: multiples of 1/8 (or
    whole numbers: many ties), so that cumulative sums are exact in floating point."""
    step = float(rng.choice([1.0, 8.0]))
    gains = [np.sort(np.floor(rng.exponential(4.0, free) * step) / step)[::-1] for _ in range(n)]
    return [np.concatenate([[0.0], np.cumsum(g)]) for g in gains]


@pytest.mark.parametrize("seed", range(6))
def test_threshold_is_the_heap_on_concave_tables_with_ties(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n, free = int(rng.integers(1, 30)), int(rng.integers(0, 300))
        tables = exact_concave_tables(rng, n, free)
        extra, ok = by_table(tables, free)
        assert ok and list(extra) == heap_on(tables, free)


def test_float_concave_tables_threshold_agrees_with_heap_when_verified():
    rng = np.random.default_rng(11)  # cumulative sums may break concavity by an ulp
    for _ in range(60):
        n, free = int(rng.integers(1, 20)), int(rng.integers(0, 200))
        tables = random_concave_tables(rng, n, free, ties=bool(rng.integers(2)))
        extra, ok = by_table(tables, free)
        if ok:
            assert list(extra) == heap_on(tables, free)


def test_threshold_refuses_non_concave_tables_unless_it_is_the_heap():
    rng = np.random.default_rng(7)
    refused = 0
    for _ in range(100):
        n, free = int(rng.integers(2, 8)), int(rng.integers(1, 40))
        tables = [np.concatenate([[0.0], np.cumsum(rng.exponential(1.0, free))]) for _ in range(n)]
        extra, ok = by_table(tables, free)
        refused += not ok
        if ok:  # the a posteriori check proves it is the heap's answer
            assert list(extra) == heap_on(tables, free)
    assert refused > 50


@pytest.mark.parametrize("model", ["auto", "exponential", "inverse-poly"])
def test_greedy_on_fitted_qualities_is_the_heap(model):
    rng = np.random.default_rng(3)
    used = 0
    for k in range(12):
        snap = random_snapshot(int(rng.integers(2, 25)), int(rng.integers(30, 400)), seed=k)
        snap = type(snap)(snap.jobs, snap.total_cores, model=model, min_cores=snap.min_cores)
        qm = quality_model(snap)
        qs = [qm.qualities[i] for i in qm.old]
        base = [qm.base[i] for i in qm.old]
        _, ok = threshold_extra(qm.free, *quality_arrays(qs, base))  # type: ignore[arg-type]
        used += bool(ok)
        assert greedy_extra(qs, base, qm.free) == heap_extra(qs, base, qm.free)
    if model == "exponential":
        assert used >= 10  # exponential fits give concave Q: the threshold answers


def test_threshold_on_exponential_fits_is_verified_and_the_heap():
    rng = np.random.default_rng(5)
    snap = random_snapshot(60, 900, seed=5, source="exponential", model="exponential")
    qm = quality_model(snap)
    qs = [qm.qualities[i] for i in qm.old]
    base = [qm.base[i] for i in qm.old]
    extra, ok = threshold_extra(qm.free, *quality_arrays(qs, base))  # type: ignore[arg-type]
    assert ok and list(extra) == heap_extra(qs, base, qm.free)
    assert rng is not None


@pytest.mark.parametrize("seed", range(4))
def test_compiled_heap_is_the_python_heap_on_tables_with_ties(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        n, free = int(rng.integers(1, 25)), int(rng.integers(0, 250))
        if rng.integers(2):
            tables = exact_concave_tables(rng, n, free)
        else:  # not concave, whole-number gains: many exact ties between jobs
            tables = [
                np.concatenate([[0.0], np.cumsum(rng.integers(0, 4, free))]) for _ in range(n)
            ]
        assert compiled_heap_on(tables, free) == heap_on(tables, free)


def test_greedy_on_quality_batch_is_the_python_heap_with_inverse_poly_fits():
    """Mixed families (inverse-poly Q is often not concave): greedy_extra on the arrays
    (`QualityBatch`, the simulator's input) and on the list give the Python heap's answer."""
    inverse = 0
    for k in range(10):
        snap = random_snapshot(5 + 4 * k, 40 + 60 * k, seed=40 + k)
        qm = quality_model(snap)
        qs = [qm.qualities[i] for i in qm.old]
        base = [qm.base[i] for i in qm.old]
        inverse += sum(q.fit.family == "inverse-poly" for q in qs)  # type: ignore[union-attr]
        want = heap_extra(qs, base, qm.free)
        batch = QualityBatch.of(qs)  # type: ignore[arg-type]
        assert greedy_extra(batch, base, qm.free) == want == greedy_extra(qs, base, qm.free)
        assert heap_extra(list(batch), base, qm.free) == want  # rebuilt JobQuality: same Q
        via_threshold = threshold_greedy(qs, base, qm.free)
        assert via_threshold is None or via_threshold == want
    assert inverse > 20
