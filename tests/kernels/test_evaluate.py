"""Batch evaluation: every backend agrees with the closed forms; streaming; clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels import arith, cuda_available, resolve_backend
from schedlab.solvers.kernels.cpu import CpuBackend, aligned
from schedlab.solvers.kernels.evaluate import evaluate_tables
from schedlab.solvers.kernels.numpy_ref import NumpyBackend
from schedlab.solvers.sojourn.batch import evaluate_orders
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate
from schedlab.solvers.sojourn.tables import b_node_tables, lop_tables, trunc_tables

REL = 1e-9
BACKENDS = ["numpy", "cpu"]


def objectives(n):
    ks = sorted({1, max(1, n // 2), n})
    return [Objective("A"), Objective("B")] + [Objective(t, k) for t in ("TK", "DK") for k in ks]


def random_orders(n, count, seed):
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(n) for _ in range(count)], dtype=np.int64)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 2, 7, 23, 70])
def test_backends_agree_with_closed_forms(backend, n):
    inst = generate(n, 100 + n)
    orders = random_orders(n, 40, n)
    for obj in objectives(n):
        exact = np.array([evaluate(inst, o, obj) for o in orders])
        for tables in ("nodes", "lowrank") if obj.kind == "B" else ("nodes",):
            got = evaluate_orders(inst, orders, obj, backend=backend, tables=tables)
            np.testing.assert_allclose(got, exact, rtol=REL, atol=1e-12, err_msg=f"{obj} {tables}")


def test_wide_and_narrow_blocks():
    # unpruned nodes at n = 78: 40 factors = two 16-lane blocks + one 8-lane block; 7 orders
    # leave one order without a partner
    inst = generate(78, 9)
    t = b_node_tables(inst, tol=0.0)
    Tw, Tn = t.blocked()
    assert (Tw.shape[0], Tn.shape[0]) == (2, 1)
    orders = random_orders(78, 7, 1)
    exact = np.array([evaluate(inst, o, Objective("B")) for o in orders])
    for be in (NumpyBackend(), CpuBackend()):
        got = be.lop(be.prepare_lop(t), orders)
        np.testing.assert_allclose(got, exact, rtol=REL)


def test_cpu_tables_are_cache_line_aligned_copies():
    t = b_node_tables(generate(40, 3))
    Tw, Tn, c0 = CpuBackend().prepare_lop(t)
    for got, want in zip((Tw, Tn), t.blocked(), strict=True):
        assert got.ctypes.data % 64 == 0 and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
    odd = np.arange(7.0)[1:]  # a view that starts 8 bytes into its buffer
    assert aligned(odd).ctypes.data % 64 == 0
    np.testing.assert_array_equal(aligned(odd), odd)


def test_arith_runs_as_plain_python():
    # the per-order functions are ordinary Python too (this is what the CUDA simulator runs)
    inst = generate(9, 4)
    order = random_orders(9, 1, 2)[0]
    t = b_node_tables(inst, tol=0.0)  # 6 factors: one block of 8
    Tw, Tn = t.blocked()
    other = order[::-1].copy()
    va, vb = arith.lop_pair8(order, other, Tn[0], np.empty(arith.SCRATCH))
    assert t.c0 + va == pytest.approx(evaluate(inst, order, Objective("B")), rel=REL)
    assert t.c0 + vb == pytest.approx(evaluate(inst, other, Objective("B")), rel=REL)
    P, M = np.empty(4), np.empty(4)
    tk = arith.trunc_value(order, inst.pi, inst.m, inst.e, 3, True, P, M)
    assert tk == pytest.approx(evaluate(inst, order, Objective("TK", 3)), rel=REL)


@pytest.mark.parametrize("backend", BACKENDS)
def test_streamed_chunks_equal_one_array(backend):
    inst = generate(11, 3)
    orders = random_orders(11, 100, 5)
    obj = Objective("B")
    whole = evaluate_orders(inst, orders, obj, backend=backend)
    small = evaluate_orders(inst, orders, obj, backend=backend, chunk_size=7)
    gen = evaluate_orders(
        inst, (orders[s : s + 13] for s in range(0, 100, 13)), obj, backend=backend
    )
    pieces = [orders[s : s + 30] for s in range(0, 100, 30)]
    call = evaluate_orders(
        inst, lambda i: pieces[i] if i < len(pieces) else None, obj, backend=backend
    )
    lists = evaluate_orders(inst, orders.tolist(), obj, backend=backend)
    for other in (small, gen, call, lists):
        np.testing.assert_allclose(other, whole, rtol=1e-13)
    assert len(whole) == 100


def test_other_integer_dtypes_are_accepted():
    inst = generate(6, 3)
    orders = random_orders(6, 5, 1)
    ref = evaluate_orders(inst, orders, Objective("A"), backend="numpy")
    for dt in (np.int32, np.uint16, np.int8):
        got = evaluate_orders(inst, orders.astype(dt), Objective("A"), backend="cpu")
        np.testing.assert_allclose(got, ref, rtol=1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("orders", "needle"),
    [
        (np.array([[0, 1, 2, 2]]), "row 0 is invalid (not a permutation of 0..3: repeats [2]"),
        (
            np.array([[0, 1, 2, 3], [3, 2, 1, 0], [0, 1, 2, 4]]),
            "row 2 is invalid (job positions [4]",
        ),
        (np.array([[0, 1, -1, 3]]), "job positions [-1] outside 0..3"),
        (np.array([0, 1, 2, 3]), "must be a 2-D integer array (K, 4)"),
        (np.array([[0, 1, 2]]), "must list all 4 jobs; got rows of length 3"),
        (np.array([[0.0, 1.0, 2.0, 3.0]]), "dtype must be an integer type"),
        (np.array([[True, False, True, False]]), "dtype must be an integer type"),
        (np.empty((0, 4), dtype=np.int64), "no orders given (K = 0)"),
        (lambda: iter([]), "no orders given (K = 0)"),
        (lambda: iter([np.array([[0, 1, 2, 3]]), np.array([[0, 1]])]), "orders chunk 1: each"),
        (5, "expected an integer array (K, 4)"),
    ],
)
def test_invalid_orders_raise_clear_errors(backend, orders, needle):
    # the kernel entry point validates; sojourn's evaluate_orders passes K = 0 arrays as empty
    tables = lop_tables(generate(4, 1), Objective("B"))
    if callable(orders):
        orders = orders()  # fresh iterator per backend
    with pytest.raises(InvalidInput) as exc:
        evaluate_tables(tables, orders, backend=backend)
    assert needle in str(exc.value)


def test_row_index_is_global_across_chunks():
    inst = generate(5, 1)
    orders = random_orders(5, 50, 3)
    orders[37, 0] = orders[37, 1]
    for be in BACKENDS:
        with pytest.raises(InvalidInput, match="row 37 is invalid"):
            evaluate_orders(inst, orders, Objective("A"), backend=be, chunk_size=8)


def test_backend_names():
    assert resolve_backend("auto") == ("cuda" if cuda_available() else "cpu")
    with pytest.raises(InvalidInput, match="unknown 'gpu'"):
        resolve_backend("gpu")
    if not cuda_available():
        with pytest.raises(InvalidInput, match="needs an NVIDIA GPU"):
            evaluate_orders(generate(3, 1), np.array([[0, 1, 2]]), Objective("A"), backend="cuda")


def test_k_larger_than_n_and_bad_tables():
    inst = generate(3, 1)
    with pytest.raises(InvalidInput, match="k: must be at most"):
        evaluate_orders(inst, np.array([[0, 1, 2]]), Objective("TK", 4), backend="cpu")
    with pytest.raises(InvalidInput, match="tables: unknown kind"):
        evaluate_orders(inst, np.array([[0, 1, 2]]), Objective("B"), tables="dense")


def test_the_one_evaluate_orders_runs_the_numpy_kernel_on_the_sojourn_tables():
    inst = generate(8, 2)
    orders = random_orders(8, 30, 1)
    for obj in objectives(8):
        t = lop_tables(inst, obj) if obj.kind in ("A", "B") else trunc_tables(inst, obj)
        np.testing.assert_array_equal(
            evaluate_orders(inst, orders, obj), evaluate_tables(t, orders, backend="numpy")
        )
    assert evaluate_orders(inst, np.empty((0, 8), dtype=np.int64), Objective("A")).shape == (0,)


@pytest.mark.slow
def test_kernel_ablation_variants_agree_with_the_production_kernel():
    # bench_kernel_steps raises if any compiled variant's values differ; it sets process-wide
    # numba/LLVM options, so it runs in its own interpreter
    import subprocess
    import sys

    code = "from schedlab.experiments.sojourn.bench_kernel_steps import run_steps; run_steps(96, 1)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
