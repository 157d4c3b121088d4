"""Benchmark: a depth-first branch-and-cut on lpcut's LP, separating 3-cycles at every node
(measured here; lpcut does not use it).

lpcut hands a block whose LP rounds stall to HiGHS's MIP on the rows it has, and HiGHS adds no
row of ours during its search (it takes no user cuts: ERGO-Code/HiGHS #3078). The anchor of
issue #41 (pauljngr/PACE2024, Cbc) separates at every node. This prototype measures what that
buys on the same LP, in Python around highspy:

1. the root: the block model exactly as `lop_graph.solve_graph` builds it (`block_factory`,
   tuned, forced pairs and twins as there), the start search, lpcut's LP rounds and the stall
   search (`HighsCutModel.lp_rounds`, `stall_search`); a block they close is done;
2. otherwise one LP by the interior point with crossover (a vertex to warm-start from), then a
   depth-first search: each node fixes one more pair (x_j = 0 or 1), is re-solved by HiGHS's
   dual simplex from the last basis, and runs up to NODE_ROUNDS rounds of the violated
   3-cycles (`exact_lpcut.violated_cycles`, at most NODE_CUTS a round; every row stays, valid
   for every order); it is pruned when its bound, rounded up, reaches the best order's cost;
   otherwise every free pair whose reversal would lift the bound of the node's duals to that
   cost is fixed in the node's subtree (reduced-cost fixing, `reduced_cost_fixings`).

Every bound is `exact_lpcut.lagrangian_value` of the node's row duals with the node's fixed
pairs (a lower bound over the orders that respect them; the two children of a node split its
orders), rounded up as `lop.integer_bound` does (integer costs); HiGHS's word is used only for
which node is infeasible (pruned, counted). The run's bound is the smallest over the open
nodes; the block is `optimal` when no node is open. Each integral LP solution without a
violated 3-cycle, and every node's rounded order (`lop.rounded_order`), is offered as an
incumbent. Run: `python -m schedlab.experiments.bench bench_branchcut [--quick] [--lop-dir DIR]
[--time-limit S] [--branching fractional|cost]`: seeded uniform matrices, or the largest block
of every PACE `.gr` in DIR.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.errors import InvalidInput

if TYPE_CHECKING:
    from schedlab.solvers.sojourn.exact_lpcut import HighsCutModel
    from schedlab.solvers.validate import Deadline

NODE_ROUNDS = 6  # 3-cycle rounds per node at most
NODE_CUTS = 1000  # 3-cycles added per node round at most, the most violated
NODE_MIN_GAIN = 0.05  # a node's rounds stop when the bound rises by less than this (cost units)
PURGE_EVERY = 25  # every this many nodes (and once at the root), rows slack at the node's LP
# optimum are deleted (`HighsCutModel._purge_slack_rows`; separation re-adds a row violated later)
INT_TOL = 1e-6  # an LP value this close to 0 or 1 counts as integral
UNIT = 2.0**-53  # the unit roundoff of float64 (`reduced_cost_fixings`' error margin)
BRANCHINGS = ("fractional", "cost")  # `BranchCut.branch_column`
TIME_LIMIT_S = 600.0
QUICK_LIMIT_S = 60.0
UNIFORM = ((20, 1), (25, 0), (30, 2))  # (n, seed) of `bench_ladders.uniform_matrix`
QUICK_UNIFORM = ((20, 1),)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class Node:
    """A subproblem: the pairs fixed by branching (column -> 0 or 1) and its parent's bound."""

    fix: dict[int, int]
    parent_lb: float
    depth: int


@dataclass
class BranchCutRun:
    """One block's measurement (see the module's docstring); costs in the block's own."""

    name: str
    n: int
    status: str
    value: float
    bound: float
    root_bound: float
    nodes: int = 0
    pruned: int = 0
    infeasible: int = 0
    cuts: int = 0
    max_depth: int = 0
    rc_fixed: int = 0
    root_s: float = 0.0
    tree_s: float = 0.0
    lp_s: float = 0.0
    separate_s: float = 0.0

    def row(self) -> dict[str, Any]:
        return {
            "instance": self.name, "block n": self.n, "status": self.status,
            "value": f"{self.value:,.0f}", "bound": f"{self.bound:,.0f}",
            "root bound": f"{self.root_bound:,.2f}", "nodes": self.nodes,
            "pruned": self.pruned,
            "infeasible": self.infeasible, "node cuts": self.cuts, "depth": self.max_depth,
            "rc fixed": self.rc_fixed,
            "root s": f"{self.root_s:.1f}", "tree s": f"{self.tree_s:.1f}",
            "tree LP s": f"{self.lp_s:.1f}", "separation s": f"{self.separate_s:.1f}",
        }  # fmt: skip


def reduced_cost_fixings(
    d: np.ndarray,
    s: float,
    cols: np.ndarray,
    coef: np.ndarray,
    y: np.ndarray,
    fixed: np.ndarray,
    got: float,
    ub: float,
) -> dict[int, tuple[int, float]]:
    """column -> (the value it can be fixed at, the integer bound on the orders that take the
    other value) for every free column (`fixed` -1) where that bound reaches `ub`.

    `got` is `lagrangian_value` of the duals y >= 0 (a lower bound over the orders that respect
    `fixed`), whose column j contributes s min(0, red_j), red = d + A^T y; an order with x_j = 1
    where red_j > 0 (or x_j = 0 where red_j < 0) has cost at least got + s |red_j|, as
    Lagrangian relaxation with x_j held there gives. Integer programming's reduced-cost fixing,
    with a floating-point margin: red_j's
    rounding error, at most gamma_k (|d_j| + sum of its |y_i|) as in `lagrangian_value`, is
    taken off, and the rest rounds up as `lop.integer_bound` does (integer costs)."""
    from schedlab.solvers.sojourn.lop import ROUND_MARGIN

    red = d.copy()
    np.add.at(red, cols.ravel(), (coef * y[:, None]).ravel())
    mass = np.abs(d)
    np.add.at(mass, cols.ravel(), np.repeat(y, cols.shape[1]))
    k = int(np.bincount(cols.ravel()).max()) if cols.size else 0
    gamma = 2.0 * (k + 8) * UNIT
    lift = got + s * np.abs(red) - s * gamma * mass - 4.0 * UNIT * (abs(got) + s * np.abs(red))
    bound = np.ceil(lift - ROUND_MARGIN)
    hit = np.flatnonzero((fixed < 0) & (red != 0.0) & (bound >= ub))
    return {int(j): (0 if red[j] > 0 else 1, float(bound[j])) for j in hit}


def root_model(W: np.ndarray, forced: np.ndarray, seed: int, deadline: Deadline) -> HighsCutModel:
    """lpcut's tuned crossing-block model of W after its LP phase (module docstring, step 1)."""
    from schedlab.solvers.sojourn.exact_lpcut import HighsCutModel, lpcut_factory
    from schedlab.solvers.sojourn.lop import (
        INTEGER_CLOSE_SLACK,
        insertion_descent,
        order_from_before,
        preference_tournament,
    )
    from schedlab.solvers.sojourn.lop_graph import block_factory
    from schedlab.solvers.sojourn.lpcut_options import LpcutOptions

    factory = lpcut_factory(LpcutOptions(route="lp"), seed, integral=True)
    model = block_factory(factory, forced)(W, deadline, INTEGER_CLOSE_SLACK)
    assert isinstance(model, HighsCutModel)
    model._offer(insertion_descent(W, order_from_before(preference_tournament(W))))
    model.search_start_kicks(deadline)
    model.lp_solver = model.pick_lp_solver()
    model.lp_rounds(deadline)
    model.stall_search(deadline)
    return model


class BranchCut:
    """The depth-first search of step 2 on a `root_model` (its HiGHS LP, rows and incumbent)."""

    def __init__(
        self,
        model: HighsCutModel,
        deadline: Deadline,
        log: Callable[[str], None],
        branching: str = "fractional",
        rc_fixing: bool = True,
    ) -> None:
        from schedlab.solvers.sojourn.lop import integer_bound

        if branching not in BRANCHINGS:
            raise InvalidInput(f"branching: one of {', '.join(BRANCHINGS)} (got {branching!r})")
        self.m, self.deadline, self.log, self.branching = model, deadline, log, branching
        self.ceil = integer_bound
        base = np.full(len(model.d), -1, np.int8) if model.fixed is None else model.fixed
        self.base = base.copy()
        self.current: dict[int, int] = {}  # the pairs fixed in HiGHS now, beyond the base
        self.clock = {"lp": 0.0, "separate": 0.0}
        self.nodes = self.infeasible = self.cuts = self.max_depth = 0
        self.pruned = 0  # nodes whose bound, rounded up, met the best order's cost
        self.rc_fixing = rc_fixing  # fix pairs by reduced cost at every node (`_fix_by_rc`)
        self.rc_fixed = 0  # pairs so fixed, summed over the nodes
        self.rc_log: list[tuple[dict[int, int], int, int, float]] | None = None  # set to a
        # list: each fixing as (the node's fixed pairs before it, column, value, the bound it
        # rests on), for a check against an independent solver (tests)

    @property
    def ub(self) -> float:
        return float(self.m.order_cost)

    def _apply(self, fix: dict[int, int]) -> None:
        """Set HiGHS's column bounds and the model's `fixed` to the base plus `fix`."""
        free = [j for j in self.current if j not in fix]
        changed = [j for j, v in fix.items() if self.current.get(j) != v]
        if free:
            idx = np.asarray(free, dtype=np.int32)
            self.m.h.changeColsBounds(len(idx), idx, np.zeros(len(idx)), np.ones(len(idx)))
        if changed:
            idx = np.asarray(changed, dtype=np.int32)
            v = np.asarray([fix[j] for j in changed], dtype=float)
            self.m.h.changeColsBounds(len(idx), idx, v, v)
        fixed = self.base.copy()
        for j, val in fix.items():
            fixed[j] = val
        self.m.fixed, self.current = fixed, dict(fix)

    def _lp(self) -> np.ndarray | None:
        """Solve the LP by dual simplex from the last basis: x, or None if HiGHS proves it
        infeasible or stopped for time (then the deadline has passed); any other end of HiGHS's
        run is an error (a node it could not solve cannot be pruned soundly)."""
        self.m._time_limit(self.deadline)  # HiGHS counts every run of the object: added there
        t = time.perf_counter()
        self.m.h.run()
        self.clock["lp"] += time.perf_counter() - t
        status, kinds = self.m.h.getModelStatus(), self.m.hs.HighsModelStatus
        if status == kinds.kOptimal:
            return np.asarray(self.m.h.getSolution().col_value, dtype=float)
        if status == kinds.kInfeasible or self.deadline.passed():
            return None
        raise RuntimeError(f"HiGHS: {self.m.h.modelStatusToString(status)} at a node")

    def _separate(self, x: np.ndarray) -> int:
        """Offer x's rounded order, add the violated 3-cycles at x (at most NODE_CUTS); their
        number."""
        from schedlab.solvers.sojourn.exact_lpcut import violated_cycles
        from schedlab.solvers.sojourn.lop import rounded_order

        t = time.perf_counter()
        Y = self.m._tournament(x)
        self.m._offer(rounded_order(self.m.W, Y))
        cyc = violated_cycles(Y, NODE_CUTS)
        self.clock["separate"] += time.perf_counter() - t
        self.m.add_cycles(cyc)
        self.cuts += len(cyc)
        return len(cyc)

    def process(self, node: Node) -> tuple[float, np.ndarray | None]:
        """(the node's sound bound, its fractional x to branch on, or None: pruned, closed,
        or stopped for time). Rounds go on past NODE_ROUNDS while the LP solution is integral
        with a violated 3-cycle (nothing to branch on)."""
        self._apply(node.fix)
        self.nodes += 1
        self.max_depth = max(self.max_depth, node.depth)
        lb, last, rounds = node.parent_lb, -math.inf, 0
        while True:
            x = self._lp()
            if x is None:
                if self.deadline.passed():
                    return lb, None  # stopped for time: the caller keeps the node open
                self.infeasible += 1
                return math.inf, None
            got = self.m.lagrangian_bound()
            lb = max(lb, -math.inf if got is None else got)
            if self.ceil(lb) >= self.ub:
                self.pruned += 1
                return lb, None
            if self.rc_fixing and got is not None:
                self._fix_by_rc(node, got)
            rounds += 1
            integral = bool(np.all(np.minimum(x, 1.0 - x) <= INT_TOL))
            if self._separate(x) == 0:
                return lb, (None if integral else x)  # integral: an order, now the incumbent
            if self.deadline.passed():
                return lb, None
            if not integral and (rounds >= NODE_ROUNDS or lb - last < NODE_MIN_GAIN):
                return lb, x
            last = lb

    def _fix_by_rc(self, node: Node, got: float) -> None:
        """Fix, in `node` and so its subtree, every free pair whose other value would lift the
        bound `got` of the current duals to the best order's cost (`reduced_cost_fixings`): no
        order better than the best one reverses it there."""
        assert self.m.fixed is not None  # set by `_apply`
        sol = self.m.h.getSolution()
        y = np.maximum(0.0, -np.asarray(sol.row_dual, dtype=float))
        cols, coef = np.concatenate(self.m.rows_cols), np.concatenate(self.m.rows_coef)
        fix = reduced_cost_fixings(self.m.d, self.m.s, cols, coef, y, self.m.fixed, got, self.ub)
        if not fix:
            return
        if self.rc_log is not None:
            self.rc_log += [(dict(node.fix), j, v, b) for j, (v, b) in fix.items()]
        node.fix.update({j: v for j, (v, _) in fix.items()})
        self.rc_fixed += len(fix)
        self._apply(node.fix)

    def branch_column(self, x: np.ndarray) -> int:
        """The free fractional pair to branch on (`BRANCHINGS`): by `self.branching`, the most
        fractional x (ties to the costliest to reverse), or the largest |d_j| min(x, 1 - x)
        (the pair whose rounding moves the cost most)."""
        frac = np.minimum(x, 1.0 - x)
        assert self.m.fixed is not None  # set by `_apply`
        frac[(self.m.fixed >= 0) | (frac <= INT_TOL)] = 0.0
        weight = np.abs(self.m.d)
        score = frac + 1e-3 * weight if self.branching == "fractional" else frac * weight
        return int(np.argmax(score))

    def run(self, root_lb: float, max_nodes: int | None = None) -> float:
        """Search from the root until no node is open, the deadline or `max_nodes` nodes; the
        bound over the nodes left open (the best order's cost if none is)."""
        stack = [Node({}, root_lb, 0)]
        while stack:
            if self.deadline.passed() or (max_nodes is not None and self.nodes >= max_nodes):
                return min(nd.parent_lb for nd in stack)
            node = stack.pop()
            if self.ceil(node.parent_lb) >= self.ub:
                self.pruned += 1
                continue
            lb, x = self.process(node)
            if self.nodes % PURGE_EVERY == 0 and x is not None:
                self.m._purge_slack_rows()
            if x is None:
                if self.deadline.passed() and self.ceil(lb) < self.ub:
                    stack.append(Node(node.fix, lb, node.depth))
                continue
            j = self.branch_column(x)
            first = 1 if x[j] >= 0.5 else 0  # the child nearer the LP, explored first
            for v in (1 - first, first):
                stack.append(Node({**node.fix, j: v}, lb, node.depth + 1))
            if self.nodes % 50 == 0:
                open_lb = min(nd.parent_lb for nd in stack)
                rows = sum(len(r) for r in self.m.rows_rhs)
                self.log(f"[bench_branchcut] {self.nodes} nodes, {len(stack)} open, best "
                         f"{self.ub:,.0f}, bound {open_lb:,.2f}, depth {node.depth}, cuts "
                         f"{self.cuts:,}, rc fixed {self.rc_fixed:,}, rows {rows:,}, LP "
                         f"{self.clock['lp']:.1f} s, separation "
                         f"{self.clock['separate']:.1f} s")  # fmt: skip
        return self.ub


def solve_block(name: str, W: np.ndarray, forced: np.ndarray, inner: float = 0.0,
                time_limit: float = TIME_LIMIT_S, seed: int = 0, max_nodes: int | None = None,
                branching: str = "fractional", rc_fixing: bool = True,
                log: Callable[[str], None] = _stderr,
                rc_log: list[tuple[dict[int, int], int, int, float]] | None = None,
                ) -> BranchCutRun:  # fmt: skip
    """Steps 1-2 of the module's docstring on the block W within `time_limit` seconds (and at
    most `max_nodes` nodes); the value and bounds include `inner` (a PACE block's merged
    twins' own crossings); `branching` is `BranchCut.branch_column`'s rule; `rc_fixing`
    fixes pairs by reduced cost at every node (`BranchCut._fix_by_rc`), each fixing appended
    to `rc_log` when one is given (`BranchCut.rc_log`)."""
    from schedlab.solvers.sojourn.lop import integer_bound
    from schedlab.solvers.validate import Deadline

    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit)
    model = root_model(W, forced, seed, deadline)
    root_lb = -math.inf if model.best_lb is None else float(model.best_lb)
    root_s = time.perf_counter() - t0
    log(f"[bench_branchcut] {name}: root {root_s:.1f} s, best {model.order_cost + inner:,.0f}, "
        f"bound {root_lb + inner:,.2f}, closed {model.closed_by_lp}")  # fmt: skip
    out = BranchCutRun(name, W.shape[0], "optimal", model.order_cost + inner, 0.0,
                       root_lb + inner, root_s=root_s)  # fmt: skip
    if model.closed_by_lp:
        out.bound = integer_bound(root_lb) + inner
        return out
    bc = BranchCut(model, deadline, log, branching, rc_fixing)
    bc.rc_log = rc_log
    bc.m.h.setOptionValue("solver", "ipm")
    bc.m.h.setOptionValue("run_crossover", "on")
    bc._lp()  # a vertex: the basis the dual simplex then warm-starts from
    model._purge_slack_rows()
    bc.m.h.setOptionValue("solver", "simplex")
    bc.m.h.setOptionValue("simplex_strategy", 1)  # dual
    lb = bc.run(root_lb, max_nodes)
    out.value = model.order_cost + inner
    out.bound = min(integer_bound(lb), model.order_cost) + inner
    out.status = "optimal" if out.bound >= out.value else "feasible"
    out.pruned, out.rc_fixed = bc.pruned, bc.rc_fixed
    out.nodes, out.infeasible, out.cuts, out.max_depth = (bc.nodes, bc.infeasible, bc.cuts,
                                                          bc.max_depth)  # fmt: skip
    out.tree_s = time.perf_counter() - t0 - root_s
    out.lp_s, out.separate_s = bc.clock["lp"], bc.clock["separate"]
    return out


Instance = tuple[str, np.ndarray, np.ndarray, float]  # name, W, forced, inner


def instances(quick: bool, lop_dir: str | None) -> Iterator[Instance]:
    """The largest block of every PACE `.gr` file in lop_dir, else seeded uniform matrices."""
    from schedlab.experiments.bench.bench_ladders import largest_block, uniform_matrix
    from schedlab.solvers.sojourn.lop_graph import read_ocr_file

    if lop_dir is not None:
        files = sorted(Path(lop_dir).glob("*.gr"), key=lambda p: (len(p.stem), p.stem))
        if not files:
            raise InvalidInput(f"--lop-dir: no .gr file in {lop_dir}")
        return ((p.name, *largest_block(read_ocr_file(p))) for p in files)
    made = [(f"uniform n={n} seed={s}", uniform_matrix(n, s))
            for n, s in (QUICK_UNIFORM if quick else UNIFORM)]  # fmt: skip
    return iter([(name, W, np.zeros(W.shape, dtype=bool), 0.0) for name, W in made])


@register_benchmark("bench_branchcut")
def run(
    quick: bool = False,
    lop_dir: str | None = None,
    time_limit: float | None = None,
    branching: str = "fractional",
) -> None:
    """Print the table of `solve_block` over `instances(quick, lop_dir)`, a row as each ends."""
    if branching not in BRANCHINGS:
        raise InvalidInput(f"--branching: one of {', '.join(BRANCHINGS)} (got {branching!r})")
    from schedlab.solvers.validate import check_time_limit

    time_limit = check_time_limit(time_limit, "--time-limit")  # seconds in (0, the cap]
    limit = time_limit if time_limit is not None else QUICK_LIMIT_S if quick else TIME_LIMIT_S
    rows: list[list[Any]] = []
    for name, W, forced, inner in instances(quick, lop_dir):
        row = solve_block(name, W, forced, inner, limit, branching=branching).row()
        rows.append(list(row.values()))
        print(format_table(list(row), rows[-1:]), flush=True)
    if rows:
        print("\n" + format_table(list(row), rows), flush=True)
