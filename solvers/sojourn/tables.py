"""The sojourn objectives as kernel tables: A and B in factor form, TK/DK as forward-pass data.

- A: one factor, T1 = pi, T2 = E[X], c0 = sum pi m (exact).
- B, "nodes": the Gauss-Legendre form of `objectives.b_node_terms`, one factor per node u_q:
  T1[i, q] = w_q G(u_q) a_i(u_q), T2[j, q] = b_j(u_q), c0 = sum_q sum_i T1[i, q] m_i. Nodes whose
  whole contribution is provably below `tol` times c0 (G is tiny away from u = 1 when E[N] is
  large) are dropped; `error_bound` is the sum of their bounds, so for EVERY order
  |value - exact| <= error_bound (about 300 of 5,001 nodes remain at n = 10,000).
- B, "lowrank": the node factors compressed by `kernels.tables.compress` (SVD of W, reference
  order Smith's rule).
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.quadrature import gauss_legendre_unit
from schedlab.solvers.kernels.tables import LopTables, TruncTables, compress
from schedlab.solvers.sojourn.keys import order_by_index, smith_ratio
from schedlab.solvers.sojourn.objectives import Objective, quadrature_nodes
from schedlab.solvers.sojourn.problem import Instance

NODE_TOL = 1e-14  # relative mass of dropped quadrature nodes
TABLE_KINDS = ("nodes", "lowrank")
_CHUNK_CELLS = 1 << 21  # node chunk x n cells held at once while building node tables


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
        ref = np.array(order_by_index(smith_ratio(inst)), dtype=np.int64)
        t = compress(t, ref)
    return t


def trunc_tables(inst: Instance, objective: Objective) -> TruncTables:
    assert objective.k is not None
    return TruncTables(inst.pi, inst.m, inst.e, int(objective.k), objective.kind == "TK")
