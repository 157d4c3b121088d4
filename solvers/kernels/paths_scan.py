"""The per-range scan of `paths.best_path`, written once for every numba target.

Plain scalar code with no import of its own: `paths` compiles it with numba.njit for the 'cpu'
backend, `paths_gpu` with numba.cuda.jit(device=True) for 'cuda', so both import it from here
and neither imports the other's module.
"""

from __future__ import annotations

import numpy as np


def scan_range(lat, cost, counts, budget, start, stop, out_cost, out_idx, out_n, slot):
    """Scan outer indices [start, stop) (all stages but the last) and every last-stage column.

    Writes the best cost, its flat index and the number of feasible paths to out_*[slot].
    Plain scalar code: valid under numba.njit, numba.cuda.jit(device=True) and plain Python.
    """
    k = counts.shape[0]
    last = counts[k - 1]
    best = np.inf
    best_i = -1
    n_ok = 0
    top = 1  # the place value of stage 0's digit: counts[1] * ... * counts[k - 2]
    for s in range(1, k - 1):
        top *= counts[s]
    for o in range(start, stop):
        pl = 0.0
        pc = 0.0
        r = o
        p = top
        for s in range(k - 1):  # stage 0 first: the order in which a plan sums its latency
            d = r // p
            r = r - d * p
            pl += lat[s, d]
            pc += cost[s, d]
            if s + 2 < k:
                p = p // counts[s + 1]
        for j in range(last):
            tl = pl + lat[k - 1, j]
            if tl <= budget:
                n_ok += 1
                tc = pc + cost[k - 1, j]
                if tc < best:
                    best = tc
                    best_i = o * last + j
    out_cost[slot] = best
    out_idx[slot] = best_i
    out_n[slot] = n_ok
