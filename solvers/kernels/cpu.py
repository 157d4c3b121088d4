"""The numba CPU backend: `arith`'s per-order functions under `njit`, driven by `prange` loops.

Compiled on first use and cached on disk (`cache=True`). Compilation runs with LLVM's SLP
vectorizer switched on (numba leaves it off by default); it packs the scalar lanes of
`arith.lop_pair16` into SIMD registers, which about doubled its speed here. On AVX-512 CPUs the
SLP vectorizer may use 512-bit registers (LLVM's tuning for them stops at 256 bits otherwise):
half the vector instructions and loads per row, which made no difference on a quiet machine here
but kept the kernel 1.6x faster while the shared machine was busy. The tables are 64-byte
aligned so that no vector load straddles two cache lines. `bench_kernel_steps` measures each.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np
from llvmlite import binding as llvm
from numba import njit, prange

from schedlab.solvers.kernels import arith
from schedlab.solvers.kernels.tables import LopTables, TruncTables

BLOCK = 64  # orders per parallel task
SCEN_BLOCK = 256  # scenarios per pass over a block of orders (keeps X rows in cache)
_SLP_FLAG = "SLP_VECTORIZE"  # numba.core.config attribute read when LLVM passes are built
SLP_WIDE = "-slp-max-reg-size=512"  # LLVM option: SLP vector registers of up to 512 bits
ALIGN = 64  # bytes: table rows start on cache-line boundaries (no split vector loads)
SERIAL_WORK = 1 << 22  # sweeps smaller than this (K n^2 r) skip the thread pool's start-up cost

_lop_pair16 = njit(cache=True, fastmath={"contract"})(arith.lop_pair16)
_lop_pair8 = njit(cache=True, fastmath={"contract"})(arith.lop_pair8)
_trunc_value = njit(cache=True)(arith.trunc_value)
_mc_accumulate = njit(cache=True)(arith.mc_accumulate)
_best_insertion = njit(cache=True)(arith.best_insertion)
_insertion_sweep = njit(cache=True)(arith.insertion_sweep)
_row_problem = njit(cache=True)(arith.row_problem)


@njit(parallel=True, cache=True)
def _lop_kernel(orders, Tw, Tn, c0, out):  # pragma: no cover - compiled
    """Per block of orders: each column block (its table slice stays in L1) over all pairs."""
    K = orders.shape[0]
    for blk in prange((K + BLOCK - 1) // BLOCK):
        scratch = np.empty(arith.SCRATCH)
        lo = blk * BLOCK
        hi = min(K, lo + BLOCK)
        for i in range(lo, hi):
            out[i] = c0
        for b in range(Tw.shape[0]):
            Tb = Tw[b]
            for i in range(lo, hi, 2):
                j = min(i + 1, hi - 1)
                va, vb = _lop_pair16(orders[i], orders[j], Tb, scratch)
                out[i] += va
                if j != i:
                    out[j] += vb
        for b in range(Tn.shape[0]):
            Tb = Tn[b]
            for i in range(lo, hi, 2):
                j = min(i + 1, hi - 1)
                va, vb = _lop_pair8(orders[i], orders[j], Tb, scratch)
                out[i] += va
                if j != i:
                    out[j] += vb


@njit(parallel=True, cache=True)
def _trunc_kernel(orders, pi, m, e, k, want_tk, out):  # pragma: no cover - compiled
    K = orders.shape[0]
    for blk in prange((K + BLOCK - 1) // BLOCK):
        P = np.empty(k + 1)
        M = np.empty(k + 1)
        for i in range(blk * BLOCK, min(K, blk * BLOCK + BLOCK)):
            out[i] = _trunc_value(orders[i], pi, m, e, k, want_tk, P, M)


@njit(parallel=True, cache=True)
def _mc_kernel(orders, X, S, kind, k, stats):  # pragma: no cover - compiled
    K = orders.shape[0]
    M = X.shape[0]
    for blk in prange((K + BLOCK - 1) // BLOCK):
        for s0 in range(0, M, SCEN_BLOCK):
            s1 = min(M, s0 + SCEN_BLOCK)
            for i in range(blk * BLOCK, min(K, blk * BLOCK + BLOCK)):
                _mc_accumulate(orders[i], X, S, s0, s1, kind, k, stats[i])


@njit(parallel=True, cache=True)
def _best_insertion_kernel(orders, T1, T2, out):  # pragma: no cover - compiled
    for i in prange(orders.shape[0]):
        _best_insertion(orders[i], T1, T2, out[i])


@njit(parallel=True, cache=True)
def _sweep_kernel(orders, T1, T2, thr, out):  # pragma: no cover - compiled
    K, n = orders.shape
    for i in prange(K):
        pos = np.empty(n, dtype=np.int64)
        seq = np.empty(n, dtype=np.int64)
        _insertion_sweep(orders[i], pos, seq, T1, T2, thr[i], out[i])


@njit(cache=True)
def _sweep_serial(orders, T1, T2, thr, out):  # pragma: no cover - compiled
    K, n = orders.shape
    pos = np.empty(n, dtype=np.int64)
    seq = np.empty(n, dtype=np.int64)
    for i in range(K):
        _insertion_sweep(orders[i], pos, seq, T1, T2, thr[i], out[i])


@njit(parallel=True, cache=True)
def _check_kernel(orders, n, codes):  # pragma: no cover - compiled
    K = orders.shape[0]
    for blk in prange((K + BLOCK - 1) // BLOCK):
        seen = np.full(n, -1, dtype=np.int64)
        for i in range(blk * BLOCK, min(K, blk * BLOCK + BLOCK)):
            codes[i] = _row_problem(orders[i], n, seen, i)


def has_avx512() -> bool:
    """True when the host CPU (as LLVM sees it) has AVX-512F."""
    try:
        return bool(llvm.get_host_cpu_features().get("avx512f", False))
    except RuntimeError:  # LLVM cannot read the host's features: assume none
        return False


@functools.cache
def _allow_wide_slp() -> None:
    """Once per process, on AVX-512 hosts: let the SLP vectorizer use 512-bit registers.

    A process-wide LLVM option, but it only matters where SLP runs, and numba runs SLP only
    inside `_slp` (its own default is off).
    """
    if has_avx512():
        llvm.set_option("", SLP_WIDE)


def aligned(a: np.ndarray, align: int = ALIGN) -> np.ndarray:
    """A C-contiguous copy of `a` whose data starts on an `align`-byte boundary."""
    buf = np.empty(a.nbytes + align, dtype=np.uint8)
    start = -buf.ctypes.data % align
    out = buf[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@contextmanager
def _slp() -> Iterator[None]:
    """Switch numba's SLP vectorization on while a kernel may compile (restored after)."""
    _allow_wide_slp()
    cfg = numba.core.config
    old = getattr(cfg, _SLP_FLAG)
    setattr(cfg, _SLP_FLAG, 1)
    try:
        yield
    finally:
        setattr(cfg, _SLP_FLAG, old)


class CpuBackend:
    """numba CPU kernels (`parallel=True`, one task per block of orders)."""

    name = "cpu"

    def bad_rows(self, chunk: np.ndarray, n: int) -> np.ndarray:
        codes = np.empty(len(chunk), dtype=np.int64)
        with _slp():
            _check_kernel(chunk, n, codes)
        return codes != 0

    def prepare_lop(self, t: LopTables) -> tuple[Any, ...]:
        Tw, Tn = t.blocked()
        return aligned(Tw), aligned(Tn), t.c0

    def lop(self, prep: tuple[Any, ...], chunk: np.ndarray) -> np.ndarray:
        Tw, Tn, c0 = prep
        out = np.empty(len(chunk))
        with _slp():
            _lop_kernel(chunk, Tw, Tn, c0, out)
        return out

    def prepare_trunc(self, t: TruncTables) -> TruncTables:
        return t

    def trunc(self, t: TruncTables, chunk: np.ndarray) -> np.ndarray:
        out = np.empty(len(chunk))
        with _slp():
            _trunc_kernel(chunk, t.pi, t.m, t.e, t.k, t.want_tk, out)
        return out

    def prepare_scenarios(self, X: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.ascontiguousarray(X), np.ascontiguousarray(S).view(np.uint8)

    def mc(
        self,
        kind: int,
        k: int,
        chunk: np.ndarray,
        scen: tuple[np.ndarray, np.ndarray],
        stats: np.ndarray,
    ) -> None:
        with _slp():
            _mc_kernel(chunk, scen[0], scen[1], kind, k, stats)

    def best_insertion(self, t: LopTables, orders: np.ndarray) -> np.ndarray:
        out = np.zeros((len(orders), 3))
        with _slp():
            _best_insertion_kernel(orders, t.T1, t.T2, out)
        return out

    def sweep(self, t: LopTables, orders: np.ndarray, thr: np.ndarray) -> np.ndarray:
        """One insertion sweep of every row of `orders` (in place); (K, 2): change, moves."""
        out = np.zeros((len(orders), 2))
        K, n = orders.shape
        kernel = _sweep_kernel if K > 1 and K * n * n * t.rank > SERIAL_WORK else _sweep_serial
        with _slp():
            kernel(orders, t.T1, t.T2, thr, out)
        return out
