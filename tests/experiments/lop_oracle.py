"""An exact linear-ordering oracle for small matrices that shares no code with any solver.

`subset_dp` is the dynamic program over subsets: tests that check an lpcut result (the
PACE side by side of `bench_anchor`) compare it with this value, independent of HiGHS and of
the engine's rounds. It takes O(2^n n) memory: keep n at 16 or below.
"""

from __future__ import annotations

import numpy as np


def subset_dp(W: np.ndarray) -> float:
    """The least linear-ordering cost by dynamic programming over subsets, a layer of equal
    size at a time (v placed last of S pays W[u, v] for every u in S - v): independent of
    every solver."""
    n = W.shape[0]
    full = 1 << n
    S = np.arange(full)
    into = np.zeros((n, full))  # into[v, S] = sum over u in S of W[u, v]
    low = (S & -S)[1:]
    for v in range(n):
        for s, b in zip(S[1:].tolist(), low.tolist(), strict=True):
            into[v, s] = into[v, s & (s - 1)] + W[b.bit_length() - 1, v]
    f = np.full(full, np.inf)
    f[0] = 0.0
    size = np.array([bin(s).count("1") for s in range(full)])
    for k in range(1, n + 1):
        layer = S[size == k]
        best = np.full(len(layer), np.inf)
        for v in range(n):
            has = (layer >> v) & 1 == 1
            rest = layer[has] & ~(1 << v)
            best[has] = np.minimum(best[has], f[rest] + into[v, rest])
        f[layer] = best
    return float(f[-1])
