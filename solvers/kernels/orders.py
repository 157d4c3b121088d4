"""Candidate orders for the kernels: streaming in chunks, and validation with clear messages.

`orders` may be a 2-D integer array (K, n) of job positions, an iterable of such arrays (one per
chunk, e.g. a generator), or a callable `make(i)` returning chunk i, or None when there are no
more. Chunks are handed to a kernel one at a time, so K x n never has to be in memory at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

from schedlab.solvers.errors import InvalidInput

OrderSource = np.ndarray | Iterable[np.ndarray] | Callable[[int], np.ndarray | None]
DEFAULT_CHUNK = 1 << 16


def _check_array(arr: np.ndarray, n: int, where: str) -> None:
    """Raise InvalidInput unless `arr` is a 2-D integer array with n columns."""
    if arr.ndim != 2:
        hint = "; wrap a single order as orders[None, :]" if arr.ndim == 1 else ""
        raise InvalidInput(
            f"orders{where}: must be a 2-D integer array (K, {n}) of job positions; "
            f"got shape {arr.shape}{hint}"
        )
    if arr.shape[1] != n:
        raise InvalidInput(
            f"orders{where}: each order must list all {n} jobs; got rows of length {arr.shape[1]}"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise InvalidInput(
            f"orders{where}: dtype must be an integer type (job positions 0..{n - 1}); "
            f"got {arr.dtype}"
        )


def _as_chunk(chunk: object, n: int, where: str) -> np.ndarray:
    """Check one chunk's dims and dtype; return it as C-contiguous int64."""
    arr = np.asarray(chunk)
    _check_array(arr, n, where)
    return np.ascontiguousarray(arr, dtype=np.int64)


def iter_chunks(
    orders: OrderSource, n: int, chunk_size: int = DEFAULT_CHUNK
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first row, chunk) with each chunk C-contiguous int64 (rows x n).

    An array-like (numpy array, list of lists) is one (K, n) block; any other iterable is a
    stream of chunks; a callable is called with 0, 1, 2, ... until it returns None. Raises
    InvalidInput for a wrong shape or dtype, and when no order at all is given (K = 0).
    Permutation checks are separate (`numpy_row_problems`, and the backends' fast checks).
    """
    if chunk_size < 1:
        raise InvalidInput(f"chunk_size: must be a positive number of orders (got {chunk_size})")
    start = 0
    if isinstance(orders, np.ndarray | list | tuple):
        arr = np.asarray(orders)
        _check_array(arr, n, "")
        for s in range(0, arr.shape[0], chunk_size):
            yield s, np.ascontiguousarray(arr[s : s + chunk_size], dtype=np.int64)
        start = arr.shape[0]
    elif callable(orders):
        i = 0
        while True:
            chunk = orders(i)
            if chunk is None:
                break
            c = _as_chunk(chunk, n, f" chunk {i}")
            for s in range(0, len(c), chunk_size):
                yield start + s, c[s : s + chunk_size]
            start += len(c)
            i += 1
    elif isinstance(orders, Iterable):
        for i, chunk in enumerate(orders):
            c = _as_chunk(chunk, n, f" chunk {i}")
            for s in range(0, len(c), chunk_size):
                yield start + s, c[s : s + chunk_size]
            start += len(c)
    else:
        raise InvalidInput(
            f"orders: expected an integer array (K, {n}), an iterable of such chunks or a "
            f"callable returning chunk i; got {type(orders).__name__}"
        )
    if start == 0:
        raise InvalidInput("orders: no orders given (K = 0); pass at least one order")


def describe_row(row: np.ndarray, n: int) -> str:
    """What is wrong with one order (empty string if it is a permutation of 0..n-1)."""
    bad = sorted({int(j) for j in row if j < 0 or j >= n})
    if bad:
        return f"job positions {bad[:5]} outside 0..{n - 1}"
    counts = np.bincount(row, minlength=n)
    rep = np.flatnonzero(counts > 1).tolist()
    miss = np.flatnonzero(counts == 0).tolist()
    if rep or miss:
        return f"not a permutation of 0..{n - 1}: repeats {rep[:5]}, misses {miss[:5]}"
    return ""


def numpy_row_problems(chunk: np.ndarray, n: int) -> np.ndarray:
    """Boolean mask of rows that are not permutations of 0..n-1 (vectorized, no loop over K)."""
    out_of_range = (chunk < 0) | (chunk >= n)
    bad = out_of_range.any(axis=1)
    clipped = np.where(out_of_range, 0, chunk)
    seen = np.zeros(chunk.shape, dtype=bool)
    np.put_along_axis(seen, clipped, True, axis=1)
    return np.asarray(bad | ~seen.all(axis=1))


def raise_for_bad_rows(chunk: np.ndarray, bad: np.ndarray, n: int, start: int) -> None:
    """Raise InvalidInput naming the first bad row (its global index) if `bad` has any."""
    rows = np.flatnonzero(bad)
    if len(rows) == 0:
        return
    r = int(rows[0])
    raise InvalidInput(
        f"orders: row {start + r} is invalid ({describe_row(chunk[r], n)}); "
        f"{len(rows)} bad row(s) in rows {start}..{start + len(chunk) - 1}; each row must list "
        f"every job position 0..{n - 1} exactly once"
    )
