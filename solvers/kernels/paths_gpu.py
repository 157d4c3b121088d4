"""CUDA kernel of `paths.best_path`: one range of outer path indices per thread.

Imported only when the CUDA backend is used (numba.cuda must be a module global here so that
numba's CUDA simulator can substitute its own).
"""

from __future__ import annotations

from numba import cuda

from schedlab.solvers.kernels.paths_scan import scan_range

_scan = cuda.jit(device=True)(scan_range)


@cuda.jit
def paths_kernel(
    lat, cost, counts, budget, outer, block, out_cost, out_idx, out_n
):  # pragma: no cover
    t = cuda.grid(1)
    if t < out_cost.shape[0]:
        lo = t * block
        hi = min(outer, lo + block)
        _scan(lat, cost, counts, budget, lo, hi, out_cost, out_idx, out_n, t)
