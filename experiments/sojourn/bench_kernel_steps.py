"""Ablation of the cpu factor kernel: what each implementation step buys (objective B).

Run: `python -m schedlab.experiments.bench bench_kernel_steps [--quick]`.
Compiles the two-order loops of
`arith` (16-lane blocks, "nodes" tables at n = 100; 8-lane block, "lowrank" tables) in variants
that differ in one step at a time: table rows on 64-byte boundaries or 8 bytes off, signed or
unsigned row indices (signed ones make numba emit negative-index wraparound code), and, on
AVX-512 hosts, SLP vector registers of 256 bits (LLVM's tuning default there) or 512 bits (what
the cpu backend uses there: LLVM option -slp-max-reg-size=512). The variants are compiled here,
not by `solvers.kernels.cpu` (which would set the 512-bit option before the 256-bit ones). All
variants are timed in interleaved rounds in one fresh interpreter and reported as medians, so
that they share the machine's drift; every variant's values are checked equal to the production
kernel's.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.experiments.sojourn.bench_kernels import in_fresh_interpreter

N = 100


def _driver(pair: Callable[..., Any]) -> Callable[..., Any]:
    """The production driver (`cpu._lop_kernel`) around one pair function, compiled now."""
    from numba import njit, prange

    @njit(parallel=True)
    def kernel(orders, T, c0, out):  # pragma: no cover - compiled
        K = orders.shape[0]
        for blk in prange((K + 63) // 64):
            scratch = np.empty(64)
            lo = blk * 64
            hi = min(K, lo + 64)
            for i in range(lo, hi):
                out[i] = c0
            for b in range(T.shape[0]):
                Tb = T[b]
                for i in range(lo, hi, 2):
                    j = min(i + 1, hi - 1)
                    va, vb = pair(orders[i], orders[j], Tb, scratch)
                    out[i] += va
                    if j != i:
                        out[j] += vb

    return kernel


def _variant(fn: Callable[..., Any], unsigned: bool) -> Callable[..., Any]:
    """`fn` (an `arith` pair function) compiled, with or without the unsigned index casts."""
    from numba import njit

    src = inspect.getsource(fn)
    if not unsigned:
        if "np.uint64(oa[y])" not in src:
            raise AssertionError(f"arith.{fn.__name__} no longer casts its row indices")
        src = src.replace("np.uint64(oa[y])", "oa[y]").replace("np.uint64(ob[y])", "ob[y]")
    ns: dict[str, Any] = {"np": np}
    exec(src, ns)  # noqa: S102 - our own source, one edit applied
    return _driver(njit(fastmath={"contract"})(ns[fn.__name__]))


def _misaligned(a: np.ndarray) -> np.ndarray:
    """A copy of `a` whose data starts 8 bytes past a 64-byte boundary."""
    buf = np.empty(a.size + 16)
    start = (-buf.ctypes.data % 64) // 8 + 1
    out = buf[start : start + a.size].reshape(a.shape)
    out[...] = a
    return out


def run_steps(count: int, rounds: int) -> list[dict[str, Any]]:
    """Interleaved timings of every variant (meant for a fresh interpreter, see `run`)."""
    import numba
    from llvmlite import binding as llvm

    from schedlab.experiments.sojourn.bench_kernels import B, random_orders
    from schedlab.solvers.kernels import arith
    from schedlab.solvers.kernels.cpu import SLP_WIDE, CpuBackend, aligned, has_avx512
    from schedlab.solvers.sojourn.generate import generate
    from schedlab.solvers.sojourn.tables import lop_tables

    slp_flag = "SLP_VECTORIZE"  # a numba.core.config attribute its stubs do not declare
    setattr(numba.core.config, slp_flag, 1)  # as `cpu._slp` does
    inst = generate(N, 1)
    orders = random_orders(N, count, seed=N)
    cases = []
    for tables, fn, slot in (("nodes", arith.lop_pair16, 0), ("lowrank", arith.lop_pair8, 1)):
        t = lop_tables(inst, B, tables)
        T = t.blocked()[slot]
        cases.append((tables, fn, t, aligned(T), _misaligned(T)))
    widths = (256, 512) if has_avx512() else (256,)
    variants = []
    for width in widths:
        if width == 512:
            llvm.set_option("", SLP_WIDE)
        for unsigned in (False, True):
            for tables, fn, t, al, mis in cases:
                k = _variant(fn, unsigned)
                k(orders[:2], al, t.c0, np.empty(2))  # compile now, under this SLP width
                for is_aligned, T in ((False, mis), (True, al)):
                    variants.append((width, unsigned, is_aligned, tables, t, k, T))
    # the production kernel last: its first call sets the 512-bit option on AVX-512 hosts
    be = CpuBackend()
    refs = {tables: be.lop(be.prepare_lop(t), orders) for tables, _, t, _, _ in cases}
    out = np.empty(count)
    for *_, tables, t, k, T in variants:
        k(orders, T, t.c0, out)
        if not np.array_equal(out, refs[tables]):
            raise AssertionError("a variant's values differ from the production kernel's")
    times: list[list[float]] = [[] for _ in variants]
    for _ in range(rounds):
        for v, (*_, t, k, T) in enumerate(variants):
            t0 = time.perf_counter()
            k(orders, T, t.c0, out)
            times[v].append(time.perf_counter() - t0)
    rows = []
    for (width, unsigned, is_aligned, tables, t, *_), ts in zip(variants, times, strict=True):
        dt = float(np.median(ts))
        rows.append(
            {
                "tables": tables,
                "r": t.rank,
                "slp_bits": width,
                "index": "unsigned" if unsigned else "signed",
                "aligned": is_aligned,
                "orders_per_s": count / dt,
                "gflops": 3 * N * t.rank * count / dt / 1e9,
            }
        )
    return rows


@register_benchmark("bench_kernel_steps")
def run(quick: bool = False) -> None:
    count, rounds = (20_000, 4) if quick else (100_000, 8)
    print(f"load average at start: {os.getloadavg()}  cpus: {os.cpu_count()}", flush=True)
    for threads in (1, 2):
        rows = in_fresh_interpreter(
            "schedlab.experiments.sojourn.bench_kernel_steps",
            "run_steps",
            count,
            rounds,
            NUMBA_NUM_THREADS=str(threads),
        )
        print(f"\ncpu kernel steps, n = {N}, K = {count:,}, {threads} thread(s), {rounds} rounds")
        headers = ["tables", "r", "SLP bits", "row index", "64-B aligned", "orders/s", "GFLOP/s"]
        print(
            format_table(
                headers,
                [
                    [
                        r["tables"], r["r"], r["slp_bits"], r["index"], r["aligned"],
                        r["orders_per_s"], r["gflops"],
                    ]
                    for r in rows
                ],
            ),
            flush=True,
        )  # fmt: skip
    print(f"load average at end: {os.getloadavg()}")
