"""`lpcut`: exact A/B by HiGHS with triangle cuts separated on the LP relaxation first.

Routes (option `route`, per preference block): "packing" is step 0 then steps 1-3; "lp" is
steps 1-3; "full" writes every triangle row and goes to the MIP (step 3); "auto" (the default)
picks per block in `HighsCutModel.pick_route` from the block's starting order: the packing when
its cost exceeds the pairwise minimum by at most PACKING_MAX_DEFICIT of it (the loose packing
masters then reach the closing slack), else the LP rounds; LP rounds that stall
(LP_STALL_ROUNDS) hand over to the MIP. The LP rounds run by warm-started dual simplex on blocks
whose deficit share exceeds SIMPLEX_MIN_DEFICIT, else by the interior point (`pick_lp_solver`).
The route each block took is in `stats["routes"]`.
Whatever the route, a block's bound is the Lagrangian or packing bound computed here from
duals (or HiGHS's MIP dual bound), and the status is `certify`'s.

0. (route packing) The same LP's dual as a packing of preference cycles, by
   column generation from the incumbent, first improved by an iterated insertion search over
   rotations of it (`search_start`; `solvers.sojourn.cyclepack`, theory/sojourn/
   packing.py): a block whose packing bound meets the best order is proven without
   triangle rows; otherwise its bound and best order carry over to step 1 with the time left.

Per block (see `solvers.sojourn.lop`): variables x_ab in [0, 1] (a < b), objective
sum (W[a,b] - W[b,a]) x_ab / s + const with s = max |W[a,b] - W[b,a]| (so HiGHS's absolute
tolerances act on numbers of order 1, not 1e-5), and triangle rows for chosen triples.
1. LP rounds (interior point without crossover, each LP from scratch; or dual simplex from the
   previous round's basis, `pick_lp_solver`): solve the LP, offer its
   rounded order (jobs by LP 'before' mass, then insertion descent) as the incumbent, and add
   violated triangle rows among those tight at the incumbent order (a before b before c), up to
   PER_PAIR per pair the LP reverses. By complementary slackness only those rows can carry the
   dual certificate of an optimal incumbent; when none is violated, every violated triangle is
   separated. Rows slack at the LP optimum are deleted (until the rounds stall). Every row is
   a valid inequality of the ordering polytope, so no integer order is cut off.
2. A sound bound from the LP duals whatever HiGHS's tolerances: for y >= 0 on rows A x <= r
   and 0 <= x <= 1, d x >= sum_j min(0, (d + A^T y)_j) - y r (weak duality; theory/sojourn/
   cycles.py has the pair structure, `lagrangian_value` the arithmetic and a rigorous margin
   for its floating-point error). The block is
   proven when this bound is within the block's slack of its incumbent, with no MIP: its share
   of nine tenths of the proof tolerance (`result.PROOF_TOL`: the status rule of `certify`) of
   a floor under the whole value, B's constant term included (`lop.block_slacks`).
3. Otherwise the MIP on the cut model, started from the best order, with an absolute gap below
   the proof tolerance; lazy rounds as in `lop.solve_block` if the integer solution still has a
   3-cycle. Every HiGHS run gets only the time left (its time limit and a wall-clock interrupt
   callback); a MIP that its root LP alone would push past the limit is skipped.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.order_search import iterated_search, kicks, multistart
from schedlab.solvers.kit.forked import Report, forking_available, run_forked
from schedlab.solvers.kit.mip import interrupt_after
from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.cyclepack import CyclePacker
from schedlab.solvers.sojourn.lop import (
    INTEGER_SLACK,
    ModelFactory,
    RoundResult,
    Triple,
    block_slacks,
    lop_cost,
    pairwise_min_bound,
    refuse_non_lop,
    rounded_order,
    solve_lop,
)
from schedlab.solvers.sojourn.lpcut_options import (  # re-exported
    ROUTES,
    LpcutOptions,
    MasterLp,
    Route,
    lpcut_stats,
)
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING
from schedlab.solvers.sojourn.problem import SUBJECT, SojournProblem
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc, solver_seed

VIOL_TOL = 1e-7  # an LP triangle counts as violated above this (scaled units)
MAX_LP_ROUNDS = 200
LP_TIME_SHARE = 0.95  # at most this share of the block's time goes to LP rounds
PER_PAIR = 12  # cuts per pair that the LP reverses against the incumbent, per round (n = 200:
# 2 -> 13 rounds, 12 -> 5; fewer, larger interior-point LPs are faster)
PURGE_SLACK = 0.1  # rows slack by more at the LP optimum are deleted (re-added if violated)
STALL_SEARCH_CHUNK = 1000  # kicks per call of the stall search (`stall_search`): its deadline
# and closing checks come between calls (n = 500: about 3 s a call)
MIP_ROOT_FACTOR = 2.0  # a MIP needs at least this many LP-round times to be worth starting
LP_STALL_ROUNDS = 3  # LP rounds whose own Lagrangian bound gained less than the closing slack
# over this many rounds stop (heavy-tailed costs: the interior point's duals cannot get within
# the slack, and purged rows come back round after round); the MIP takes over
PACKING_MAX_DEFICIT = 1e-4  # auto: the packing when the incumbent's cost exceeds the pairwise
# minimum by at most this share of it: PDLP's masters (FINE_TOL at the latest) then meet the
# closing slack (`lop.block_slacks`); above it they cannot (dense matrices:
# 0.2-1, the packing ran 100 rounds), below it (cyclic family: 1e-6-6e-5) it is the fastest
SIMPLEX_MIN_DEFICIT = PACKING_MAX_DEFICIT  # LP rounds by dual simplex above this deficit share
# (`pick_lp_solver`), by the interior point below it
LpSolver = Literal["simplex", "ipm"]
IPM_SWITCH_FLOOR_S = 0.3  # a dual simplex round shorter than this never switches (`_simplex_cap`)
IPM_DEFAULT_OPT_TOL = 1e-8  # HiGHS's own ipm_optimality_tolerance, for the runs not tuned
SEARCH_STARTS = 8  # rotations of the starting order searched before the packing (`search_start`)
SEARCH_KICKS = 100  # kicks (a segment moved, then descent) per rotation
SEARCH_SEGMENT = 30  # the longest segment a kick moves
START_KICK_LENGTH = 10  # the longest segment a kick of the start search moves (`start_kicks`)
FULL_BYTES_PER_ROW = 300  # memory of one triangle row: stored copy, HiGHS's LP and MIP copies


def cuts_per_round(n: int) -> int:
    return max(2000, 20 * n)


def violated_cycles(Y: np.ndarray, limit: int) -> list[tuple[Triple, int]]:
    """Sorted triples (a<b<c) with the orientation whose 3-cycle inequality the fractional
    tournament Y violates, most violated first: kind 1 is a -> b -> c -> a
    (x_ab + x_bc - x_ac <= 1), kind 2 is a -> c -> b -> a (x_ac - x_ab - x_bc <= 0)."""
    n = Y.shape[0]
    found: dict[tuple[Triple, int], float] = {}
    for b in range(n):
        V = Y[:, b][:, None] + Y[b, :][None, :] + Y.T  # V[a, c] = y_ab + y_bc + y_ca
        V[b, :] = V[:, b] = 0.0
        np.fill_diagonal(V, 0.0)
        a_idx, c_idx = np.nonzero(V > 2.0 + VIOL_TOL)
        for a, c in zip(a_idx.tolist(), c_idx.tolist(), strict=True):
            t = sorted((a, b, c))
            rot = (a, b, c) in ((t[0], t[1], t[2]), (t[1], t[2], t[0]), (t[2], t[0], t[1]))
            found[(t[0], t[1], t[2]), 1 if rot else 2] = float(V[a, c]) - 2.0
    return sorted(found, key=lambda k: -found[k])[:limit]


def incumbent_cycles(
    Y: np.ndarray, order: Sequence[int], D: np.ndarray, per_pair: int = PER_PAIR
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
        rs = np.nonzero(Yp[p + 2 :, p] > VIOL_TOL)[0] + p + 2  # r (partly) before p
        if not len(rs):
            continue
        q = np.arange(p + 1, n)[:, None]
        V = Yp[p, p + 1 :][:, None] + Yp[p + 1 :][:, rs] + Yp[rs, p][None, :]
        score = V - 1e-4 * (Dp[p, p + 1 :][:, None] + Dp[p + 1 :][:, rs])
        score = np.where((q < rs[None, :]) & (V > 2.0 + VIOL_TOL), score, -np.inf)
        k = min(per_pair, score.shape[0])
        top = np.argpartition(-score, k - 1, axis=0)[:k] if k < score.shape[0] else None
        top = np.argsort(-score, axis=0)[:k] if top is None else top
        cols = np.broadcast_to(np.arange(len(rs)), top.shape)
        ok = np.isfinite(score[top, cols])
        out.append(np.stack([np.full(ok.sum(), p), top[ok] + p + 1, rs[cols[ok]]], axis=1))
    if not out:
        return np.zeros((0, 3), dtype=np.int64)
    return o[np.concatenate(out)]


def lagrangian_value(
    d: np.ndarray,
    s: float,
    const: float,
    cols: np.ndarray,
    coef: np.ndarray,
    rhs: np.ndarray,
    y: np.ndarray,
    fixed: np.ndarray | None = None,
) -> float:
    """const + s (sum_j min(0, (d + A^T y)_j) - y r) for 3-term rows A (cols, coef = +-1, rhs)
    and y >= 0, minus a rigorous bound on its floating-point error: a lower bound on every
    order's pair cost C + sum_j D_j x_j whenever d = D / s up to rounding and const = C
    correctly rounded (weak duality holds for any y >= 0; only the arithmetic can err).
    `fixed` (per column: -1 free in [0, 1], 0 or 1 fixed there): column j's term is then
    red_j x_j, a lower bound over the orders that respect the fixed pairs only (the forced
    pairs of a crossing problem, which every optimal order respects: `lop_graph`).

    Error analysis (u = 2^-53, standard model): d_j carries at most 3u|d_j| relative to D_j / s;
    column j's reduced cost sums 1 + k_j terms in order (np.add.at), error at most
    gamma_{k_j} (|d_j| + sum of its |y_i|); both sums are math.fsum (correctly rounded) and
    y_i r_i is exact (r in {0, 1}); the rest are single roundings. The margin takes the largest
    k_j for every column and doubles each term's coefficient: about 1e-14 of s sum|d| at
    n = 100, where the previous fixed 1e-12 (|C| + s P) exceeded the closing slack on
    heavy-tailed matrices (dense n = 60: 1.5e-4 against 4.9e-5), so LP rounds that had reached
    the optimum could not close."""
    red = d.copy()
    np.add.at(red, cols.ravel(), (coef * y[:, None]).ravel())
    term = np.minimum(red, 0.0)
    if fixed is not None:
        term = np.where(fixed == 1, red, np.where(fixed == 0, 0.0, term))
    s1 = math.fsum(term.tolist())
    s2 = math.fsum((y * rhs).tolist())
    lb = s1 - s2
    value = const + s * lb
    k = int(np.bincount(cols.ravel()).max()) if cols.size else 0
    u = 2.0**-53
    gamma = 2.0 * (k + 8) * u  # covers gamma_k = k u / (1 - k u) and the single roundings
    scale = s * (4.0 * float(np.abs(d).sum()) + 3.0 * float(y.sum()) + 2.0 * abs(s1)
                 + 2.0 * abs(s2) + 3.0 * abs(lb)) + 2.0 * abs(const) + abs(value)  # fmt: skip
    return value - gamma * scale


def search_start(
    Wb: np.ndarray, order: Sequence[int], seed: int | None, deadline: Deadline = NO_DEADLINE
) -> list[int]:
    """The packing's starting order: the best of an iterated insertion search from
    SEARCH_STARTS rotations of `order` (`solvers.kernels.order_search.multistart`). The
    restricted pricing prices around this order, and its bound levels off short of an order
    that is not optimal (cyclic n = 400, seed 50000: 22-25 closing slacks short of the
    insertion-descent order, 9.5 slacks above the optimum that this search finds). The
    deadline is checked between rotations (n = 500: 0.2 s each)."""
    found = multistart(Wb, order, starts=SEARCH_STARTS, kicks_per_start=SEARCH_KICKS,
                       max_length=SEARCH_SEGMENT, seed=solver_seed(seed),
                       stop=deadline.passed)  # fmt: skip
    return [int(i) for i in found]


class HighsCutModel:
    """One block's triangle model in HiGHS (highspy): LP cut rounds, then the MIP."""

    def __init__(
        self,
        Wb: np.ndarray,
        *,
        gap_abs: float,
        close_abs: float = 0.0,
        seed: int | None,
        packing: bool = False,
        packing_master: MasterLp = "pdlp",
        route: Route | None = None,
        threads: int = 1,
        packing_fill: bool = True,
        forced: np.ndarray | None = None,
    ) -> None:
        import highspy

        self.packing = packing  # the cycle-packing certificate is allowed (route auto/packing)
        # None: the historical chain (packing if allowed, LP rounds, MIP)
        self.route: Route = route or ("packing" if packing else "lp")
        self.lp_stalled = False  # the LP rounds stopped on LP_STALL_ROUNDS without progress
        self.lp_solver: LpSolver = "ipm"  # the LP rounds' HiGHS solver (`pick_lp_solver`)
        self.lp_solver_pref: LpSolver | None = None  # set: the LP rounds' solver, whatever
        # the deficit (crossing blocks: `lop_graph.tune_for_graphs`)
        self.per_pair = PER_PAIR  # incumbent cycles per reversed pair and round
        self.ipm_switch_ratio: float | None = None  # set: a dual simplex round slower per cut
        # row than this many times the block's first round with rows (and IPM_SWITCH_FLOOR_S)
        # hands the block's remaining rounds to the interior point (crossing blocks:
        # `lop_graph.GRAPH_IPM_SWITCH_RATIO`)
        self.simplex_ref_s_per_row: float | None = None  # that first round's s per row
        self.ipm_switched = False  # the rounds switched so (`_switch_to_ipm`)
        self.ipm_optimality_tol: float | None = None  # set: the interior point's LP rounds
        # (without crossover) run to this optimality tolerance, the others to HiGHS's default
        # (crossing blocks: `lop_graph.GRAPH_IPM_OPTIMALITY_TOL`)
        self.packing_master = packing_master
        self.threads = threads  # the packing masters' (PDLP's); HiGHS runs on one
        self.packing_fill = packing_fill  # the packing's 3-cycle fill (`CyclePacker`'s fill)
        self.seed = seed

        self.hs = highspy
        self.n = n = Wb.shape[0]
        iu = np.triu_indices(n, 1)
        self.col = np.full((n, n), -1, dtype=np.int64)
        self.col[iu] = np.arange(len(iu[0]))
        self.iu = iu
        d = (Wb - Wb.T)[iu]
        self.s = float(np.max(np.abs(d))) if d.size and np.max(np.abs(d)) > 0 else 1.0
        self.d = d / self.s
        self.D = (Wb - Wb.T) / self.s
        self.const = math.fsum(np.tril(Wb, -1).ravel())  # correctly rounded: the bound's margin
        self.gap_abs = gap_abs
        self.close_abs = max(close_abs, gap_abs)  # LP bound this close to the incumbent: done
        self.rows_cols: list[np.ndarray] = []
        self.rows_coef: list[np.ndarray] = []
        self.rows_rhs: list[np.ndarray] = []
        self.lp_done = False
        self.closed_by_lp = False  # proven without a MIP (triangle LP or cycle packing)
        self.closed_by_packing = False
        self.order: list[int] | None = None  # the best order known to the LP phase
        self.order_cost = math.inf
        self.last_before: np.ndarray | None = None  # the last MIP solution's tournament
        self.last_lp_s = 0.0  # seconds of the slowest LP run (predicts the MIP's root LP, which
        # starts from scratch: a warm-started simplex round can take 1% of it)
        self.packing_stopped = False  # the cycle packing ran out of time without closing
        self.best_lb: float | None = None  # best Lagrangian bound over the LP rounds
        self.W = Wb
        self.lp_s = 0.0  # seconds in HiGHS's LP rounds (`lp_rounds`)
        self.search_s = 0.0  # seconds in the local searches (start search, LP rounding)
        self.start_kicks = 0  # kicks of an iterated search from the hint before the LP rounds
        # (0: none, lpcut's default; crossing blocks: `lop_graph.graph_start_kicks`)
        self.start_patience: int | None = None  # it stops after this many kicks in a row
        # without improvement (None: it runs them all; crossing blocks: GRAPH_START_PATIENCE)
        self.stall_general = False  # LP rounds that stall on the incumbent's cycles get one
        # round of the general separation before they stop (crossing blocks: `lop_graph`)
        self.crossover_min_rows_per_n: float | None = None  # set: the first LP round with
        # rows runs by the interior point with crossover where it has at least this many rows
        # per vertex (`_crossover_round`; crossing blocks: `lop_graph.GRAPH_CROSSOVER_...`)
        self.crossover_checked = False  # that first round with rows has been judged
        self.stall_chunks = 0  # chunks of the stall search run (`_stall_chunk`: their seeds)
        self.stall_probe_s = 0.0  # seconds of `stall_probe`
        self.stall_search_share: float | None = None  # LP rounds that stalled short of the
        # incumbent: an iterated search for up to this share of their seconds before the MIP
        # (None: none, lpcut's default; crossing blocks: `lop_graph.GRAPH_STALL_SEARCH_SHARE`)
        self.pair_min = pairwise_min_bound(Wb)
        h = self.h = highspy.Highs()
        for k, v in (("output_flag", False), ("primal_feasibility_tolerance", 1e-9),
                     ("dual_feasibility_tolerance", 1e-9), ("threads", 1)):  # fmt: skip
            h.setOptionValue(k, v)
        if seed is not None:
            h.setOptionValue("random_seed", solver_seed(seed))
        self.wall_deadline = NO_DEADLINE  # HiGHS runs are interrupted after this
        interrupt_after(h, lambda: self.wall_deadline)
        P = len(self.d)
        h.addVars(P, np.zeros(P), np.ones(P))
        h.changeColsCost(P, np.arange(P, dtype=np.int32), self.d)
        self.fixed: np.ndarray | None = None  # per column -1 (free), 0 or 1 (`fix_forced`)
        if forced is not None:
            self.fix_forced(forced)

    def fix_forced(self, forced: np.ndarray) -> None:
        """Fix x_ab (a < b) to 1 where forced[a, b] (a precedes b in every optimal order) and
        to 0 where forced[b, a]: the LP and MIP range over those orders only, and the
        Lagrangian bound counts fixed columns at their values (`lagrangian_value`)."""
        a, b = self.iu
        fixed = np.where(forced[a, b], 1, np.where(forced[b, a], 0, -1)).astype(np.int8)
        idx = np.nonzero(fixed >= 0)[0]
        if len(idx):
            v = fixed[idx].astype(float)
            self.h.changeColsBounds(len(idx), idx.astype(np.int32), v, v)
        self.fixed = fixed

    def add_triangles(self, triples: Sequence[Triple]) -> None:
        """Both inequalities of each triple, or after a MIP solve only the one its tournament
        violates (the lazy rounds of `lop.solve_block`: half the rows)."""
        B = self.last_before
        if B is None:
            self.add_cycles([(t, kind) for t in triples for kind in (1, 2)])
            return
        # a -> b -> c -> a (kind 1) when a before b; else a -> c -> b -> a (kind 2)
        self.add_cycles([((a, b, c), 1 if B[a, b] else 2) for a, b, c in triples])

    def add_cycles(self, cycles: Sequence[tuple[Triple, int]]) -> None:
        """Rows kind 1: x_ab + x_bc - x_ac <= 1; kind 2: -x_ab - x_bc + x_ac <= 0."""
        if not cycles:
            return
        T = np.asarray([t for t, _ in cycles], dtype=np.int64).reshape(-1, 3)
        kind2 = np.asarray([k for _, k in cycles]) == 2
        T[kind2] = T[kind2][:, [0, 2, 1]]  # kind 2 is the cycle a -> c -> b -> a
        self.add_cycle_rows(T)

    def add_cycle_rows(self, C: np.ndarray) -> None:
        """For each row (a, b, c) of C the 3-cycle inequality y_ab + y_bc + y_ca <= 2, with
        y_uv = x_uv for u < v and 1 - x_vu otherwise."""
        if not len(C):
            return
        U = C.astype(np.int64)
        V = U[:, [1, 2, 0]]
        fwd = U < V
        cols = self.col[np.minimum(U, V), np.maximum(U, V)]
        coef = np.where(fwd, 1.0, -1.0)
        rhs = 2.0 - (~fwd).sum(axis=1)
        self._load_rows(cols, coef, rhs)
        self.rows_cols.append(cols)
        self.rows_coef.append(coef)
        self.rows_rhs.append(rhs)

    def _load_rows(self, cols: np.ndarray, coef: np.ndarray, upper: np.ndarray) -> None:
        """Append 3-term rows (k, 3 columns and coefficients) <= upper to HiGHS's LP."""
        k = len(upper)
        self.h.addRows(
            k, np.full(k, -self.hs.kHighsInf), upper, 3 * k,
            np.arange(0, 3 * k, 3, dtype=np.int32), cols.ravel().astype(np.int32), coef.ravel(),
        )  # fmt: skip

    def set_rhs(self, upper: np.ndarray) -> None:
        """Give HiGHS's cut rows the right-hand sides `upper` (highspy 1.12 has no vectorized
        row-bound change: delete and reload); the stored rows, and so `lagrangian_bound`, keep
        their own."""
        k = len(upper)
        self.h.deleteRows(k, np.arange(k, dtype=np.int32))
        self._load_rows(np.concatenate(self.rows_cols), np.concatenate(self.rows_coef), upper)

    def _tournament(self, x: np.ndarray) -> np.ndarray:
        Y = np.zeros((self.n, self.n))
        Y[self.iu] = x
        Y.T[self.iu] = 1.0 - x
        np.fill_diagonal(Y, 0.0)
        return Y

    def lagrangian_bound(self) -> float | None:
        """A sound lower bound on the block's pair cost from the current LP row duals."""
        sol = self.h.getSolution()
        if not sol.dual_valid or not self.rows_cols:
            return None
        y = np.maximum(0.0, -np.asarray(sol.row_dual, dtype=float))
        if len(y) != sum(len(r) for r in self.rows_rhs):
            return None
        cols, coef = np.concatenate(self.rows_cols), np.concatenate(self.rows_coef)
        return lagrangian_value(self.d, self.s, self.const, cols, coef,
                                np.concatenate(self.rows_rhs), y, self.fixed)  # fmt: skip

    def search_start_kicks(self, deadline: Deadline) -> None:
        """Offer the best order of an iterated insertion search from the best order
        (`start_kicks` kicks of at most START_KICK_LENGTH jobs, `order_search.iterated_search`)
        before any LP round: the LP rounds separate the cycles tight at the incumbent, which
        carry a dual certificate only if it is optimal (PACE #77: the insertion-descent order
        is 97 crossings above the optimum, which 500 kicks reach in 0.5 s)."""
        if self.order is None or not self.start_kicks or deadline.passed():
            return
        self._kick_search(self.start_kicks, solver_seed(self.seed), self.start_patience)

    def _kick_search(self, count: int, seed: int, patience: int | None = None) -> None:
        """Offer the result of `count` kicks of the iterated insertion search from the best
        order (kicks of at most START_KICK_LENGTH jobs drawn from `seed`)."""
        assert self.order is not None
        t = time.perf_counter()
        table = kicks(self.n, count, START_KICK_LENGTH, seed)
        self._offer([int(i) for i in iterated_search(self.W, self.order, table, patience=patience)])
        self.search_s += time.perf_counter() - t

    def _stall_chunk(self, count: int) -> bool:
        """One chunk of the stall search (`count` kicks, the seeds going on from the chunks
        before); True if the best order then meets the bound (the block is closed)."""
        self._kick_search(count, solver_seed(self.seed) + 1 + self.stall_chunks)
        self.stall_chunks += 1
        if self._closed():
            self.closed_by_lp = True
        return self.closed_by_lp

    def stall_probe(self, deadline: Deadline) -> bool:
        """Before the general round of a stall (`stall_general`): one chunk of the stall
        search, of at most the block's start kicks (`start_kicks`, so it costs about what the
        start search did), in case the bound has reached the optimum and only the order lags.
        PACE #78: the rounds' bound reached 126,861.99998 (the optimum, rounded up) at round 9
        and stalled there at round 12; the four rounds after the stall (the first with the
        general round's cuts) took 35 of the rounds' 60 s and left it there, and the stall
        search's first 1,000 kicks then found the optimum in 1.1 s (docs/lop.md). True if
        it closed the block."""
        count = min(STALL_SEARCH_CHUNK, self.start_kicks)
        if not count or self.order is None or deadline.passed():
            return False
        t = time.perf_counter()
        closed = self._stall_chunk(count)
        self.stall_probe_s += time.perf_counter() - t
        return closed

    def stall_search(self, deadline: Deadline) -> dict[str, float]:
        """After LP rounds that stalled short of the best order: iterated insertion searches
        from it, STALL_SEARCH_CHUNK kicks at a time, for up to `stall_search_share` times the
        LP rounds' seconds (and half the time left), until the best order meets the bound.
        PACE #78: the rounds' bound reaches the optimum while the best order stays 2 above,
        and HiGHS's MIP, given the other 457 s, did not find it; from the insertion-descent
        start the iterated search reaches it after 8,500-16,500 kicks (three seeds,
        docs/lop.md)."""
        share = self.stall_search_share
        if share is None or not self.lp_stalled or self._closed() or self.order is None:
            return {}
        t0 = time.perf_counter()
        budget = share * self.lp_s
        left = deadline.remaining()
        if left is not None:
            budget = min(budget, 0.5 * left)
        chunks = 0
        while time.perf_counter() - t0 < budget and not deadline.passed():
            chunks += 1
            if self._stall_chunk(STALL_SEARCH_CHUNK):
                break
        return {"stall_search_s": time.perf_counter() - t0,
                "stall_search_kicks": chunks * STALL_SEARCH_CHUNK,
                "stall_search_closed": int(self.closed_by_lp)}  # fmt: skip

    def _offer(self, order: Sequence[int]) -> None:
        cost = lop_cost(self.W, order)
        if cost < self.order_cost:
            self.order, self.order_cost = list(order), cost

    def _raise_bound(self, lb: float) -> None:
        """Keep the best sound lower bound met (LP rounds and packing alike)."""
        self.best_lb = lb if self.best_lb is None else max(self.best_lb, lb)

    def _closed(self) -> bool:
        return self.best_lb is not None and self.best_lb >= self.order_cost - self.close_abs

    def packing_certificate(self, deadline: Deadline) -> dict[str, float]:
        """Column generation of the cycle packing (`solvers.sojourn.cyclepack`) from the best
        order, first improved by `search_start`: its bound and orders join the LP phase's; it
        closes the block when it meets the best order within the closing slack."""
        if self.order is None:
            return {}
        t = time.perf_counter()
        self._offer(search_start(self.W, self.order, self.seed, deadline))
        self.search_s += time.perf_counter() - t
        packer = CyclePacker(self.W, seed=self.seed, master=self.packing_master,
                             threads=self.threads, fill=self.packing_fill)  # fmt: skip
        out = packer.certify(self.order, self.close_abs, deadline)
        self.packing_stopped = out.stopped  # no LP ran after it: its MIP would start blind
        self._offer(out.order)
        self._raise_bound(out.bound)
        if self._closed():
            self.closed_by_lp = self.closed_by_packing = True
        return dict(out.stats)

    def lp_rounds(self, deadline: Deadline = NO_DEADLINE) -> dict[str, float]:
        """Cut rounds (by `self.lp_solver`: the interior point without crossover, each LP from
        scratch, or dual simplex from the previous basis) until the Lagrangian bound meets the
        best order (proof without MIP), no triangle is violated, or the deadline. Each LP
        solution, rounded and improved by insertion descent, is offered as an incumbent; rows
        slack at the LP optimum are deleted until the rounds stall (then the deleted rows kept
        coming back: PACE #77, twins merged, stalled again 0.26 crossings short after the
        general round with the deletion, 48.3 CPU s with the MIP, and five general rounds did
        not help; without it the rounds closed one round after the general round, 21.6 CPU s)."""
        rounds = cuts = purged = general = fallback = imprecise = crossovers = 0
        stall_tried = False  # the one general round of `stall_general` ran
        probe_closed = 0  # `stall_probe` closed the block before that round
        own: list[float] = []  # the best of this phase's own Lagrangian bounds, per round
        self.h.setOptionValue("solver", self.lp_solver)
        self.h.setOptionValue("run_crossover", "off")  # interior point only: no basis to keep
        self._ipm_tolerance(self.ipm_optimality_tol)
        for rounds in range(1, MAX_LP_ROUNDS + 1):  # noqa: B007
            if deadline.passed():
                break
            cap = self._simplex_cap()
            self._time_limit(deadline, cap)
            crossover = self._crossover_round()
            crossovers += crossover
            t0 = time.perf_counter()
            self.h.run()
            t_run = time.perf_counter() - t0
            self.lp_s += t_run
            if crossover and not self._end_crossover_round(deadline):
                fallback += 1
                continue  # the same round again, by the dual simplex
            if cap is not None and self._stopped_by_cap(deadline):
                self._switch_to_ipm()  # the same round again, by the interior point
                continue
            self._note_simplex_ref(t_run)
            # the slowest round, even one stopped by time, sizes the MIP's root (dense n = 300:
            # a simplex round cut off at the limit, or a quick warm-started one just before it,
            # let the MIP start in the 5% left, and its presolve overran the limit by 15 s)
            self.last_lp_s = max(self.last_lp_s, t_run)
            verdict = self._round_verdict(deadline)
            if verdict == "retry":
                fallback += 1
                continue
            if verdict == "stop":
                break  # stopped by time: keep the last optimal LP's bound
            imprecise += verdict == "imprecise"
            x = np.asarray(self.h.getSolution().col_value, dtype=float)
            if len(x) != len(self.d):
                break
            lb = self.lagrangian_bound()
            if lb is not None:
                self._raise_bound(lb)
            own.append(max(own[-1] if own else -math.inf, -math.inf if lb is None else lb))
            Y = self._tournament(x)
            t = time.perf_counter()
            self._offer(rounded_order(self.W, Y))
            self.search_s += time.perf_counter() - t
            if self._closed():
                self.closed_by_lp = True
                break
            general_now = False
            if len(own) > LP_STALL_ROUNDS and own[-1] - own[-1 - LP_STALL_ROUNDS] < self.close_abs:
                if not self.stall_general or stall_tried:
                    self.lp_stalled = True
                    break
                if self.stall_probe(deadline):
                    probe_closed = 1
                    break
                # crossing blocks: one round of the most violated triangles first (PACE #77:
                # the incumbent's cycles stalled 1.5 crossings short; this round closed it)
                stall_tried = general_now = True
                own.clear()
            assert self.order is not None
            new = (
                np.zeros((0, 3), dtype=np.int64)
                if general_now
                else incumbent_cycles(Y, self.order, self.D, self.per_pair)
            )
            if not len(new):  # the restricted family holds: separate every triangle
                cyc = violated_cycles(Y, cuts_per_round(self.n))
                new = np.asarray([t if k == 1 else (t[0], t[2], t[1]) for t, k in cyc])
                general += len(new)
            if not len(new) or deadline.passed():
                break
            if not stall_tried:  # after a stall, deleted rows came back round after round
                purged += self._purge_slack_rows()
            self.add_cycle_rows(new)
            cuts += len(new)
        self.h.setOptionValue("solver", "choose")
        self.h.setOptionValue("run_crossover", "on")
        return {"lp_rounds": rounds, "lp_cuts": cuts, "lp_general_cuts": general,
                "lp_rows_purged": purged, "lp_stalled": int(self.lp_stalled),
                "lp_ipm_fallbacks": fallback, "lp_ipm_imprecise": imprecise,
                "lp_stall_general": int(stall_tried), "stall_probe_s": self.stall_probe_s,
                "lp_stall_probe_closed": probe_closed,
                "lp_ipm_switched": int(self.ipm_switched),
                "lp_crossover_rounds": crossovers}  # fmt: skip

    def _crossover_round(self) -> bool:
        """Whether this round, the block's first with rows, runs by the interior point with
        crossover in place of the dual simplex from the slack basis (`crossover_min_rows_per_n`
        set, at least that many rows per vertex): the crossover's basis warm-starts the dual
        simplex rounds after it, and its seconds per row are `_simplex_cap`'s reference. PACE
        first rounds, dual simplex / interior point with crossover: #54 (86,263 rows, 100 per
        vertex) 1.16 / 0.38 s, #67 (99,421, 97) 2.75 / 0.45 s, #51 (33,141, 54) 0.20 / 0.13 s;
        but #59 (15,697, 19) 0.28 / 0.51 s and #73 (49,117, 25) 1.77 / 1.99 s
        (`lop_graph.GRAPH_CROSSOVER_MIN_ROWS_PER_N`, docs/lop.md)."""
        per_n, rows = self.crossover_min_rows_per_n, self.h.getNumRow()
        if per_n is None or self.crossover_checked or self.lp_solver != "simplex" or not rows:
            return False
        self.crossover_checked = True
        if rows < per_n * self.n:
            return False
        self.h.setOptionValue("solver", "ipm")
        self.h.setOptionValue("run_crossover", "on")
        self._ipm_tolerance(None)
        return True

    def _end_crossover_round(self, deadline: Deadline) -> bool:
        """Back to the dual simplex after `_crossover_round`; False (the round to be run again
        by the dual simplex) if the interior point did not end optimal and time is left."""
        self.h.setOptionValue("solver", "simplex")
        self.h.setOptionValue("run_crossover", "off")
        self._ipm_tolerance(self.ipm_optimality_tol)
        optimal = self.h.getModelStatus() == self.hs.HighsModelStatus.kOptimal
        return optimal or deadline.passed()

    def _simplex_cap(self) -> float | None:
        """Seconds the next round may take before it is handed to the interior point: with
        `ipm_switch_ratio` set, while the dual simplex runs, that many times the block's first
        round's seconds per cut row (`simplex_ref_s_per_row`; at least IPM_SWITCH_FLOOR_S);
        else None, and None for that first round itself. A warm-started round takes less per
        row than the first one where the simplex pays (PACE #51-#54, #59-#61, #66, #67:
        0.1-1.4 times it) and several times more where its pivots grow dense (#58: 6.1 at its
        second round, 130 against 21 microseconds per row). A ratio of two times measured
        moments apart on one machine: the rule does not depend on the machine's speed, which a
        fixed microseconds-per-row cap did (docs/lop.md)."""
        ratio, ref = self.ipm_switch_ratio, self.simplex_ref_s_per_row
        if ratio is None or ref is None or self.ipm_switched or self.lp_solver != "simplex":
            return None
        return max(IPM_SWITCH_FLOOR_S, ratio * ref * self.h.getNumRow())

    def _note_simplex_ref(self, t_run: float) -> None:
        """Keep the first completed dual simplex round's seconds per cut row (`_simplex_cap`);
        the run on an LP without rows does not count."""
        rows = self.h.getNumRow()
        if self.simplex_ref_s_per_row is None and self.lp_solver == "simplex" and rows > 0:
            self.simplex_ref_s_per_row = t_run / rows

    def _ipm_tolerance(self, tol: float | None) -> None:
        """HiGHS's interior point optimality tolerance for the runs that follow: `tol`, or
        HiGHS's default with None (crossover rounds and the MIP keep the default)."""
        self.h.setOptionValue("ipm_optimality_tolerance", tol or IPM_DEFAULT_OPT_TOL)

    def _switch_to_ipm(self) -> None:
        """The block's remaining LP rounds by the interior point (once)."""
        self.ipm_switched = True
        self.lp_solver = "ipm"
        self.h.setOptionValue("solver", "ipm")

    def _round_verdict(
        self, deadline: Deadline
    ) -> Literal["optimal", "imprecise", "retry", "stop"]:
        """What an LP round's end allows: "optimal"; "imprecise", an interior point that ended
        kUnknown with duals, used as they are where the interior point is preferred (crossing
        blocks): any duals >= 0 give a sound Lagrangian bound and any point a separation and a
        rounding (PACE #77, twins merged: round 2 ends so; re-solved by the dual simplex, which
        then ran the remaining rounds, 26.6 CPU s against 21.7; #96 with the slack rows deleted
        after the stall: the dual simplex from scratch on the same 91,015 rows took 38.7 s
        against 3.9 s for the interior point); "retry" by the dual simplex where such a round
        has no duals; else "stop"."""
        status = self.h.getModelStatus()
        if status == self.hs.HighsModelStatus.kOptimal:
            return "optimal"
        ipm_pref = self.lp_solver == "ipm" and (self.lp_solver_pref == "ipm" or self.ipm_switched)
        if not ipm_pref or deadline.passed():
            return "stop"
        if status == self.hs.HighsModelStatus.kUnknown and self.h.getSolution().dual_valid:
            return "imprecise"
        self.lp_solver = "simplex"
        self.h.setOptionValue("solver", "simplex")
        return "retry"

    def deficit_share(self) -> float:
        """(best order's cost - pairwise minimum) / pairwise minimum: what a dual certificate
        has to cover, relative to the closing slack's base (inf without an order)."""
        if self.order is None:
            return math.inf
        return (self.order_cost - self.pair_min) / max(self.pair_min, 1e-300)

    def pick_route(self) -> Route:
        """The route of this block (`route` auto): the cycle packing when the incumbent's
        deficit is small enough for its loose masters (PACKING_MAX_DEFICIT), else the LP rounds,
        which hand over to the MIP on their cut rows when they stall. The full model is never
        picked: on the measured families (docs/lop.md) it was not the fastest beyond
        start-up noise, and it fell behind the LP rounds from n = 40 on."""
        if self.route != "auto":
            return self.route
        if self.packing and self.deficit_share() <= PACKING_MAX_DEFICIT:
            return "packing"
        return "lp"

    def pick_lp_solver(self) -> LpSolver:
        """The LP rounds' solver: dual simplex, warm-started from the previous round's basis,
        when the deficit share exceeds SIMPLEX_MIN_DEFICIT (dense matrices: 5-7x less CPU than
        the interior point at n = 60-100, and an exact vertex's duals for the bound); else the
        interior point from scratch (cyclic family: degenerate LPs where one simplex round took
        41 s against about 2 s at n = 150)."""
        if self.lp_solver_pref is not None:
            return self.lp_solver_pref
        return "simplex" if self.deficit_share() > SIMPLEX_MIN_DEFICIT else "ipm"

    def add_all_triangles(self, deadline: Deadline) -> bool:
        """Replace the cut rows by every 3-cycle inequality (both orientations of every
        triple: the textbook model); False if the deadline passed while adding them."""
        n = self.n
        rows = n * (n - 1) * (n - 2) / 3
        check_alloc(FULL_BYTES_PER_ROW * rows, f"the full triangle model of a block of {n} jobs",
                    fix="use route 'lp' or 'packing' (lazy rows)")  # fmt: skip
        self.keep_rows(np.zeros(sum(len(r) for r in self.rows_rhs), dtype=bool))
        for a in range(n - 2):
            if deadline.passed():
                return False
            b, c = np.triu_indices(n - a - 1, 1)
            T = np.stack([np.full(len(b), a), b + a + 1, c + a + 1], axis=1)
            self.add_cycle_rows(np.concatenate([T, T[:, [0, 2, 1]]]))
        return True

    def _start_before(self, x: np.ndarray | None) -> np.ndarray | None:
        if x is None:
            return None
        before = self._tournament(x) > 0.5
        np.fill_diagonal(before, False)
        return before

    def _time_limit(self, deadline: Deadline, cap: float | None = None) -> None:
        """HiGHS's time limit for the next run: the deadline's time left, or `cap` seconds if
        sooner (none: no limit). It counts the run time of every run of this object: add it;
        the interrupt callbacks enforce the deadline on the wall clock."""
        left = deadline.remaining(floor=0.01)  # HiGHS's one conversion
        limits = [t for t in (left, cap) if t is not None]
        base = float(self.h.getRunTime())
        self.h.setOptionValue("time_limit", base + min(limits) if limits else self.hs.kHighsInf)
        self.wall_deadline = deadline

    def _stopped_by_cap(self, deadline: Deadline) -> bool:
        """The last run hit HiGHS's time limit before the deadline: `_simplex_cap`'s."""
        hit = self.h.getModelStatus() == self.hs.HighsModelStatus.kTimeLimit
        return hit and not deadline.passed()

    def _x_of(self, order: Sequence[int]) -> np.ndarray:
        pos = np.empty(self.n, dtype=np.int64)
        pos[np.asarray(order, dtype=np.int64)] = np.arange(self.n)
        return (pos[self.iu[0]] < pos[self.iu[1]]).astype(float)

    def _purge_slack_rows(self) -> int:
        """Delete rows slack by more than PURGE_SLACK at the LP optimum: the LP stays a
        relaxation of the full model (the bound of every round is computed before), and
        separation re-adds a row that is violated later. Keeps each LP small."""
        if not self.rows_cols:
            return 0
        rhs = np.concatenate(self.rows_rhs)
        slack = rhs - np.asarray(self.h.getSolution().row_value, dtype=float)
        if len(slack) != len(rhs):
            return 0
        return self.keep_rows(slack <= PURGE_SLACK)

    def keep_rows(self, keep: np.ndarray) -> int:
        """Delete the cut rows where `keep` is False, in HiGHS and in the stored copies (the
        LP stays a relaxation: every row is a valid inequality); returns how many."""
        drop = ~np.asarray(keep, dtype=bool)
        if not self.rows_cols or not drop.any():
            return 0
        self.h.deleteRows(int(drop.sum()), np.nonzero(drop)[0].astype(np.int32))
        self.rows_cols = [np.concatenate(self.rows_cols)[~drop]]
        self.rows_coef = [np.concatenate(self.rows_coef)[~drop]]
        self.rows_rhs = [np.concatenate(self.rows_rhs)[~drop]]
        return int(drop.sum())

    def _to_mip(self) -> None:
        self.lp_done = True
        P = len(self.d)
        self.h.changeColsIntegrality(P, np.arange(P, dtype=np.int32), np.ones(P, dtype=np.uint8))
        self.h.setOptionValue("mip_rel_gap", 0.0)
        self.h.setOptionValue("mip_abs_gap", self.gap_abs / self.s)

    def solve(self, deadline: Deadline, hint: Sequence[int] | None) -> RoundResult:
        stats: dict[str, Any] = {}
        if hint is not None:
            self._offer(hint)
        if not self.lp_done:
            self.search_start_kicks(deadline)
            route = self.pick_route()
            stats["route"] = route
            stats[f"route_{route}"] = 1
            self.lp_solver = self.pick_lp_solver()
            stats[f"lp_solver_{self.lp_solver}"] = 1
            lp_deadline = deadline.share(LP_TIME_SHARE)
            if route == "packing":
                stats.update(self.packing_certificate(lp_deadline))
            if route != "full" and not self.closed_by_lp:
                stats.update(self.lp_rounds(lp_deadline))
                stats.update(self.stall_search(lp_deadline))
            stats["lp_s"], stats["search_s"] = self.lp_s, self.search_s
            if self.order is not None and hint is not None and list(hint) != self.order:
                stats["lp_incumbent"] = 1
            if self.closed_by_lp and self.order is not None:
                stats["closed_by_lp"] = 1
                stats["closed_by_packing"] = int(self.closed_by_packing)
                return RoundResult(
                    self._start_before(self._x_of(self.order)), True, self.best_lb, stats
                )
            if route == "full":  # every triangle row, straight to the MIP
                if not self.add_all_triangles(deadline):
                    return RoundResult(None, False, self.best_lb, stats)
            self._to_mip()
        start_x = None if self.order is None else self._x_of(self.order)
        lp_bound = self.best_lb
        if start_x is not None:
            start = self.hs.HighsSolution()
            start.col_value = start_x.tolist()
            self.h.setSolution(start)
        # a MIP's presolve and root are not always interruptible: skip one that would overrun,
        # and one after a packing stopped by time (no LP round ran to size its root)
        root_s = max(0.01, MIP_ROOT_FACTOR * self.last_lp_s)  # 0.01 for the full model
        if self.packing_stopped or deadline.passed(within=root_s):
            stats["mip_skipped_for_time"] = 1
            return RoundResult(self._start_before(start_x), False, lp_bound, stats)
        t = time.perf_counter()
        run = self._run_mip(deadline)
        stats["mip_s"] = time.perf_counter() - t
        if run.killed:  # past the deadline: what the child reported before, or the LP's
            stats["mip_killed"] = 1
        found: np.ndarray | None = None
        if run.x is not None:
            found = self._tournament(run.x) > 0.5
            np.fill_diagonal(found, False)
        bound = self.const + self.s * run.dual if math.isfinite(run.dual) else None
        if lp_bound is not None:
            bound = lp_bound if bound is None else max(bound, lp_bound)
        if run.nodes >= 0:
            stats["mip_nodes"] = run.nodes
        if found is None and run.killed:
            found = self._start_before(start_x)
        self.last_before = found
        return RoundResult(found, run.proven, bound, stats)

    def _run_mip(self, deadline: Deadline) -> MipRun:
        """HiGHS's MIP on the model as it stands, in a forked child killed FORK_KILL_GRACE_S
        after the deadline (`kit.forked`: its root LP does not stop at the limit); a killed
        run gives the last dual bound and improving point the child reported. In-process
        where the platform cannot fork."""
        self._time_limit(deadline)
        self._ipm_tolerance(None)
        if not forking_available():
            self.h.run()
            return self._mip_outcome()

        def go(report: Report) -> MipRun:
            self._report_progress(report)
            self.h.run()
            return self._mip_outcome()

        run, killed, seen = run_forked(go, deadline)
        if not killed and run is not None:
            return run
        x = seen.get("x")
        ok = x is not None and len(x) == len(self.d)
        return MipRun(False, x if ok else None, seen.get("dual", -math.inf), -1, killed=True)

    def _report_progress(self, report: Report) -> None:
        """In the MIP's child: report each improving point and each rise of the dual bound."""
        last = [-math.inf]

        def on_bound(event: Any) -> None:
            dual = float(event.data_out.mip_dual_bound)
            if math.isfinite(dual) and dual > last[0]:
                last[0] = dual
                report({"dual": dual})

        def on_solution(event: Any) -> None:
            report({"x": np.asarray(event.data_out.mip_solution, dtype=float)})

        self.h.cbMipInterrupt.subscribe(on_bound)
        self.h.cbMipImprovingSolution.subscribe(on_solution)

    def _mip_outcome(self) -> MipRun:
        info = self.h.getInfo()
        x = np.asarray(self.h.getSolution().col_value, dtype=float)
        has = len(x) == len(self.d) and math.isfinite(float(info.objective_function_value))
        feasible = has and info.primal_solution_status == 2  # kSolutionStatusFeasible
        return MipRun(
            proven=self.h.getModelStatus() == self.hs.HighsModelStatus.kOptimal,
            x=x if feasible else None,
            dual=float(info.mip_dual_bound),
            nodes=int(info.mip_node_count),
        )


@dataclass(frozen=True)
class MipRun:
    """What a MIP run of `HighsCutModel` leaves: proven optimal, its feasible point (None if it
    has none), HiGHS's dual bound in the model's scaled units, its node count (-1: unknown),
    and whether it was killed past the deadline (`HighsCutModel._run_mip`)."""

    proven: bool
    x: np.ndarray | None
    dual: float
    nodes: int
    killed: bool = False


def block_close_abs(Wb: np.ndarray) -> float:
    """The slack of a block standing alone (`lop.block_slacks` with no other block and no
    offset): SLACK_SHARE of the proof tolerance of its pairwise-minimum cost. lpcut's blocks
    get theirs from `solve_lop_matrix`, which also counts B's constant term (about 2x wider)."""
    return block_slacks(Wb, [np.arange(Wb.shape[0])])[0]


def lpcut_factory(
    options: LpcutOptions, seed: int | None, *, integral: bool = False
) -> ModelFactory:
    """lpcut's block model builder for `lop.solve_lop` / `lop.solve_lop_matrix`; refuses a
    route that its options rule out. `integral`: integer costs, whose MIP may stop within
    `lop.INTEGER_SLACK` (the bound rounds up)."""
    from schedlab.solvers.sojourn.lop import block_gap_abs

    if options.route not in ROUTES:
        raise InvalidInput(f"route: lpcut takes one of {', '.join(ROUTES)} (got {options.route!r})")
    if options.route == "packing" and not options.packing:
        raise InvalidInput("route: 'packing' needs the packing on (drop --no-packing)")
    return lambda Wb, _deadline, slack: HighsCutModel(
        Wb,
        gap_abs=INTEGER_SLACK if integral else block_gap_abs(Wb),
        close_abs=slack,
        seed=seed,
        packing=options.packing,
        packing_master=options.packing_master,
        route=options.route,
        threads=options.threads,
        packing_fill=options.packing_fill,
    )


@register_method(
    SUBJECT,
    "lpcut",
    exact=True,
    kinds=LINEAR_ORDERING,
    options=LpcutOptions,
    summary="HiGHS: per block the cycle packing, triangle LP rounds or the full triangle model "
    "(chosen from the block), A and B",
)
def solve_lpcut(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: LpcutOptions,
) -> SolveResult[list[str]]:
    """Exact A or B: per block the route `pick_route` chooses, a sound bound, then the MIP."""
    inst, objective = problem.instance, problem.objective
    refuse_non_lop(objective, "lpcut")
    t0 = time.perf_counter()
    res = solve_lop(
        inst,
        objective,
        "lpcut",
        lpcut_factory(options, seed),
        deadline=deadline,
        triangles="separate",
        decompose=options.decompose,
        warm_start=options.hint,
        extra_stats=lpcut_stats(options),
    )
    return replace(res, runtime_s=time.perf_counter() - t0)
