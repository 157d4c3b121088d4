"""Per-instance tables that the kernels read: the factor form of A and B, and the TK/DK data.

A and B share one "factor" form (a linear ordering problem with a low-rank weight matrix):

    value(order) = c0 + sum_r sum_y T1[o_y, r] * sum_{x<y} T2[o_x, r]

- A: one factor, T1 = pi, T2 = E[X], c0 = sum pi m (exact).
- B, "nodes": the Gauss-Legendre form of `objectives.b_node_terms`, one factor per node u_q:
  T1[i, q] = w_q G(u_q) a_i(u_q), T2[j, q] = b_j(u_q), c0 = sum_q sum_i T1[i, q] m_i. Nodes whose
  whole contribution is provably below `tol` times c0 (G is tiny away from u = 1 when E[N] is
  large) are dropped; `error_bound` is the sum of their bounds, so for EVERY order
  |value - exact| <= error_bound (about 300 of 5,001 nodes remain at n = 10,000).
- B, "lowrank": the node factors compressed by a truncated SVD of W = T2 T1^T (W has tiny
  numerical rank); `error_bound` adds sqrt(#pairs) * ||W - W_r||_F (Cauchy-Schwarz), which
  bounds the change of every order's value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.linalg import HouseholderQR
from schedlab.solvers.kernels.quadrature import gauss_legendre_unit
from schedlab.solvers.sojourn.instance import Instance
from schedlab.solvers.sojourn.objectives import Objective, quadrature_nodes

WIDE, LANES = 16, 8  # column blocks of the evaluation kernel (see LopTables.blocked)
NODE_TOL = 1e-14  # relative mass of dropped quadrature nodes
LOWRANK_TOL = 1e-12  # relative error budget of the SVD truncation
TABLE_KINDS = ("nodes", "lowrank")
_CHUNK_CELLS = 1 << 21  # node chunk x n cells held at once while building node tables


@dataclass(frozen=True)
class LopTables:
    """value(order) = c0 + sum_r sum_y T1[o_y, r] sum_{x<y} T2[o_x, r], within error_bound.

    W[j, i] = sum_r T2[j, r] T1[i, r] is the linear-ordering weight of "j before i".
    """

    c0: float
    T1: np.ndarray  # (n, r) value side
    T2: np.ndarray  # (n, r) prefix side
    kind: str  # "A", "nodes" or "lowrank"
    nodes_total: int  # quadrature nodes before pruning (1 for A)
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


def a_tables(inst: Instance) -> LopTables:
    """Exact factor form of A = sum pi_i m_i + sum_{j before i} E[X_j] pi_i."""
    return LopTables(
        c0=float(np.dot(inst.pi, inst.m)),
        T1=np.ascontiguousarray(inst.pi[:, None]),
        T2=np.ascontiguousarray(inst.mean[:, None]),
        kind="A",
        nodes_total=1,
        error_bound=0.0,
    )


def _node_terms(inst: Instance, u: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """wG (c,), a (c, n), b (c, n) at nodes u (see objectives.b_node_terms)."""
    pi, m, e = inst.pi, inst.m, inst.e
    g = 1.0 - pi[None, :] + pi[None, :] * u[:, None]
    G = np.prod(g, axis=1)
    a = pi[None, :] / g
    b = (e[None, :] + m[None, :] * pi[None, :] * u[:, None]) / g
    return w * G, a, b


def b_node_tables(inst: Instance, tol: float = NODE_TOL) -> LopTables:
    """Factor form of B on the exact Gauss-Legendre nodes, negligible nodes pruned (certified).

    Node q contributes w_q G(u_q) sum_i a_i (m_i + sum_{j before i} b_j), which lies in
    [0, U_q] with U_q = w_q G (sum_i a_i m_i + sum_i a_i * sum_j b_j) for every order. Nodes are
    dropped in increasing U_q while the dropped total stays <= tol/2 * c0, where c0 (the m part
    summed over all nodes) is a lower bound on B for every order.
    """
    n = inst.n
    q = quadrature_nodes(n)
    u, w = gauss_legendre_unit(q)
    upper = np.empty(q)
    lower = np.empty(q)
    step = max(1, _CHUNK_CELLS // n)
    for s in range(0, q, step):
        wG, a, b = _node_terms(inst, u[s : s + step], w[s : s + step])
        am = a @ inst.m
        upper[s : s + step] = wG * (am + a.sum(axis=1) * b.sum(axis=1))
        lower[s : s + step] = wG * am
    c_total = float(lower.sum())
    by_size = np.argsort(upper, kind="stable")
    cum = np.cumsum(upper[by_size])
    n_drop = int(np.searchsorted(cum, 0.5 * tol * c_total, side="right"))
    keep = np.sort(by_size[n_drop:])
    dropped = float(cum[n_drop - 1]) if n_drop else 0.0
    wG, a, b = _node_terms(inst, u[keep], w[keep])
    T1 = np.ascontiguousarray((wG[:, None] * a).T)
    T2 = np.ascontiguousarray(b.T)
    c0 = float(inst.m @ T1.sum(axis=1))
    return LopTables(c0, T1, T2, "nodes", q, dropped)


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


def lop_tables(inst: Instance, objective: Objective, kind: str = "nodes") -> LopTables:
    """Factor tables of A (exact) or B (`kind`: 'nodes' or 'lowrank')."""
    if kind not in TABLE_KINDS:
        raise InvalidInput(f"tables: unknown kind {kind!r}; choose one of {', '.join(TABLE_KINDS)}")
    if objective.kind == "A":
        return a_tables(inst)
    if objective.kind != "B":
        raise InvalidInput(f"objective {objective.label}: not a linear-ordering objective (A, B)")
    t = b_node_tables(inst)
    if kind == "lowrank":
        from schedlab.solvers.sojourn.heuristics import order_by_index, smith_index

        ref = np.array(order_by_index(smith_index(inst)), dtype=np.int64)
        t = compress(t, ref)
    return t


def trunc_tables(inst: Instance, objective: Objective) -> TruncTables:
    assert objective.k is not None
    return TruncTables(inst.pi, inst.m, inst.e, int(objective.k), objective.kind == "TK")
