"""Linear-ordering benchmark matrices (LOLIB): the problem, reader, generator and solver.

The public linear-ordering benchmarks (LOLIB, xLOLIB, the input-output tables) store a matrix as
text: the first token is n, then the n x n entries row by row (any whitespace). Their problem is
a maximization: permute rows and columns alike so that the sum of the entries above the
diagonal is largest. The core (`core.solve_lop_matrix`) minimizes sum_{a before b} W[a, b]; with
W[a, b] = M[b, a] (the cost of a before b is the entry (b, a)) an order's core cost is the sum
of M below the diagonal, so value_max = total - cost and an upper bound = total - lower bound,
where total is the sum of M off the diagonal. Entries may be negative: W is shifted by a
constant per pair (exact for every order) so that W >= 0, which the core's block slacks need.
The status is `certify`'s with `PROOF_TOL` on the converted (minimization) problem.

A `LopMatrix` is a problem of `solve` (subject "lop", kind "matrix", method "lpcut":
`lop.methods`); the sojourn objectives A and B build their W from an instance
(`solvers.sojourn.lop.solve_lop`) and stay what they are.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, NoReturn

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.lpcut.options import LpcutOptions, lpcut_stats
from schedlab.solvers.lop.text import (
    TOKEN,
    excerpt,
    line_at,
    pieces,
    read_count,
    real_or_none,
    real_rule,
    reals_of,
    token_at,
)
from schedlab.solvers.result import SolveResult, certify
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc, read_text_file

MAX_N = 5000  # a file asking for more rows than this is refused (memory: n^2 pair tables)
ENTRY_SUM_LIMIT = 2.0**50  # |entries| summed (plus the shift of negatives) stay within this:
# lpcut's sums are then exact for integer entries (`core.is_integral`'s bound) and finite


@dataclass(frozen=True)
class LopMatrix:
    """One benchmark matrix: its name (the file name) and entries (n x n floats). A problem of
    `solve` (subject "lop", kind "matrix")."""

    subject: ClassVar[str] = "lop"

    name: str
    M: np.ndarray

    @property
    def kind(self) -> str:
        """The problem kind methods declare (`solve`): a dense matrix."""
        return "matrix"

    @property
    def n(self) -> int:
        return int(self.M.shape[0])


def parse_lop_text(text: str, name: str = "<text>", deadline: Deadline = NO_DEADLINE) -> np.ndarray:
    """The matrix of a linear-ordering file's text; InvalidInput names the line and token.

    n is read first and the memory of the n x n pair tables checked before anything else is
    allocated; the entries are converted a piece at a time straight into the matrix (one too
    many is refused at its token), each an ASCII decimal within `ENTRY_SUM_LIMIT`
    (`lop_text.real_or_none`), and their sizes together within it too (`check_entry_sums`);
    `deadline` is looked at between pieces."""
    first = TOKEN.search(text)
    if first is None:
        raise InvalidInput(
            f"{name}: empty file; a matrix starts with its size n, a PACE graph with its "
            "problem line 'p ocr n0 n1 m'"
        )
    ln, tok, body = line_at(text, first.start()), first.group(), first.end()
    try:
        n = read_count(tok, "n", 1, MAX_N)
    except InvalidInput:
        raise InvalidInput(
            f"{name}: line {ln}, token 1 {excerpt(tok)}: the first token must be the size n, "
            f"an integer in 1..{MAX_N}"
        ) from None
    check_alloc(64.0 * n * n, f"the pair tables of a {n} x {n} matrix ({name})")
    M = np.empty(n * n)
    k = 0
    for pos, piece in pieces(text, body, deadline, name):
        x = reals_of(piece, ENTRY_SUM_LIMIT)
        if x is None or k + len(x) > n * n:
            _refuse_piece(text, pos, piece, k, n, name)
        assert x is not None
        M[k : k + len(x)] = x
        k += len(x)
    if k != n * n:
        end = line_at(text, len(text.rstrip()))
        raise InvalidInput(
            f"{name}: n = {n} needs {n * n} entries after it, found {k} (the file ends at "
            f"line {end})"
        )
    square = M.reshape(n, n)
    check_entry_sums(square, lambda i: token_at(text, body, i)[0], name)
    return square


def _refuse_piece(text: str, pos: int, piece: str, k: int, n: int, name: str) -> NoReturn:
    """The refusal for the first bad token of `piece` (entries k on): not a number in range,
    or one too many."""
    for i, mt in enumerate(TOKEN.finditer(piece)):
        ln, tok, e = line_at(text, pos + mt.start()), mt.group(), k + i
        if e == n * n:
            raise InvalidInput(
                f"{name}: n = {n} needs {n * n} entries after it, found more (line {ln} token "
                f"{excerpt(tok)} is one too many)"
            )
        if real_or_none(tok, ENTRY_SUM_LIMIT) is None:
            raise InvalidInput(
                f"{name}: line {ln}, token {excerpt(tok)} (entry row {e // n + 1}, column "
                f"{e % n + 1}): not {real_rule(ENTRY_SUM_LIMIT)}"
            )
    raise AssertionError("a piece refused with no bad token")


def check_entry_sums(M: np.ndarray, line_of: Callable[[int], int], name: str) -> None:
    """Refuse a matrix whose sums lpcut forms could leave the exact range: the sum of all
    |entries| plus n (n - 1) times the shift of the negative entries (`core_costs`) must stay
    within ENTRY_SUM_LIMIT, so every order's value, every bound and the core costs' totals are
    exact for integer entries (`core.is_integral`) and finite for any. `line_of(k)`: the line of
    entry k (row-major), looked up for the message only."""
    n = M.shape[0]
    run = np.cumsum(np.abs(M).ravel())
    over = np.nonzero(run >= ENTRY_SUM_LIMIT)[0]
    if len(over):
        k = int(over[0])
        raise InvalidInput(
            f"{name}: line {line_of(k)}, entry row {k // n + 1}, column {k % n + 1}: "
            f"the absolute values of the entries sum past {ENTRY_SUM_LIMIT:.17g} here; "
            f"their sum must stay below {ENTRY_SUM_LIMIT:.17g} (2^50) so that every sum "
            "the solver forms is exact; scale the matrix down"
        )
    off = np.where(np.eye(n, dtype=bool), np.inf, M)
    k = int(np.argmin(off))
    shift = max(0.0, -float(off.ravel()[k])) if n > 1 else 0.0
    total = float(run[-1]) + n * (n - 1) * shift
    if total >= ENTRY_SUM_LIMIT:
        raise InvalidInput(
            f"{name}: line {line_of(k)}, entry row {k // n + 1}, column "
            f"{k % n + 1}: the smallest entry {-shift:.17g} shifts all {n * (n - 1)} "
            f"off-diagonal entries by {shift:.17g} (the solver needs costs >= 0): the sum "
            f"of |entries| plus that, {total:.6g}, must stay below {ENTRY_SUM_LIMIT:.17g} "
            "(2^50) so that every sum the solver forms is exact; scale the matrix down"
        )


def read_lop_file(path: str | Path, deadline: Deadline = NO_DEADLINE) -> LopMatrix:
    """Read one linear-ordering file (first token n, then n x n entries row by row)."""
    p = Path(path)
    text = read_text_file(p, "a linear-ordering matrix")
    return LopMatrix(p.name, parse_lop_text(text, str(p), deadline))


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
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = 0,
    options: LpcutOptions | None = None,
) -> SolveResult[list[int]]:
    """lpcut on a benchmark matrix: the order (row indices), the largest above-diagonal sum
    found (`value`) and a proven upper bound (`bound`), status by `certify` on the core.
    `deadline`: the caller's (`solve`'s, which reading counted against too); if it has
    passed already, the rows in file order and the pairwise bound (`_stopped`). lpcut
    (numba, HiGHS) is imported here, not with the module."""
    from schedlab.solvers.lop.core import is_integral, solve_lop_matrix
    from schedlab.solvers.lop.lpcut.model import lpcut_factory

    opts = options or LpcutOptions()
    t0 = time.perf_counter()
    if deadline.passed():
        return _stopped(M, t0, opts)
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
        warm_start=opts.hint,
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


def _stopped(M: np.ndarray, t0: float, opts: LpcutOptions) -> SolveResult[list[int]]:
    """The answer when the time limit ran out before the core started: the rows in file
    order and the sum over pairs of their larger entry, an upper bound on every order."""
    order = list(range(M.shape[0]))
    bound = float(np.triu(np.maximum(M, M.T), 1).sum())
    cert = certify(above_diagonal(M, order), bound, "max")
    stats = {**lpcut_stats(opts), **cert.stats, "stopped_while_preparing": True,
             "all_blocks_closed": False}  # fmt: skip
    res = SolveResult(cert.status, cert.value, cert.bound, order, "lpcut", 0.0, stats)
    return replace(res, runtime_s=time.perf_counter() - t0)
