"""Benchmark: how far the six-node Möbius-ladder inequalities raise the triangle LP of a
linear-ordering block (measured here; lpcut does not use them).

Per instance, a linear-ordering matrix, or a PACE graph's largest block with a free pair built
as `lop_graph.solve_graph` builds it (twins merged, forced pairs fixed): (1) the triangle LP to
completion by HiGHS's dual simplex, every violated 3-cycle inequality added each round
(`exact_lpcut.violated_cycles`, at most `cuts_per_round(n)`) until none is; (2) then up to
ROUNDS rounds that add the ladders violated at the simplex vertex
(`kernels.ladders.violated_ladders`, at most LADDER_CUTS a round) and the triangles violated
there, until neither is. The values are HiGHS's LP objective in the block's cost (twins' inner
crossings included), not certified bounds (lpcut's certificate is
`exact_lpcut.lagrangian_value`). `best order` is the cost of the best order an iterated
insertion search finds from the final LP's rounded order (an upper bound on the optimum), and
`gap closed` the share of best order - triangle LP that the ladders close. Run:
`python -m schedlab.experiments.bench bench_ladders [--quick] [--lop-dir DIR]`: seeded matrices
(DENSE_IO, UNIFORM; the crossing blocks of `lop_graph.random_ocr_graph` had integral triangle
LPs at the sizes tried), or every PACE 2024 `.gr` file in DIR.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.errors import InvalidInput

ROUNDS = 10  # ladder rounds at most
MAX_TRIANGLE_ROUNDS = 300  # triangle rounds at most, so that a hard LP ends
LADDER_CUTS = 3000  # ladders added per round at most, the most violated
LADDER_TOP = 1000  # sides tried two by two per middle arc (`violated_ladders`' top): at the
# simplex vertex of PACE #68's LP where lpcut's rounds stall, 1,782 cuts in 24 s (300: 386)
LADDER_PER_CENTER = 4
SEARCH_KICKS = 2000  # kicks of the iterated insertion search for the best order
DENSE_IO = ((60, 2),)  # (n, seed) of `lop_matrix.dense_io_matrix`: its triangle LP is 127.25
# below the optimum, which the ladders reach (tests/experiments/test_bench_ladders.py)
UNIFORM = ((40, 3), (60, 4))  # (n, seed) of `uniform_matrix`


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class CutLp:
    """The LP of one block: x_ab (a < b) in [0, 1], forced pairs fixed, rows given by arcs."""

    def __init__(self, W: np.ndarray, forced: np.ndarray) -> None:
        import highspy

        self.hs = highspy
        self.n = n = W.shape[0]
        self.iu = np.triu_indices(n, 1)
        self.col = np.full((n, n), -1, dtype=np.int64)
        self.col[self.iu] = np.arange(len(self.iu[0]))
        self.const = float(np.tril(W, -1).sum())
        h = self.h = highspy.Highs()
        for k, v in (("output_flag", False), ("threads", 1), ("solver", "simplex")):
            h.setOptionValue(k, v)
        P = len(self.iu[0])
        a, b = self.iu
        fixed = np.where(forced[a, b], 1.0, np.where(forced[b, a], 0.0, -1.0))
        lo = np.where(fixed >= 0, fixed, 0.0)
        hi = np.where(fixed >= 0, fixed, 1.0)
        h.addVars(P, lo, hi)
        h.changeColsCost(P, np.arange(P, dtype=np.int32), (W - W.T)[self.iu])
        self.rows = {"triangles": 0, "ladders": 0}

    def add(self, arcs: np.ndarray, rhs: float, family: str) -> None:
        """Rows sum over its arcs (tail before head) of y <= rhs, y_uv = x_uv or 1 - x_vu."""
        if not len(arcs):
            return
        t, hd = arcs[:, :, 0], arcs[:, :, 1]
        fwd = t < hd
        cols = self.col[np.minimum(t, hd), np.maximum(t, hd)]
        k, w = cols.shape
        upper = rhs - (~fwd).sum(axis=1)
        self.h.addRows(k, np.full(k, -self.hs.kHighsInf), upper.astype(float), k * w,
                       np.arange(0, k * w, w, dtype=np.int32), cols.ravel().astype(np.int32),
                       np.where(fwd, 1.0, -1.0).ravel())  # fmt: skip
        self.rows[family] += k

    def solve(self) -> tuple[float, np.ndarray]:
        """(the LP value in the block's cost, its tournament Y[u, v] = share of u before v)."""
        self.h.run()
        if self.h.getModelStatus() != self.hs.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS: {self.h.modelStatusToString(self.h.getModelStatus())}")
        x = np.asarray(self.h.getSolution().col_value, dtype=float)
        Y = np.zeros((self.n, self.n))
        Y[self.iu] = x
        Y.T[self.iu] = 1.0 - x
        np.fill_diagonal(Y, 0.0)
        return self.const + float(self.h.getInfo().objective_function_value), Y


def triangle_arcs(Y: np.ndarray) -> np.ndarray:
    """The arcs (k x 3 x 2) of the 3-cycles violated on Y (`exact_lpcut.violated_cycles`)."""
    from schedlab.solvers.sojourn.exact_lpcut import cuts_per_round, violated_cycles

    cyc = violated_cycles(Y, cuts_per_round(Y.shape[0]))
    C = np.asarray([t if k == 1 else (t[0], t[2], t[1]) for t, k in cyc], dtype=np.int64)
    C = C.reshape(-1, 3)
    return np.stack([C, C[:, [1, 2, 0]]], axis=2)


def add_violated(
    lp: CutLp, Y: np.ndarray, clock: dict[str, float], *, ladders: bool, add: bool = True
) -> bool:
    """Whether a 3-cycle (or, with `ladders`, a ladder) is violated at Y; with `add`, its rows
    join the LP. The separation's seconds go to clock["separate"]."""
    from schedlab.solvers.kernels.ladders import LADDER_RHS, ladder_arcs, violated_ladders

    t = time.perf_counter()
    tri = triangle_arcs(Y)
    lad = np.zeros((0, 11, 2), dtype=np.int64)
    if ladders:
        nodes, rev, _ = violated_ladders(Y, top=LADDER_TOP, max_cuts=LADDER_CUTS,
                                         per_center=LADDER_PER_CENTER)  # fmt: skip
        lad = ladder_arcs(nodes, rev)
    clock["separate"] += time.perf_counter() - t
    if add:
        lp.add(tri, 2.0, "triangles")
        lp.add(lad, LADDER_RHS, "ladders")
    return bool(len(tri) or len(lad))


@dataclass
class LadderRun:
    """One block's measurement (see the module's docstring)."""

    name: str
    n: int
    free_pairs: int
    triangle_lp: float
    ladder_lp: float
    best: float
    triangle_rows: int
    ladder_rows: int
    ladder_rounds: int
    separate_s: float
    lp_s: float
    triangle_complete: bool = True  # no 3-cycle violated at the triangle LP (else "(open)")

    def row(self) -> dict[str, Any]:
        gap = self.best - self.triangle_lp
        closed = (self.ladder_lp - self.triangle_lp) / gap if gap > 1e-9 else math.nan
        triangle = f"{self.triangle_lp:,.2f}" + ("" if self.triangle_complete else " (open)")
        return {
            "instance": self.name,
            "block n": self.n,
            "free pairs": self.free_pairs,
            "triangle LP": triangle,
            "with ladders": f"{self.ladder_lp:,.2f}",
            "best order": f"{self.best:,.0f}",
            "gap closed": "-" if math.isnan(closed) else f"{100 * closed:.0f}%",
            "triangle rows": self.triangle_rows,
            "ladder rows": self.ladder_rows,
            "ladder rounds": self.ladder_rounds,
            "separation s": f"{self.separate_s:.1f}",
            "LP s": f"{self.lp_s:.1f}",
        }


def largest_block(g: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """(W, forced, inner) of g's largest block with a free pair, twins merged."""
    from schedlab.solvers.sojourn.lop_graph import (
        SparseCrossings,
        block_matrix,
        blocks,
        merge_twins,
        twin_classes,
    )

    sc = SparseCrossings.of(g)
    bl = blocks(sc)
    loc = np.full(g.n1, -1, dtype=np.int64)
    for bi, b in enumerate(bl):
        loc[b] = bi
    inside = loc[sc.u] == loc[sc.v]  # free pairs inside a block (`solve_graph`'s rule)
    free_in = np.bincount(loc[sc.u[inside]], minlength=len(bl))
    free = [b for bi, b in enumerate(bl) if free_in[bi] > 0]
    if not free:
        raise InvalidInput(f"{g.name}: no block has a free pair (nothing for an LP to do)")
    blk = max(free, key=len)
    Wb, _ = block_matrix(sc, blk)
    tm = merge_twins(Wb, twin_classes(g, blk))
    return tm.W, tm.forced, tm.inner


def measure(name: str, W: np.ndarray, forced: np.ndarray, inner: float = 0.0,
            rounds: int = ROUNDS, log: Callable[[str], None] = _stderr) -> LadderRun:  # fmt: skip
    """The triangle LP of the block W (forced pairs fixed; `inner` added to every value),
    then `rounds` ladder rounds, each solved (module docstring); `log` gets a line per LP.
    Triangle rounds stop at MAX_TRIANGLE_ROUNDS: then no ladder round runs and the run says
    the triangle LP is not complete."""
    from schedlab.solvers.kernels.order_search import iterated_search, kicks
    from schedlab.solvers.sojourn.lop import lop_cost, rounded_order

    lp = CutLp(W, forced)
    clock = {"separate": 0.0, "lp": 0.0}

    def solve(phase: str, r: int) -> tuple[float, np.ndarray]:
        t = time.perf_counter()
        value, Y = lp.solve()
        clock["lp"] += time.perf_counter() - t
        log(f"[bench_ladders] {name}: {phase} round {r}, LP {value + inner:,.3f}, "
            f"{sum(lp.rows.values()):,} rows")  # fmt: skip
        return value, Y

    value, Y = solve("triangles", 0)
    complete, done = False, 0
    for r in range(1, MAX_TRIANGLE_ROUNDS + 1):
        if not add_violated(lp, Y, clock, ladders=False, add=r < MAX_TRIANGLE_ROUNDS):
            complete = True
            break
        if r == MAX_TRIANGLE_ROUNDS:
            break  # the cap: the LP solved last is the one reported
        value, Y = solve("triangles", r)
    triangle_value, triangle_rows = value, lp.rows["triangles"]
    while complete and done < rounds and add_violated(lp, Y, clock, ladders=True):
        done += 1
        value, Y = solve("ladders", done)
    order = rounded_order(W, Y)
    best = iterated_search(W, order, kicks(len(order), SEARCH_KICKS, 10, 0))
    return LadderRun(name, W.shape[0], int(np.triu(~forced & ~forced.T, 1).sum()),
                     triangle_value + inner, value + inner, lop_cost(W, best) + inner,
                     triangle_rows, lp.rows["ladders"], done, clock["separate"], clock["lp"],
                     complete)  # fmt: skip


def uniform_matrix(n: int, seed: int) -> np.ndarray:
    """Costs drawn uniformly from 0..99 (zero diagonal): random linear-ordering instances,
    whose triangle LP often has a gap (seeds 0-5: 2, 4 and 3 of them at n = 20, 25, 30)."""
    W = np.random.default_rng(seed).integers(0, 100, (n, n)).astype(float)
    np.fill_diagonal(W, 0.0)
    return W


Instance = tuple[str, np.ndarray, np.ndarray, float]  # name, W, forced, inner


def instances(quick: bool, lop_dir: str | None) -> Iterator[Instance]:
    """The largest block of every PACE `.gr` file in lop_dir (each read when its turn comes),
    else seeded matrices. A folder without a `.gr` file is refused before any is measured."""
    from schedlab.solvers.sojourn.lop_graph import read_ocr_file
    from schedlab.solvers.sojourn.lop_matrix import dense_io_matrix

    if lop_dir is not None:
        files = sorted(Path(lop_dir).glob("*.gr"), key=lambda p: (len(p.stem), p.stem))
        if not files:
            raise InvalidInput(f"--lop-dir: no .gr file in {lop_dir}")
        return ((p.name, *largest_block(read_ocr_file(p))) for p in files)
    made = [(f"dense io n={n} seed={s}", dense_io_matrix(n, s)) for n, s in DENSE_IO]
    if not quick:
        made += [(f"uniform n={n} seed={s}", uniform_matrix(n, s)) for n, s in UNIFORM]
    return iter([(name, W, np.zeros(W.shape, dtype=bool), 0.0) for name, W in made])


@register_benchmark("bench_ladders")
def run(quick: bool = False, lop_dir: str | None = None) -> None:
    """Print the table of `measure` over `instances(quick, lop_dir)`, a row as each ends."""
    rows: list[list[Any]] = []
    for name, W, forced, inner in instances(quick, lop_dir):
        row = measure(name, W, forced, inner, rounds=2 if quick else ROUNDS).row()
        rows.append(list(row.values()))
        print(format_table(list(row), rows[-1:]), flush=True)
    if rows:
        print("\n" + format_table(list(row), rows), flush=True)
