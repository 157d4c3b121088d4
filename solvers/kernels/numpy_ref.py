"""The numpy reference backend: every kernel vectorized over orders (a loop over positions only).

Orders are processed in sub-chunks of SUB orders so that the working arrays stay small.
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.kernels.orders import numpy_row_problems
from schedlab.solvers.kernels.tables import LopTables, TruncTables

SUB = 4096  # orders per vectorized step
_CELLS = 1 << 22  # cells of a (orders x scenarios) or (orders x positions x positions) block


class NumpyBackend:
    """Vectorized numpy implementations of the kernel API (the reference)."""

    name = "numpy"

    # ---- validation -------------------------------------------------------------------------
    def bad_rows(self, chunk: np.ndarray, n: int) -> np.ndarray:
        return numpy_row_problems(chunk, n)

    # ---- closed-form values -----------------------------------------------------------------
    def prepare_lop(self, t: LopTables) -> LopTables:
        return t

    def lop(self, t: LopTables, chunk: np.ndarray) -> np.ndarray:
        """c0 + sum_r sum_y T1[o_y, r] sum_{x<y} T2[o_x, r] for each row."""
        out = np.empty(len(chunk))
        for s in range(0, len(chunk), SUB):
            o = chunk[s : s + SUB]
            pre = np.zeros((len(o), t.rank))
            acc = np.zeros((len(o), t.rank))
            for y in range(o.shape[1]):
                j = o[:, y]
                acc += t.T1[j] * pre
                pre += t.T2[j]
            out[s : s + SUB] = t.c0 + acc.sum(axis=1)
        return out

    def prepare_trunc(self, t: TruncTables) -> TruncTables:
        return t

    def trunc(self, t: TruncTables, chunk: np.ndarray) -> np.ndarray:
        """Forward pass over success counts (see objectives._truncated_pass), all rows at once."""
        out = np.empty(len(chunk))
        k = t.k
        for s in range(0, len(chunk), SUB):
            o = chunk[s : s + SUB]
            K = len(o)
            P = np.zeros((K, k + 1))
            M = np.zeros((K, k + 1))
            P[:, 0] = 1.0
            dk = np.zeros(K)
            for y in range(o.shape[1]):
                j = o[:, y]
                p, mi, ei = t.pi[j][:, None], t.m[j][:, None], t.e[j][:, None]
                Pr, Mr = P[:, :k].copy(), M[:, :k].copy()
                sP, sM = p * Pr, p * (Mr + mi * Pr)
                dk += sM.sum(axis=1)
                P[:, :k] = (1 - p) * Pr
                M[:, :k] = (1 - p) * Mr + ei * Pr
                P[:, 1:] += sP
                M[:, 1:] += sM
            out[s : s + SUB] = M.sum(axis=1) if t.want_tk else dk
        return out

    # ---- Monte Carlo ------------------------------------------------------------------------
    def prepare_scenarios(self, X: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return X, S

    def mc(
        self,
        kind: int,
        k: int,
        chunk: np.ndarray,
        scen: tuple[np.ndarray, np.ndarray],
        stats: np.ndarray,
    ) -> None:
        """Fold the scenarios into the running (count, mean, M2) per row of `stats` (Chan)."""
        X, S = scen
        M = X.shape[0]
        sub_k = max(1, min(len(chunk), _CELLS // max(M, 1)))
        sub_m = max(1, min(M, _CELLS // sub_k))
        for s in range(0, len(chunk), sub_k):
            o = chunk[s : s + sub_k]
            for m0 in range(0, M, sub_m):
                v = realized(kind, k, o, X[m0 : m0 + sub_m], S[m0 : m0 + sub_m])
                _chan_merge(stats[s : s + sub_k], v)

    # ---- insertion neighbourhoods -----------------------------------------------------------
    def best_insertion(self, t: LopTables, orders: np.ndarray) -> np.ndarray:
        """(K, 3): best change, from position, to position over all n(n-1) insertion moves."""
        return best_insertion_numpy(t, orders)


def realized(kind: int, k: int, o: np.ndarray, X: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Realized objective (orders x scenarios) of orders `o` on scenarios X, S."""
    Ko, n = o.shape
    M = X.shape[0]
    t = np.zeros((Ko, M))
    tot = np.zeros((Ko, M))
    succ = np.zeros((Ko, M), dtype=np.int64)
    done = np.zeros((Ko, M), dtype=bool)
    for y in range(n):
        j = o[:, y]
        x = X[:, j].T
        sc = S[:, j].T != 0
        if kind >= 2:
            x = np.where(done, 0.0, x)
            sc = sc & ~done
        t += x
        succ += sc
        if kind <= 1 or kind == 3:
            tot += np.where(sc, t, 0.0)
        if kind >= 2:
            done |= succ >= k
    if kind == 1:
        return np.divide(tot, succ, out=np.zeros_like(tot), where=succ > 0)
    if kind == 2:
        return t
    return tot


def _chan_merge(stats: np.ndarray, v: np.ndarray) -> None:
    """Merge a block of values (rows x samples) into running (count, mean, M2) rows."""
    nb = v.shape[1]
    mb = v.mean(axis=1)
    m2b = ((v - mb[:, None]) ** 2).sum(axis=1)
    na = stats[:, 0]
    tot = na + nb
    delta = mb - stats[:, 1]
    stats[:, 1] += delta * nb / tot
    stats[:, 2] += m2b + delta**2 * na * nb / tot
    stats[:, 0] = tot


def insertion_deltas(t: LopTables, order: np.ndarray) -> np.ndarray:
    """(n, n) change of the value when the job at position a moves to position b (0 on a = b)."""
    return _delta_rows(t, np.asarray(order, dtype=np.int64)[None, :], 0, len(order))[0]


def _delta_rows(t: LopTables, orders: np.ndarray, a0: int, a1: int) -> np.ndarray:
    """Deltas (K, a1 - a0, n) for moves from positions a0..a1-1 of each order."""
    K, n = orders.shape
    T1o, T2o = t.T1[orders], t.T2[orders]  # (K, n, r)
    # D[k, a, x] = W[o_x, o_a] - W[o_a, o_x]: moving o_a behind o_x changes the value by D
    D = np.einsum("kar,kxr->kax", T1o[:, a0:a1], T2o) - np.einsum(
        "kar,kxr->kax", T2o[:, a0:a1], T1o
    )
    P = np.cumsum(D, axis=2)  # P[a, x] = sum_{x' <= x} D[a, x']
    Pm = np.concatenate([np.zeros((K, a1 - a0, 1)), P[:, :, :-1]], axis=2)  # P[a, x - 1]
    a = np.arange(a0, a1)[:, None]
    b = np.arange(n)[None, :]
    rows = np.arange(a1 - a0)
    Pa = P[:, rows, a0 + rows][:, :, None]  # P[a, a]
    Pma = Pm[:, rows, a0 + rows][:, :, None]  # P[a, a - 1]
    right = P - Pa  # b > a: sum_{x=a+1..b} D[a, x]
    left = Pm - Pma  # b < a: -sum_{x=b..a-1} D[a, x] = P[a, b-1] - P[a, a-1]
    return np.where(b > a, right, np.where(b < a, left, 0.0))


def best_insertion_numpy(t: LopTables, orders: np.ndarray) -> np.ndarray:
    """Best move per order by full delta matrices, in blocks of start positions."""
    K, n = orders.shape
    out = np.zeros((K, 3))
    step = max(1, _CELLS // max(1, K * n))
    for a0 in range(0, n, step):
        a1 = min(n, a0 + step)
        d = _delta_rows(t, orders, a0, a1).reshape(K, -1)
        idx = np.argmin(d, axis=1)
        val = d[np.arange(K), idx]
        better = val < out[:, 0]
        out[better, 0] = val[better]
        out[better, 1] = a0 + idx[better] // n
        out[better, 2] = idx[better] % n
    return out
