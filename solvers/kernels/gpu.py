"""The numba CUDA backend: `arith`'s per-order functions as device functions, one thread per order.

Orders travel to the device transposed (n x K) so that the threads of a warp read consecutive
addresses; per-thread scratch of the TK/DK pass lives in global memory laid out the same way.
This module (and numba.cuda) is imported only when the cuda backend is chosen. Tested with
numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) at tiny sizes; real-GPU tests are marked `gpu`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda, float64

from schedlab.solvers.kernels import arith
from schedlab.solvers.kernels.tables import LopTables, TruncTables

THREADS = 128

_lop_pair16 = cuda.jit(device=True)(arith.lop_pair16)
_lop_pair8 = cuda.jit(device=True)(arith.lop_pair8)
_trunc_value = cuda.jit(device=True)(arith.trunc_value)
_mc_accumulate = cuda.jit(device=True)(arith.mc_accumulate)
_best_insertion = cuda.jit(device=True)(arith.best_insertion)
_insertion_sweep = cuda.jit(device=True)(arith.insertion_sweep)
_SCRATCH = arith.SCRATCH


@cuda.jit
def _lop_kernel(ordersT, Tw, Tn, c0, out):  # pragma: no cover - device code
    """One thread per pair of orders (2t, 2t + 1), all column blocks."""
    t = cuda.grid(1)
    K = out.shape[0]
    i = 2 * t
    if i < K:
        j = min(i + 1, K - 1)
        scratch = cuda.local.array(_SCRATCH, float64)
        a = c0
        b = c0
        for k in range(Tw.shape[0]):
            va, vb = _lop_pair16(ordersT[:, i], ordersT[:, j], Tw[k], scratch)
            a += va
            b += vb
        for k in range(Tn.shape[0]):
            va, vb = _lop_pair8(ordersT[:, i], ordersT[:, j], Tn[k], scratch)
            a += va
            b += vb
        out[i] = a
        if j != i:
            out[j] = b


@cuda.jit
def _trunc_kernel(ordersT, pi, m, e, k, want_tk, P, M, out):  # pragma: no cover
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = _trunc_value(ordersT[:, i], pi, m, e, k, want_tk, P[:, i], M[:, i])


@cuda.jit
def _mc_kernel(ordersT, X, S, kind, k, stats):  # pragma: no cover
    i = cuda.grid(1)
    if i < stats.shape[0]:
        _mc_accumulate(ordersT[:, i], X, S, 0, X.shape[0], kind, k, stats[i])


@cuda.jit
def _best_kernel(orders, T1, T2, out):  # pragma: no cover
    i = cuda.grid(1)
    if i < out.shape[0]:
        _best_insertion(orders[i], T1, T2, out[i])


@cuda.jit
def _sweep_kernel(orders, pos, seq, T1, T2, thr, out):  # pragma: no cover
    i = cuda.grid(1)
    if i < out.shape[0]:
        _insertion_sweep(orders[i], pos[i], seq[i], T1, T2, thr[i], out[i])


def _grid(k: int) -> tuple[int, int]:
    threads = min(THREADS, max(32, -(-k // 32) * 32))
    return -(-k // threads), threads


class CudaBackend:
    """numba CUDA kernels; tables are copied to the device once per `prepare_*` call."""

    name = "cuda"

    def __init__(self) -> None:
        self._cuda = cuda

    def bad_rows(self, chunk: np.ndarray, n: int) -> np.ndarray:
        from schedlab.solvers.kernels.cpu import CpuBackend  # validation runs on the host

        return CpuBackend().bad_rows(chunk, n)

    def _transposed(self, chunk: np.ndarray) -> Any:
        return self._cuda.to_device(np.ascontiguousarray(chunk.T))

    def prepare_lop(self, t: LopTables) -> tuple[Any, ...]:
        return (*(self._cuda.to_device(T) for T in t.blocked()), t.c0)

    def lop(self, prep: tuple[Any, ...], chunk: np.ndarray) -> np.ndarray:
        out = self._cuda.device_array(len(chunk))
        blocks, threads = _grid(-(-len(chunk) // 2))  # one thread per pair of orders
        _lop_kernel[blocks, threads](self._transposed(chunk), *prep, out)
        return out.copy_to_host()

    def prepare_trunc(self, t: TruncTables) -> tuple[Any, ...]:
        c = self._cuda
        return c.to_device(t.pi), c.to_device(t.m), c.to_device(t.e), t.k, t.want_tk

    def trunc(self, prep: tuple[Any, ...], chunk: np.ndarray) -> np.ndarray:
        pi, m, e, k, want_tk = prep
        K = len(chunk)
        out = self._cuda.device_array(K)
        P = self._cuda.device_array((k + 1, K))
        M = self._cuda.device_array((k + 1, K))
        blocks, threads = _grid(K)
        _trunc_kernel[blocks, threads](self._transposed(chunk), pi, m, e, k, want_tk, P, M, out)
        return out.copy_to_host()

    def prepare_scenarios(self, X: np.ndarray, S: np.ndarray) -> tuple[Any, Any]:
        c = self._cuda
        return c.to_device(np.ascontiguousarray(X)), c.to_device(
            np.ascontiguousarray(S).view(np.uint8)
        )

    def mc(
        self, kind: int, k: int, chunk: np.ndarray, scen: tuple[Any, Any], stats: np.ndarray
    ) -> None:
        d_stats = self._cuda.to_device(stats)
        blocks, threads = _grid(len(chunk))
        _mc_kernel[blocks, threads](self._transposed(chunk), scen[0], scen[1], kind, k, d_stats)
        stats[:] = d_stats.copy_to_host()

    def best_insertion(self, t: LopTables, orders: np.ndarray) -> np.ndarray:
        c = self._cuda
        out = c.device_array((len(orders), 3))
        blocks, threads = _grid(len(orders))
        _best_kernel[blocks, threads](
            c.to_device(orders), c.to_device(t.T1), c.to_device(t.T2), out
        )
        return out.copy_to_host()

    def sweep(self, t: LopTables, orders: np.ndarray, thr: np.ndarray) -> np.ndarray:
        c = self._cuda
        K, n = orders.shape
        d_orders = c.to_device(orders)
        pos = c.device_array((K, n), dtype=np.int64)
        seq = c.device_array((K, n), dtype=np.int64)
        out = c.device_array((K, 2))
        blocks, threads = _grid(K)
        _sweep_kernel[blocks, threads](
            d_orders, pos, seq, c.to_device(t.T1), c.to_device(t.T2), c.to_device(thr), out
        )
        orders[:] = d_orders.copy_to_host()
        return out.copy_to_host()
