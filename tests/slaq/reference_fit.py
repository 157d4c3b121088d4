"""The fitting core of solvers/slaq/predict.py before the moment-based rewrite: the design
matrix per offset and LAPACK solves. Kept only as the oracle of test_predict_fast.py."""

from __future__ import annotations

import itertools

import numpy as np


def nnls_batch(
    a: np.ndarray, y: np.ndarray, nonneg: tuple[bool, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Exact solutions of min |A x - y| with x_j >= 0 where `nonneg[j]`, per batch
    (A: (B, n, m), y: (B, n)); returns x (B, m) and whether a feasible solution exists (B,).

    Every subset of columns is solved by least squares (normal equations); the NNLS optimum
    is the feasible subset solution of smallest residual (it is the least-squares solution on
    its own support), found by comparing |A x - y|^2 = y'y - 2 x'A'y + x'A'A x.
    """
    b, _, m = a.shape
    at = a.transpose(0, 2, 1)
    ata = at @ a
    aty = (at @ y[..., None])[..., 0]
    yty = np.einsum("bn,bn->b", y, y)
    best_x = np.zeros((b, m))
    best_r = np.full(b, np.inf)
    for r in range(1, m + 1):
        for cols in itertools.combinations(range(m), r):
            if any(not nonneg[j] for j in range(m) if j not in cols):
                continue  # a free column is never dropped
            idx = np.array(cols)
            sub = ata[:, idx[:, None], idx[None, :]] + 1e-12 * np.eye(r)
            with np.errstate(all="ignore"):
                try:
                    xs = np.linalg.solve(sub, aty[:, idx][..., None])[..., 0]
                except np.linalg.LinAlgError:
                    continue
                res = (
                    yty
                    - 2 * np.einsum("bi,bi->b", xs, aty[:, idx])
                    + np.einsum("bi,bij,bj->b", xs, sub, xs)
                )
            ok = np.all(np.isfinite(xs), axis=1) & np.isfinite(res)
            for pos, j in enumerate(idx):
                if nonneg[j]:
                    ok &= xs[:, pos] >= 0
            better = ok & (res < best_r)
            best_r = np.where(better, res, best_r)
            best_x[better] = 0.0
            best_x[np.ix_(better, idx)] = xs[better]
    return best_x, np.isfinite(best_r)


def step(
    family: str, off: np.ndarray, u: np.ndarray, loss: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best fit per job over its offsets `off` (J, G): (sse (J,), offset index (J,), x (J, m)).

    Per offset the transformed problem is solved exactly (NNLS); offsets are ranked by the
    weighted loss-space residual. inverse-poly: 1/(L - d) = a u^2 + b u + c, rows scaled by
    sqrt(w) (L - d)^2;
    exponential: log(L - c) = -alpha u + beta, rows scaled by sqrt(w) (L - c): the scaled
    residual approximates the loss-space residual; candidates are ranked in loss space.
    """
    j, g = off.shape
    gap = loss[:, None, :] - off[:, :, None]  # (J, G, n) > 0
    nonneg: tuple[bool, ...]
    if family == "inverse-poly":
        basis = np.stack([u * u, u, np.ones_like(u)], axis=2)  # (J, n, 3)
        rows = np.sqrt(w)[:, None, :] * gap**2
        y, nonneg = rows / gap, (True, True, True)
    else:
        basis = np.stack([-u, np.ones_like(u)], axis=2)
        rows = np.sqrt(w)[:, None, :] * gap
        y, nonneg = rows * np.log(gap), (True, False)
    m = basis.shape[2]
    a = rows[..., None] * basis[:, None, :, :]  # (J, G, n, m)
    x, ok = nnls_batch(a.reshape(j * g, -1, m), y.reshape(j * g, -1), nonneg)
    x = x.reshape(j, g, m)
    p = x @ basis.transpose(0, 2, 1)  # (J, G, n)
    with np.errstate(all="ignore"):
        if family == "inverse-poly":
            pred = np.where(p > 0, 1.0 / p + off[:, :, None], np.inf)
        else:
            pred = np.exp(p) + off[:, :, None]
        sse = (((pred - loss[:, None, :]) ** 2) @ w[:, :, None])[..., 0]  # (J, G)
    sse = np.where(ok.reshape(j, g) & np.isfinite(sse), sse, np.inf)
    g_idx = np.argmin(sse, axis=1)
    rows_j = np.arange(j)
    return sse[rows_j, g_idx], g_idx, x[rows_j, g_idx]
