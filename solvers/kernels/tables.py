"""The tables the kernels read (arrays only; a subject builds them, e.g. `sojourn.tables`).

A "factor" form of a linear ordering problem with a low-rank weight matrix:

    value(order) = c0 + sum_r sum_y T1[o_y, r] * sum_{x<y} T2[o_x, r]

within `error_bound` for every order; `compress` shrinks the rank by a truncated SVD of
W = T2 T1^T and adds sqrt(#pairs) * ||W - W_r||_F (Cauchy-Schwarz) to the bound. The truncated
forward pass (`TruncTables`) carries per-job success probability, success size and cancelled
mass and the K of the K-th-success objectives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

WIDE, LANES = 16, 8  # column blocks of the evaluation kernel (see LopTables.blocked)
LOWRANK_TOL = 1e-12  # relative error budget of the SVD truncation


@dataclass(frozen=True)
class LopTables:
    """value(order) = c0 + sum_r sum_y T1[o_y, r] sum_{x<y} T2[o_x, r], within error_bound.

    W[j, i] = sum_r T2[j, r] T1[i, r] is the linear-ordering weight of "j before i".
    """

    c0: float
    T1: np.ndarray  # (n, r) value side
    T2: np.ndarray  # (n, r) prefix side
    kind: str  # what built it, e.g. "A", "nodes" or "lowrank" for sojourn
    nodes_total: int  # factors before pruning (quadrature nodes for sojourn B; 1 for A)
    error_bound: float  # absolute bound on |value - exact value| for every order

    @property
    def n(self) -> int:
        return int(self.T1.shape[0])

    @property
    def rank(self) -> int:
        return int(self.T1.shape[1])

    def blocked(self) -> tuple[np.ndarray, np.ndarray]:
        """Column blocks for `arith.lop_pair16` / `lop_pair8`: Tw (b16, n, 32) and Tn (b8, n, 16),
        b8 in {0, 1}; in each block row the T1 columns come first, then the T2 columns, zero
        padded. A remainder of 9..15 columns gets a padded block of 16."""
        n, r = self.n, self.rank
        b16, rest = divmod(r, WIDE)
        if rest > LANES:
            b16, rest = b16 + 1, 0
        b8 = 1 if rest else 0
        width = b16 * WIDE + b8 * LANES
        P1, P2 = np.zeros((n, width)), np.zeros((n, width))
        P1[:, :r], P2[:, :r] = self.T1, self.T2
        parts = []
        for lo, w, count in ((0, WIDE, b16), (b16 * WIDE, LANES, b8)):
            blocks = np.zeros((count, n, 2 * w))
            for k in range(count):
                blocks[k, :, :w] = P1[:, lo + k * w : lo + (k + 1) * w]
                blocks[k, :, w:] = P2[:, lo + k * w : lo + (k + 1) * w]
            parts.append(blocks)
        return parts[0], parts[1]

    def weight(self, j: int, i: int) -> float:
        """W[j, i]: the cost of job j running before job i (for tests and diagnostics)."""
        return float(self.T2[j] @ self.T1[i])


@dataclass(frozen=True)
class TruncTables:
    """Data of the TK / DK forward pass: pi, m, e per job and K."""

    pi: np.ndarray
    m: np.ndarray
    e: np.ndarray
    k: int
    want_tk: bool

    @property
    def n(self) -> int:
        return int(self.pi.shape[0])


def _factor_values(t: LopTables, orders: np.ndarray) -> np.ndarray:
    """Plain numpy evaluation of a few orders (used to pick the low-rank budget)."""
    pre = np.zeros((len(orders), t.rank))
    out = np.full(len(orders), t.c0)
    for y in range(orders.shape[1]):
        o = orders[:, y]
        out += np.einsum("kr,kr->k", t.T1[o], pre)
        pre += t.T2[o]
    return out


def compress(t: LopTables, ref_order: np.ndarray, tol: float = LOWRANK_TOL) -> LopTables:
    """Truncated SVD of W = T2 T1^T, keeping the fewest factors whose error bound
    sqrt(n(n-1)/2) * ||W - W_r||_F stays <= tol * value(ref_order)."""
    n, r = t.n, t.rank
    if r <= 1 or n < r:
        return t
    from schedlab.solvers.kernels.linalg import HouseholderQR  # compiled (numba): on use

    qb, qa = HouseholderQR(t.T2), HouseholderQR(t.T1)
    U, s, Vt = np.linalg.svd(qb.R @ qa.R.T)
    tail = np.sqrt(np.cumsum((s**2)[::-1])[::-1])  # tail[k] = ||sigma_{k:}||_2
    tail = np.append(tail, 0.0)
    scale = math.sqrt(n * (n - 1) / 2)
    ref = float(_factor_values(t, ref_order[None, :])[0])
    budget = tol * max(abs(ref), 1e-300)
    k = int(np.argmax(scale * tail <= budget))  # tail[-1] = 0, so a k always exists
    k = max(k, 1)
    L = qb.q_times(U[:, :k] * s[:k])
    R = qa.q_times(Vt[:k].T)
    return LopTables(
        t.c0,
        np.ascontiguousarray(R),
        np.ascontiguousarray(L),
        "lowrank",
        t.nodes_total,
        t.error_bound + scale * float(tail[k]),
    )
