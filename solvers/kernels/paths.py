"""Brute force over configuration paths: the cheapest path whose summed latency fits a limit.

Arrays in, arrays out, no subject: `lat` and `cost` are (stages, width) tables padded past
`counts[s]` (entries there are never read). A path picks one column per stage; its flat index
is the mixed-radix number of its columns, stage 0 most significant. `best_path` returns the
cheapest feasible path (ties: the lowest flat index), its cost and latency, and the number of
feasible paths. Backends: 'numpy' (chunked reference), 'cpu' (numba, parallel over blocks of
paths), 'cuda' (numba CUDA, one range of paths per thread); all sum in the same order (from 0.0,
stage 0 first, as a plan sums its latency), so they agree bit for bit. The per-range scan
(`paths_scan.scan_range`) is written once and compiled for both numba targets. A path fits
when its float latency sum is <= `budget`, with no tolerance here: a caller with one (ESG's
LAT_TOL) passes budget + it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.backends import resolve_backend
from schedlab.solvers.kernels.paths_scan import scan_range


@dataclass(frozen=True)
class BestPath:
    """The cheapest feasible path: columns per stage (None when no path fits), cost, latency."""

    choice: np.ndarray | None
    cost: float
    latency: float
    feasible_paths: int
    paths: int


def _check(lat: np.ndarray, cost: np.ndarray, counts: np.ndarray) -> None:
    if lat.ndim != 2 or lat.shape != cost.shape or counts.shape != (lat.shape[0],):
        raise InvalidInput("paths: lat and cost must be (stages, width), counts (stages,)")
    if lat.shape[0] < 1 or (counts < 1).any() or (counts > lat.shape[1]).any():
        raise InvalidInput("paths: every stage needs 1..width columns")


def decode(index: int, counts: np.ndarray) -> np.ndarray:
    """Columns of the path with flat `index`."""
    out = np.zeros(len(counts), dtype=np.int64)
    for s in range(len(counts) - 1, -1, -1):
        index, out[s] = divmod(index, int(counts[s]))
    return out


def _numpy_scan(lat, cost, counts, budget, chunk=1 << 16):
    """Reference: the same sums as `scan_range`, vectorized over blocks of outer indices."""
    k, last = len(counts), int(counts[-1])
    outer = int(np.prod(counts[:-1], dtype=np.int64)) if k > 1 else 1
    best, best_i, n_ok = np.inf, -1, 0
    for a in range(0, outer, chunk):
        o = np.arange(a, min(a + chunk, outer), dtype=np.int64)
        pl, pc, r = np.zeros(len(o)), np.zeros(len(o)), o.copy()
        p = int(np.prod(counts[1:-1], dtype=np.int64)) if k > 2 else 1
        for s in range(k - 1):  # stage 0 first, as in scan_range
            d = r // p
            r -= d * p
            pl += lat[s, d]
            pc += cost[s, d]
            if s + 2 < k:
                p //= int(counts[s + 1])
        tl = pl[:, None] + lat[k - 1, :last][None, :]
        tc = pc[:, None] + cost[k - 1, :last][None, :]
        ok = tl <= budget
        n_ok += int(ok.sum())
        tc = np.where(ok, tc, np.inf)
        flat = int(np.argmin(tc))
        if tc.flat[flat] < best:
            best, best_i = float(tc.flat[flat]), int(o[flat // last]) * last + flat % last
    return best, best_i, n_ok


@cache
def _cpu_kernel() -> Any:
    from numba import njit, prange

    scan = njit(cache=True)(scan_range)

    @njit(parallel=True, cache=True)
    def kernel(
        lat, cost, counts, budget, outer, block, out_cost, out_idx, out_n
    ):  # pragma: no cover
        nb = out_cost.shape[0]
        for b in prange(nb):
            scan(lat, cost, counts, budget, b * block, min(outer, (b + 1) * block),
                 out_cost, out_idx, out_n, b)  # fmt: skip

    return kernel


def _reduce(out_cost: np.ndarray, out_idx: np.ndarray, out_n: np.ndarray) -> tuple[float, int, int]:
    b = int(np.argmin(out_cost))  # first minimum: blocks are in index order
    return float(out_cost[b]), int(out_idx[b]), int(out_n.sum())


def best_path(
    lat: np.ndarray,
    cost: np.ndarray,
    counts: np.ndarray,
    budget: float,
    *,
    backend: str = "auto",
    block: int = 256,
) -> BestPath:
    """The cheapest path with summed latency <= budget, exactly (see the module docstring)."""
    lat = np.ascontiguousarray(lat, dtype=np.float64)
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    _check(lat, cost, counts)
    name = resolve_backend(backend)
    paths = int(np.prod(counts.astype(object)))
    outer = paths // int(counts[-1])
    if name == "numpy":
        best, idx, n_ok = _numpy_scan(lat, cost, counts, float(budget))
    else:
        nb = (outer + block - 1) // block
        out_cost, out_idx = np.empty(nb), np.empty(nb, dtype=np.int64)
        out_n = np.empty(nb, dtype=np.int64)
        if name == "cpu":
            _cpu_kernel()(lat, cost, counts, float(budget), outer, block, out_cost, out_idx, out_n)
        else:
            from numba import cuda

            from schedlab.solvers.kernels.paths_gpu import paths_kernel

            d_c, d_i, d_n = (cuda.to_device(x) for x in (out_cost, out_idx, out_n))
            threads = 128
            paths_kernel[(nb + threads - 1) // threads, threads](
                cuda.to_device(lat), cuda.to_device(cost), cuda.to_device(counts),
                float(budget), outer, block, d_c, d_i, d_n,
            )  # fmt: skip
            out_cost, out_idx, out_n = d_c.copy_to_host(), d_i.copy_to_host(), d_n.copy_to_host()
        best, idx, n_ok = _reduce(out_cost, out_idx, out_n)
    if idx < 0:
        return BestPath(None, np.inf, np.inf, n_ok, paths)
    choice = decode(idx, counts)
    latency = float(sum(lat[s, choice[s]] for s in range(len(counts))))
    return BestPath(choice, best, latency, n_ok, paths)
