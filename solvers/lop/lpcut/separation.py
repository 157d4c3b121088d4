"""lpcut's separation: which 3-cycle inequalities a fractional tournament violates.

Two families, both of valid inequalities of the ordering polytope (no integer order is cut
off): the cycles tight at the incumbent order (`incumbent_cycles`, the only rows that can carry
the dual certificate of an optimal incumbent, by complementary slackness), and every violated
triangle (`violated_cycles`, the general separation when the first family is empty).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schedlab.solvers.lop.core import Triple
from schedlab.solvers.lop.lpcut.options import DEFAULT_TUNING, LpcutTuning


def cuts_per_round(n: int, tuning: LpcutTuning = DEFAULT_TUNING) -> int:
    """How many triangles the general separation adds per round on a block of n vertices."""
    return max(tuning.cuts_min, tuning.cuts_per_n * n)


def violated_cycles(
    Y: np.ndarray, limit: int, viol_tol: float = DEFAULT_TUNING.viol_tol
) -> list[tuple[Triple, int]]:
    """Sorted triples (a<b<c) with the orientation whose 3-cycle inequality the fractional
    tournament Y violates, most violated first: kind 1 is a -> b -> c -> a
    (x_ab + x_bc - x_ac <= 1), kind 2 is a -> c -> b -> a (x_ac - x_ab - x_bc <= 0)."""
    n = Y.shape[0]
    found: dict[tuple[Triple, int], float] = {}
    for b in range(n):
        V = Y[:, b][:, None] + Y[b, :][None, :] + Y.T  # V[a, c] = y_ab + y_bc + y_ca
        V[b, :] = V[:, b] = 0.0
        np.fill_diagonal(V, 0.0)
        a_idx, c_idx = np.nonzero(V > 2.0 + viol_tol)
        for a, c in zip(a_idx.tolist(), c_idx.tolist(), strict=True):
            t = sorted((a, b, c))
            rot = (a, b, c) in ((t[0], t[1], t[2]), (t[1], t[2], t[0]), (t[2], t[0], t[1]))
            found[(t[0], t[1], t[2]), 1 if rot else 2] = float(V[a, c]) - 2.0
    return sorted(found, key=lambda k: -found[k])[:limit]


def incumbent_cycles(
    Y: np.ndarray,
    order: Sequence[int],
    D: np.ndarray,
    per_pair: int = DEFAULT_TUNING.per_pair,
    viol_tol: float = DEFAULT_TUNING.viol_tol,
) -> np.ndarray:
    """Cycles (a, b, c) = a -> b -> c -> a violated by the fractional tournament Y among the
    triangle rows tight at `order` (a before b before c there), at most `per_pair` per pair
    (a, c) that Y reverses: the most violated, ties to the middle jobs whose pairs cost most
    to reverse (D: scaled W - W.T). Only these rows can carry the dual certificate of an
    optimal `order` (complementary slackness), so they are separated first."""
    o = np.asarray(order, dtype=np.int64)
    n = len(o)
    Yp = Y[np.ix_(o, o)]
    Dp = D[np.ix_(o, o)]  # Dp[p, q] < 0: p first is cheaper; reversing (p, q) costs -Dp[p, q]
    out: list[np.ndarray] = []
    for p in range(n - 2):
        rs = np.nonzero(Yp[p + 2 :, p] > viol_tol)[0] + p + 2  # r (partly) before p
        if not len(rs):
            continue
        q = np.arange(p + 1, n)[:, None]
        V = Yp[p, p + 1 :][:, None] + Yp[p + 1 :][:, rs] + Yp[rs, p][None, :]
        score = V - 1e-4 * (Dp[p, p + 1 :][:, None] + Dp[p + 1 :][:, rs])
        score = np.where((q < rs[None, :]) & (V > 2.0 + viol_tol), score, -np.inf)
        k = min(per_pair, score.shape[0])
        top = np.argpartition(-score, k - 1, axis=0)[:k] if k < score.shape[0] else None
        top = np.argsort(-score, axis=0)[:k] if top is None else top
        cols = np.broadcast_to(np.arange(len(rs)), top.shape)
        ok = np.isfinite(score[top, cols])
        out.append(np.stack([np.full(ok.sum(), p), top[ok] + p + 1, rs[cols[ok]]], axis=1))
    if not out:
        return np.zeros((0, 3), dtype=np.int64)
    return o[np.concatenate(out)]


def separate(
    Y: np.ndarray, order: Sequence[int], D: np.ndarray, tuning: LpcutTuning, general: bool
) -> tuple[np.ndarray, int]:
    """(rows to add as cycles a -> b -> c -> a, how many came from the general separation):
    the incumbent's cycles unless `general`, and every violated triangle where those are
    none (or `general`)."""
    new = (
        np.zeros((0, 3), dtype=np.int64)
        if general
        else incumbent_cycles(Y, order, D, tuning.per_pair, tuning.viol_tol)
    )
    if len(new):
        return new, 0
    cyc = violated_cycles(Y, cuts_per_round(Y.shape[0], tuning), tuning.viol_tol)
    new = np.asarray([t if k == 1 else (t[0], t[2], t[1]) for t, k in cyc])
    return new, len(new)
