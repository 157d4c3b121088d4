"""Linear-ordering benchmark matrices for B's linear-ordering core: reader, generator, solve.

The public linear-ordering benchmarks (LOLIB, xLOLIB, the input-output tables) store a matrix as
text: the first token is n, then the n x n entries row by row (any whitespace). Their problem is
a maximization: permute rows and columns alike so that the sum of the entries above the
diagonal is largest. B's core (`lop.solve_lop_matrix`) minimizes sum_{a before b} W[a, b]; with
W[a, b] = M[b, a] (the cost of a before b is the entry (b, a)) an order's core cost is the sum
of M below the diagonal, so value_max = total - cost and an upper bound = total - lower bound,
where total is the sum of M off the diagonal. Entries may be negative: W is shifted by a
constant per pair (exact for every order) so that W >= 0, which the core's block slacks need.
The status is `certify`'s with `PROOF_TOL` on the converted (minimization) problem.

This feeds the linear-ordering core only; the sojourn objectives A and B build their W from an
instance (`lop.solve_lop`) and stay what they are.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult, certify
from schedlab.solvers.sojourn.exact_lpcut import LpcutOptions, lpcut_factory, lpcut_stats
from schedlab.solvers.sojourn.lop import is_integral, solve_lop_matrix
from schedlab.solvers.validate import Deadline, check_alloc

MAX_N = 5000  # a file asking for more rows than this is refused (memory: n^2 pair tables)


@dataclass(frozen=True)
class LopMatrix:
    """One benchmark matrix: its name (the file name) and entries (n x n floats)."""

    name: str
    M: np.ndarray

    @property
    def n(self) -> int:
        return int(self.M.shape[0])


def parse_lop_text(text: str, name: str = "<text>") -> np.ndarray:
    """The matrix of a linear-ordering file's text; InvalidInput names the line and token."""
    tokens = [(ln, tok) for ln, line in enumerate(text.splitlines(), 1) for tok in line.split()]
    if not tokens:
        raise InvalidInput(f"{name}: empty file; the first token must be the size n")
    ln, first = tokens[0]
    try:
        n = int(first)
    except ValueError:
        n = 0
    if n < 1 or n > MAX_N:
        raise InvalidInput(
            f"{name}: line {ln}, token 1 {first!r}: the first token must be the size n, an "
            f"integer in 1..{MAX_N}"
        )
    check_alloc(64.0 * n * n, f"the pair tables of a {n} x {n} matrix ({name})")
    body = tokens[1:]
    if len(body) != n * n:
        where = f"the file ends at line {body[-1][0] if body else ln}"
        if len(body) > n * n:
            where = f"line {body[n * n][0]} token {body[n * n][1]!r} is one too many"
        raise InvalidInput(
            f"{name}: n = {n} needs {n * n} entries after it, found {len(body)} ({where})"
        )
    M = np.empty(n * n)
    for k, (ln, tok) in enumerate(body):
        try:
            M[k] = float(tok)
        except ValueError:
            M[k] = math.nan
        if not math.isfinite(M[k]):
            raise InvalidInput(
                f"{name}: line {ln}, token {tok!r} (entry row {k // n + 1}, column "
                f"{k % n + 1}): not a finite number"
            )
    return M.reshape(n, n)


def read_lop_file(path: str | Path) -> LopMatrix:
    """Read one linear-ordering file (first token n, then n x n entries row by row)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{p}: cannot read a text matrix ({exc})") from exc
    return LopMatrix(p.name, parse_lop_text(text, str(p)))


def read_lop_dir(directory: str | Path) -> list[LopMatrix]:
    """Every regular file of `directory` (sorted by name, hidden files skipped), read."""
    d = Path(directory)
    if not d.is_dir():
        raise InvalidInput(f"--lop-dir {d}: not a directory")
    files = sorted(f for f in d.iterdir() if f.is_file() and not f.name.startswith("."))
    if not files:
        raise InvalidInput(f"--lop-dir {d}: no files in it")
    return [read_lop_file(f) for f in files]


def write_lop_text(M: np.ndarray) -> str:
    """The file text of matrix M (integers printed as such)."""
    n = M.shape[0]
    fmt = (lambda x: str(int(x))) if np.all(M == np.round(M)) else repr
    rows = [" ".join(fmt(float(x)) for x in row) for row in M]
    return f"{n}\n" + "\n".join(rows) + "\n"


def dense_io_matrix(
    n: int,
    seed: int,
    *,
    size_sigma: float = 1.5,
    noise_sigma: float = 1.0,
    back_max: float = 0.6,
    zero_share: float = 0.1,
) -> np.ndarray:
    """A dense input-output-like matrix: nearly triangular, heavy-tailed, mostly non-zero.

    Sector sizes s_i ~ lognormal(0, size_sigma); entry (i, j) = sqrt(s_i s_j) times a
    lognormal(0, noise_sigma) factor; in a hidden order, entries from a later to an earlier
    sector are damped by Uniform(0, back_max) (so the optimum leaves most mass above the
    diagonal); a `zero_share` of entries is zero; scaled by 100 and rounded to integers (as the
    public tables are); zero diagonal. Same seed, same matrix.
    """
    if n < 1:
        raise InvalidInput(f"n: must be at least 1 (got {n})")
    rng = np.random.default_rng(seed)
    size = rng.lognormal(0.0, size_sigma, n)
    base = np.sqrt(np.outer(size, size)) * rng.lognormal(0.0, noise_sigma, (n, n))
    pos = rng.permutation(n)
    forward = pos[:, None] < pos[None, :]
    M = np.where(forward, base, base * rng.uniform(0.0, back_max, (n, n)))
    M[rng.random((n, n)) < zero_share] = 0.0
    M = np.round(100.0 * M)
    np.fill_diagonal(M, 0.0)
    return M


def core_costs(M: np.ndarray) -> tuple[np.ndarray, float]:
    """(W, shift): the core's costs W[a, b] = M[b, a] + shift >= 0 off the diagonal, where
    shift = max(0, -min off-diagonal entry); every order's core cost grows by shift C(n, 2)."""
    n = M.shape[0]
    W = np.array(M.T, dtype=float)
    np.fill_diagonal(W, 0.0)
    off = W[~np.eye(n, dtype=bool)]
    shift = max(0.0, -float(off.min())) if off.size else 0.0
    if shift > 0:
        W += shift
        np.fill_diagonal(W, 0.0)
    return W, shift


def above_diagonal(M: np.ndarray, order: list[int]) -> float:
    """The benchmark's objective: sum of the entries above the diagonal after permuting."""
    o = np.asarray(order, dtype=np.int64)
    return float(np.triu(M[np.ix_(o, o)], 1).sum())


def solve_lop_benchmark(
    M: np.ndarray,
    *,
    time_limit: float | None = None,
    seed: int | None = 0,
    options: LpcutOptions | None = None,
) -> SolveResult[list[int]]:
    """lpcut on a benchmark matrix: the order (row indices), the largest above-diagonal sum
    found (`value`) and a proven upper bound (`bound`), status by `certify` on the core."""
    opts = options or LpcutOptions()
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit)
    n = M.shape[0]
    W, shift = core_costs(M)
    integral = is_integral(W)
    factory = lpcut_factory(opts, seed, integral=integral)
    core = solve_lop_matrix(
        W,
        factory,
        deadline=deadline,
        triangles="separate",
        decompose=opts.decompose,
        warm_start=opts.warm_start,
        extra_stats=lpcut_stats(opts),
        integral=integral,
    )
    cert = certify(core.cost, core.bound, "min")
    total = float(M.sum() - np.trace(M))
    pair_shift = shift * n * (n - 1) / 2
    stats: dict[str, Any] = {**core.stats, **cert.stats, "all_blocks_closed": bool(core.proven)}
    stats["core_cost"], stats["core_bound"] = cert.value, cert.bound
    value = above_diagonal(M, core.order)  # = total - (core cost - pair_shift), exactly
    bound = None if cert.bound is None else total - (cert.bound - pair_shift)
    res = SolveResult(cert.status, value, bound, core.order, "lpcut", 0.0, stats)
    return replace(res, runtime_s=time.perf_counter() - t0)
