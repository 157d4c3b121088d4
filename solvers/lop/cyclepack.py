"""A dual certificate for the linear ordering problem: a fractional packing of preference cycles.

Theory (theory/sojourn/packing.py): write cap_ab = |W[a,b] - W[b,a]| and orient each pair the
cheap way (the preference tournament T). Every order costs sum_pairs min(W[a,b], W[b,a]) plus
cap of each arc of T it reverses, and reverses at least one arc of every directed cycle of T. So
for any weights mu_C >= 0 on directed cycles with sum_{C containing a} mu_C <= cap_a for every
arc a (a packing), every order costs at least sum_pairs min + sum_C mu_C. This is the dual of
the triangle LP relaxation that `lpcut` solves (3-cycle rows imply all longer cycles), in a form
with no triangle rows: its columns are cycles, generated as needed.

Column generation. By complementary slackness, if the incumbent order is optimal and the LP is
tight, some optimal packing uses only cycles with exactly one arc reversed by the incumbent: a
reversed arc b -> a (a listed first) closed by a path a ~> b of arcs the incumbent keeps. So the
pricing problem is all-pairs shortest paths in the incumbent's DAG of kept arcs with the
master's arc duals as lengths (`solvers.kernels.shortest_paths`), plus `hop` per arc so that among
equal lengths the shorter cycles come first; the first pricing, before any master, takes lengths
`hop` / cap (the widest paths first). The master LP (max sum mu, arc capacities) is solved from
scratch each round by OR-Tools' PDLP, a first-order method, at a loose tolerance (only the
packing's value matters; coarser while the gap is large (`_early_tol`), `loose_tol`, then
`fine_tol` once the bound stalls at it): on these
masters, tens of thousands of rows and short cycles as columns, it is several times faster than
HiGHS's interior point, whose conjugate-gradient steps multiply as the packing tightens. Columns
with mu below `purge_rel` of the largest are dropped each round. The shaved packing leaves
capacity on many arcs (PDLP's loose solutions spread over the columns); each round
`triangle_fill` fills it greedily with 3-cycles that reverse one arc of the incumbent, which
raise that round's bound and join the next master as columns: primal columns beside the dual
pricing's (fewer rounds and no master at `fine_tol` on the cyclic ladder; docs/lop.md,
"Measurements behind the packing's settings"). The columns are kept in one flat array
(`Columns`), so the master's matrix, the bound and the purge need no Python loop. Each
round the duals, read as a fractional order, are rounded (insertion descent) into a candidate
incumbent; pricing follows the best order. A ladder of fallbacks keeps it exact
(`_next_step`): when the bound stalls at `fine_tol` (the incumbent is not optimal, or the LP
falls short of it by less than the tolerance, so cycles reversed twice are needed) pricing runs
over every cycle of T (Floyd-Warshall); when that stalls too, the master goes to `tight_tol`;
when it stalls again, or nothing prices out, the master is solved tightly (HiGHS's interior
point) and priced without `hop`. The block is left to the triangle LP only when that finds no
column either.

The tuning (`hop`, the tolerances, the stall rules, ...) is one frozen `PackingTuning` passed
in (`LpcutTuning.packing`), not module constants. Soundness does not rest on the LP solvers'
tolerances: every column's weight, the fill's
included, is shaved by the worst overload of its arcs (a feasible packing by construction)
before its value is summed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.solvers.kernels.order_search import descend
from schedlab.solvers.kernels.shortest_paths import (
    best_first_hops,
    dag_all_pairs,
    floyd_warshall,
    paths,
)
from schedlab.solvers.kernels.triangle_fill import fill_triangles
from schedlab.solvers.kit.mip import interrupt_after
from schedlab.solvers.lop.core import lop_cost, preference_tournament
from schedlab.solvers.lop.lpcut.options import MasterLp, PackingTuning
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed

DEFAULT_PACKING = PackingTuning()  # the packing's tuning where none is passed
RED_TOL = 1e-9  # a column enters when its reduced cost exceeds this (pricing threshold)
SOUND_MARGIN = 1e-12  # relative slack for float rounding in the packing's value


@dataclass
class PackingOutcome:
    """The best order met, its pair cost, a sound lower bound on every order's pair cost, and
    whether the bound is within `close_abs` of the cost."""

    order: list[int]
    cost: float
    bound: float
    closed: bool
    stats: dict[str, Any] = field(default_factory=dict)
    stopped: bool = False  # the deadline ended it before it closed


@dataclass(frozen=True)
class Columns:
    """Cycles as pair ids, all in one array: column j is ids[ptr[j]:ptr[j + 1]] (the master's
    columns in the form the master, the bound and the purge read without a Python loop)."""

    ids: np.ndarray
    ptr: np.ndarray

    @classmethod
    def of(cls, cols: Sequence[np.ndarray] | Columns) -> Columns:
        """Columns from a list of id arrays (or as given)."""
        if isinstance(cols, Columns):
            return cols
        ptr = np.zeros(len(cols) + 1, dtype=np.int64)
        np.cumsum([len(c) for c in cols], out=ptr[1:])
        ids = np.concatenate(cols).astype(np.int64) if len(cols) else np.zeros(0, np.int64)
        return cls(ids, ptr)

    def __len__(self) -> int:
        """How many columns."""
        return len(self.ptr) - 1

    def lens(self) -> np.ndarray:
        """The number of arcs of each column."""
        return np.diff(self.ptr)

    def __add__(self, other: Columns) -> Columns:
        """These columns, then `other`'s."""
        return Columns(np.concatenate([self.ids, other.ids]),
                       np.concatenate([self.ptr, other.ptr[1:] + self.ptr[-1]]))  # fmt: skip

    def select(self, keep: np.ndarray) -> Columns:
        """The columns where `keep` is true, in order."""
        lens = self.lens()[keep]
        ptr = np.zeros(len(lens) + 1, dtype=np.int64)
        np.cumsum(lens, out=ptr[1:])
        return Columns(self.ids[np.repeat(keep, self.lens())], ptr)


def cycle_columns(pid: np.ndarray, nodes: np.ndarray, ptr: np.ndarray) -> Columns:
    """The cycles through the node lists nodes[ptr[j]:ptr[j + 1]] (each closed from its last
    node back to its first) as pair ids pid[u, v] of their arcs."""
    after = np.arange(1, len(nodes) + 1)
    after[ptr[1:] - 1] = ptr[:-1]  # the last node of each list closes on its first
    return Columns(pid[nodes, nodes[after]], ptr)


def _incidence(cols: Sequence[np.ndarray] | Columns) -> tuple[np.ndarray, Any]:
    """The arcs the columns use (sorted pair ids: the master's rows) and the 0/1 arc-by-column
    matrix over them (scipy CSC), the one form both master solvers read."""
    import scipy.sparse as sp

    c = Columns.of(cols)
    size = int(c.ids.max()) + 1 if len(c.ids) else 0
    seen = np.zeros(size, dtype=bool)
    seen[c.ids] = True
    used = np.flatnonzero(seen)  # as np.unique, without its sort
    row_of = np.zeros(size, dtype=np.int64)
    row_of[used] = np.arange(len(used))
    rows = row_of[c.ids]
    A = sp.csc_matrix((np.ones(len(c.ids)), rows, c.ptr), shape=(len(used), len(c)))
    A.sort_indices()
    return used, A


def _next_step(loose: float, general: bool, t: PackingTuning) -> str:
    """What a stalled bound moves to: a `fine_tol` master, then pricing every cycle of T, then a
    `tight_tol` master, then the exact master priced without the tie-break (`certify`)."""
    if loose > t.fine_tol:
        return "fine"
    if not general:
        return "general"
    return "tight" if loose > t.tight_tol else "exact"


def _stalled(
    history: list[float], close_abs: float, target: float, general: bool, t: PackingTuning
) -> bool:
    """The bound gained too little over the last `stall_rounds` rounds: less than the closing
    slack (`tail_gain` of it once every cycle of T is priced) and less than `stall_need` of what
    it then lacked to reach `target` (the cost less the slack), though never less than `tail_gain`
    of the slack (a bound that creeps up to the target in ever smaller steps still stalls)."""
    if len(history) <= t.stall_rounds:
        return False
    before = history[-1 - t.stall_rounds]
    full = close_abs * (t.tail_gain if general else 1.0)
    share = max(t.stall_need * (target - before), t.tail_gain * close_abs)
    return history[-1] - before < min(full, share)


class CyclePacker:
    """One block's pair costs Wb as a preference tournament with arc capacities."""

    def __init__(
        self,
        Wb: np.ndarray,
        *,
        seed: int | None = None,
        master: MasterLp = "pdlp",
        threads: int = 1,
        fill: bool = True,
        tuning: PackingTuning = DEFAULT_PACKING,
    ) -> None:
        self.W = Wb
        self.tuning = tuning
        self.master = master  # the LP solver of the loose rounds
        self.threads = threads  # PDLP's threads (its result does not depend on them)
        self.fill = fill  # fill each master's left-over capacity with 3-cycles (`_filled`)
        self.n = n = Wb.shape[0]
        iu = np.triu_indices(n, 1)
        self.pid = np.zeros((n, n), dtype=np.int64)
        self.pid[iu] = np.arange(len(iu[0]))
        self.pid.T[iu] = self.pid[iu]
        diff = np.abs(Wb - Wb.T)[iu]
        self.s = float(diff.max()) if diff.size and diff.max() > 0 else 1.0
        self.cap = diff / self.s
        self.pref = preference_tournament(Wb)
        self.pair_min = float(np.minimum(Wb, Wb.T)[iu].sum())
        self.seed = seed

    @property
    def _per_arc(self) -> int:
        """Columns priced per reversed arc and round, by the master's LP solver."""
        t = self.tuning
        return t.per_arc_pdlp if self.master == "pdlp" else t.per_arc_ipm

    def bound_of(self, cols: Sequence[np.ndarray] | Columns, mu: np.ndarray) -> float:
        """Sound lower bound on every order's pair cost from cycle weights `mu` (any sign or
        overload: weights are clipped at 0 and shaved to the capacities first)."""
        c = Columns.of(cols)
        if not len(c):
            return self.pair_min
        value = float(self._shaved(c, mu).sum()) * (1.0 - SOUND_MARGIN)
        return self.pair_min + self.s * value - SOUND_MARGIN * abs(self.pair_min)

    def _load(self, c: Columns, mu: np.ndarray) -> np.ndarray:
        """Each pair's load under the cycle weights mu."""
        return np.bincount(c.ids, weights=np.repeat(mu, c.lens()), minlength=len(self.cap))

    def _shaved(self, c: Columns, mu: np.ndarray) -> np.ndarray:
        """The weights clipped at 0, each column's times the smallest cap / load of its arcs
        (a packing: no arc over its capacity)."""
        mu = np.maximum(mu, 0.0)
        if not len(c):
            return mu
        load = self._load(c, mu)
        over = np.where(load > self.cap, self.cap / np.maximum(load, 1e-300), 1.0)
        return mu * np.minimum.reduceat(over[c.ids], c.ptr[:-1])

    def _filled(
        self, order: Sequence[int], c: Columns, mu: np.ndarray
    ) -> tuple[np.ndarray, Columns, np.ndarray]:
        """The shaved weights of c, then 3-cycles that reverse one arc of `order` and fill the
        capacity the shaved packing leaves (`triangle_fill`), and their weights."""
        shaved = self._shaved(c, mu)
        left = np.maximum(self.cap - self._load(c, shaved), 0.0)
        P = np.asarray(order, dtype=np.int64)
        pid, pref = self.pid[np.ix_(P, P)], self.pref[np.ix_(P, P)]
        tri, weight = fill_triangles(left[pid], np.triu(pref, 1), np.triu(pref.T, 1))
        fill = cycle_columns(self.pid, P[tri.ravel()], np.arange(0, 3 * len(tri) + 1, 3))
        return shaved, fill, weight

    def _bound_and_fill(
        self, order: Sequence[int], cols: Columns, mu: np.ndarray
    ) -> tuple[float, Columns]:
        """A master's sound bound, with its fill when `fill` is on, and the fill's 3-cycles,
        the next master's extra columns (none when off)."""
        if not self.fill:
            return self.bound_of(cols, mu), Columns.of([])
        shaved, fill, weight = self._filled(order, cols, mu)
        return self.bound_of(cols + fill, np.concatenate([shaved, weight])), fill

    def _price(self, order: Sequence[int], ell: np.ndarray, hop: float) -> Columns:
        """Cycles (as pair ids) with positive reduced cost: for each arc the order reverses,
        its `per_arc_pdlp` or `per_arc_ipm` shortest closing paths (by first hop) in the DAG
        of the arcs it keeps."""
        P = np.asarray(order, dtype=np.int64)
        pid = self.pid[np.ix_(P, P)]
        keep = np.triu(self.pref[np.ix_(P, P)], 1)
        L = ell[pid] + hop
        dist, nxt = dag_all_pairs(L, keep)
        rp, rq = np.nonzero(np.triu(~keep, 1) & (self.cap[pid] > 0))
        if not len(rp):
            return Columns.of([])
        base = 1.0 - ell[pid[rp, rq]]
        hops, length = best_first_hops(L, keep, dist, rp, rq, self._per_arc)
        r, j = np.nonzero(base[:, None] - length > RED_TOL)  # row-major: arc by arc, best first
        nodes, ptr = paths(nxt, hops[r, j], rq[r])
        nodes = np.insert(nodes, ptr[:-1], rp[r])  # p, then its closing path h ~> q
        return cycle_columns(pid, nodes, ptr + np.arange(len(ptr)))

    def _price_general(self, ell: np.ndarray, hop: float, limit: int) -> Columns:
        """Cycles of T with positive reduced cost, whatever the incumbent: for each arc u -> v,
        a shortest v ~> u path (Floyd-Warshall); the `limit` best, each cycle once."""
        L = ell[self.pid] + hop
        dist, nxt = floyd_warshall(L, self.pref)
        u, v = np.nonzero(self.pref & (self.cap[self.pid] > 0))
        red = 1.0 - ell[self.pid[u, v]] - dist[v, u]
        pick = np.nonzero(red > RED_TOL)[0]
        pick = pick[np.argsort(-red[pick], kind="stable")][:limit]
        cols = cycle_columns(self.pid, *paths(nxt, v[pick], u[pick]))  # v ~> u, then u -> v
        seen: set[tuple[int, ...]] = set()
        first = np.zeros(len(cols), dtype=bool)
        for k in range(len(cols)):
            key = tuple(sorted(cols.ids[cols.ptr[k] : cols.ptr[k + 1]].tolist()))
            first[k] = key not in seen
            seen.add(key)
        return cols.select(first)

    def packing_lp(
        self, cols: Sequence[np.ndarray] | Columns, cap_scale: float = 1.0
    ) -> tuple[Any, np.ndarray]:
        """The master LP in HiGHS: max sum mu over the columns (rows: the capacities of the arcs
        they use, times cap_scale); returns the model and those arcs' pair ids (row order)."""
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        used, A = _incidence(cols)
        m, k = A.shape
        h.addRows(m, np.full(m, -highspy.kHighsInf), cap_scale * self.cap[used], 0,
                  np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))  # fmt: skip
        h.addCols(k, np.full(k, -1.0), np.zeros(k), np.full(k, highspy.kHighsInf), A.nnz,
                  A.indptr[:-1].astype(np.int32), A.indices.astype(np.int32), A.data)  # fmt: skip
        return h, used

    def _master(
        self, cols: Columns, deadline: Deadline, tol: float
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Solve the master at `tol` (down to `tight_tol`: by `self.master`; finer: HiGHS's
        interior point);
        (mu, arc duals) or None when stopped by the deadline or without values."""
        pdlp = self.master == "pdlp" and tol >= self.tuning.tight_tol
        solved = (self._master_pdlp if pdlp else self._master_ipm)(cols, deadline, tol)
        if solved is None or deadline.passed():
            return None
        mu, used, row_dual = solved
        if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(row_dual))):
            return None
        ell = np.zeros(len(self.cap))
        ell[used] = np.maximum(0.0, -row_dual)
        return mu, ell

    def _master_pdlp(
        self, cols: Columns, deadline: Deadline, tol: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The master by OR-Tools' PDLP (`threads` threads over `pdlp_shards` shards, from
        scratch): mu, row arcs, row duals."""
        from ortools.pdlp import solvers_pb2
        from ortools.pdlp.python import pdlp

        used, A = _incidence(cols)
        m, k = A.shape
        qp = pdlp.QuadraticProgram()
        qp.objective_vector = np.full(k, -1.0)
        qp.constraint_matrix = A
        qp.constraint_lower_bounds = np.full(m, -np.inf)
        qp.constraint_upper_bounds = self.cap[used]
        qp.variable_lower_bounds = np.zeros(k)
        qp.variable_upper_bounds = np.full(k, np.inf)
        params = solvers_pb2.PrimalDualHybridGradientParams()
        params.num_threads = self.threads
        params.num_shards = self.tuning.pdlp_shards
        crit = params.termination_criteria
        crit.simple_optimality_criteria.eps_optimal_relative = tol
        crit.simple_optimality_criteria.eps_optimal_absolute = 1e-2 * tol
        left = deadline.remaining(floor=0.01)  # PDLP's one conversion
        if left is not None:
            crit.time_sec_limit = left
        res = pdlp.primal_dual_hybrid_gradient(qp, params)
        mu, dual = np.asarray(res.primal_solution), np.asarray(res.dual_solution)
        if len(mu) != k or len(dual) != m:
            return None
        return mu, used, dual

    def _master_ipm(
        self, cols: Columns, deadline: Deadline, tol: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The master by HiGHS's interior point without crossover: mu, row arcs, row duals."""
        h, used = self.packing_lp(cols)
        options: dict[str, Any] = {
            "threads": 1,
            "solver": "ipm",
            "run_crossover": "off",
            "ipm_optimality_tolerance": tol,
        }
        for name, value in options.items():
            h.setOptionValue(name, value)
        if self.seed is not None:
            h.setOptionValue("random_seed", solver_seed(self.seed))
        left = deadline.remaining(floor=0.01)  # HiGHS's one conversion
        if left is not None:
            h.setOptionValue("time_limit", left)
            interrupt_after(h, lambda: deadline)
        h.run()
        sol = h.getSolution()  # at a loose tolerance IPX may end 'unknown' with valid values
        if not (sol.value_valid and sol.dual_valid):
            return None
        mu = np.asarray(sol.col_value, dtype=float)
        return mu, used, np.asarray(sol.row_dual, dtype=float)

    def _rounded(self, ell: np.ndarray) -> list[int]:
        """An order from the duals read as reversal fractions, improved by insertion descent
        (the compiled one: `order_search.descend`)."""
        y = np.minimum(ell[self.pid], 1.0)
        Y = np.where(self.pref, 1.0 - y, y)
        np.fill_diagonal(Y, 0.0)
        rank = np.argsort(-Y.sum(axis=1), kind="stable")  # jobs by their 'before' mass
        return [int(i) for i in descend(self.W, rank)]

    def _first_lengths(self) -> np.ndarray:
        """Arc lengths of the first pricing, before any master: `hop` / cap (at most `first_max`),
        so that the first columns take the widest paths and spread over the arcs (with every
        first length 0, ties went to the first hops nearest the reversed arc's tail;
        docs/lop.md)."""
        return np.minimum(self.tuning.hop / np.maximum(self.cap, 1e-300), self.tuning.first_max)

    def _early_tol(self, loose: float, cost: float, bound: float) -> float:
        """The master's tolerance: `loose`, or coarser while the gap is a large share of the
        deficit (`gap_share` of it, at most `early_tol`): a master need not be more accurate than
        a tenth of the gap it works on."""
        if loose < self.tuning.loose_tol:
            return loose
        share = (cost - bound) / max(cost - self.pair_min, 1e-300)
        return float(min(self.tuning.early_tol, max(loose, self.tuning.gap_share * share)))

    def certify(
        self, order: Sequence[int], close_abs: float, deadline: Deadline = NO_DEADLINE
    ) -> PackingOutcome:
        """Column generation from `order` until the packing's bound is within close_abs of the
        best order's cost, no column prices out, or the deadline."""
        best = list(order)
        cost = lop_cost(self.W, best)
        bound = self.pair_min
        cols = Columns.of([])
        ell = self._first_lengths()
        stats: dict[str, Any] = {
            "packing_rounds": 0,
            "packing_columns": 0,
            "packing_fill_columns": 0,
            "packing_master_s": 0.0,
        }
        history: list[float] = []
        general = exact = False
        t = self.tuning
        loose = t.loose_tol if self.master == "pdlp" else t.fine_tol
        for _ in range(t.max_rounds):
            if bound >= cost - close_abs or deadline.passed():
                break
            history.append(bound)
            if not exact and _stalled(history, close_abs, cost - close_abs, general, self.tuning):
                step = _next_step(loose, general, self.tuning)
                stats.setdefault(f"packing_{step}_from_round", stats["packing_rounds"])
                loose = {"fine": t.fine_tol, "tight": t.tight_tol}.get(step, loose)
                general, exact = general or step == "general", step == "exact"
                history = [bound]
            hop, tol = (0.0, t.exact_tol) if exact else (t.hop, self._early_tol(loose, cost, bound))
            new = Columns.of([]) if general else self._price(best, ell, hop)
            if not len(new):  # restricted pricing is exhausted or stalled: price every cycle of T
                stats.setdefault("packing_general_from_round", stats["packing_rounds"])
                general = True
                new = self._price_general(ell, hop, t.general_limit)
            if not len(new) and not exact and len(cols):  # loose master, biased pricing: redo
                stats["packing_exact_from_round"] = stats["packing_rounds"]
                exact, tol = True, t.exact_tol
            elif not len(new):
                break
            cols += new
            stats["packing_columns"] += len(new)
            t_master = time.perf_counter()
            solved = self._master(cols, deadline, tol)
            stats["packing_master_s"] += time.perf_counter() - t_master
            if solved is None:
                break
            mu, ell = solved
            stats["packing_rounds"] += 1
            value, fill = self._bound_and_fill(best, cols, mu)
            bound = max(bound, value)
            stats["packing_fill_columns"] += len(fill)
            cand = self._rounded(ell)
            c = lop_cost(self.W, cand)
            if c < cost:
                best, cost = cand, c
            keep = mu > t.purge_rel * float(mu.max())
            cols = (cols.select(keep) if keep.any() else cols) + fill
        closed = bound >= cost - close_abs
        stopped = not closed and deadline.passed()
        return PackingOutcome(best, cost, bound, closed, stats, stopped)
