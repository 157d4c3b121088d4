"""The linear-ordering core: min over orders of sum_{a before b} W[a, b], block by block.

Shared by every exact back end of a linear-ordering problem: sojourn's MILP, CP-SAT and lpcut
on the objectives A and B (value(order) = sum_i c_i + sum_{a before b} W[a, b],
`solvers.sojourn.lop`), and lpcut on LOLIB matrices and PACE graphs (`lop.matrix`,
`lop.graph_route`). The exact models work block by block:
`preference_blocks` splits the jobs into blocks B_1, ..., B_r such that every job of an earlier
block is strictly better placed before every job of a later block; then every optimal order is
the concatenation of optimal orders of the blocks (proof and numerical cross-check in
`theory/sojourn/lop.py`). Inside a block a back end (MILP or CP-SAT) solves the classic model
with precedence binaries x_ab (a < b) and triangle inequalities, either all of them up front
("all") or added lazily: solve, find the 3-cycles of the returned tournament, add their
triangles, repeat until the tournament is transitive (exact: every round solves a relaxation,
and the final solution is feasible for the full model).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.order_search import descend, job_descent
from schedlab.solvers.result import PROOF_TOL
from schedlab.solvers.validate import Deadline, DeadlineExceeded, check_alloc

TIE_REL_TOL = 1e-9  # |W[a,b] - W[b,a]| below this times max|W| counts as a tie (rounding-safe);
# a tie tolerance of the block decomposition, not the proof tolerance (result.PROOF_TOL)
SLACK_SHARE = 0.9  # of the proof tolerance (result.PROOF_TOL) that the blocks' slacks may use
# (`block_slacks`); the rest covers float error, 1e5 times more than it needs
TRIANGLE_MODES = ("lazy", "all", "separate")  # separate: none up front, the back end cuts
Triple = tuple[int, int, int]
INTEGER_SLACK = 0.5  # a block of integer costs closes once its bound is this close to its cost
ROUND_MARGIN = 0.25  # ... and its bound b counts as ceil(b - ROUND_MARGIN): sound for a sound b
# (every order's cost is an integer), and a MIP dual bound that HiGHS's tolerances put a hair
# above the optimum still rounds to it
INTEGER_CLOSE_SLACK = 1.0 - ROUND_MARGIN - 0.01  # crossing blocks close once their bound is
# this close to their cost: ceil(b - ROUND_MARGIN) then equals the cost (a bound at a half
# closes without a MIP)


def integer_bound(lb: float) -> float:
    """The integer bound implied by a lower bound on an integer minimum (`ROUND_MARGIN`)."""
    return float(math.ceil(lb - ROUND_MARGIN)) if math.isfinite(lb) else lb


def is_integral(W: np.ndarray) -> bool:
    """Whether every entry of W is an integer small enough for exact float sums (< 2^50 in
    all): then every order's cost is an exact integer and bounds round up (`integer_bound`)."""
    return bool(np.all(W == np.round(W))) and float(np.abs(W).sum()) < 2.0**50


def check_triangles(mode: str, method: str) -> None:
    if mode not in TRIANGLE_MODES:
        raise InvalidInput(
            f"triangles: method {method} takes 'lazy' or 'all' (got {mode!r}); 'all' writes "
            "every triangle inequality up front, 'lazy' adds violated ones round by round"
        )


def lop_cost(W: np.ndarray, order: Sequence[int] | np.ndarray) -> float:
    """sum_{a before b} W[a, b] for `order` (a permutation of W's indices)."""
    o = np.asarray(order, dtype=np.int64)
    sub = W[np.ix_(o, o)]
    return float(np.triu(sub, 1).sum())


def pairwise_min_bound(W: np.ndarray) -> float:
    """sum over pairs of min(W[a,b], W[b,a]): a lower bound on every order's pair cost."""
    return float(np.triu(np.minimum(W, W.T), 1).sum())


def block_gap_abs(Wb: np.ndarray) -> float:
    """Absolute gap for one block's MILP: a tiny share of a lower bound on the block's pair
    cost (its pairwise minimum), computed from the block alone, so nothing runs before the
    block's model (whose time limit covers data preparation and returns an order)."""
    return 1e-11 * pairwise_min_bound(Wb)


def block_slacks(W: np.ndarray, blocks: Sequence[np.ndarray], offset: float = 0.0) -> list[float]:
    """How far each block's bound may stay below its cost: its share (by pairwise minimum) of
    SLACK_SHARE of the proof tolerance of the whole value. Sound: the value, offset + the pair
    cost of W (`offset`: B's constant term), is at least floor = offset +
    `pairwise_min_bound`(W), so slacks summing to SLACK_SHARE PROOF_TOL max(1, floor) keep
    the status rule of `certify`, with the rest of its tolerance for the float error between
    the blocks' costs and the value evaluated (about 1e-15 of it). Counting the offset widens
    the slack about 2x on B."""
    mins = np.array([pairwise_min_bound(W[np.ix_(b, b)]) for b in blocks])
    total = pairwise_min_bound(W)
    reserve = SLACK_SHARE * PROOF_TOL * max(1.0, offset + total)
    share = mins / total if total > 0 else np.full(len(blocks), 1.0 / max(len(blocks), 1))
    return [float(reserve * x) for x in share]


def preference_blocks(W: np.ndarray, rel_tol: float = TIE_REL_TOL) -> list[np.ndarray]:
    """Blocks of jobs in order such that a before b is strictly cheaper for every cross pair.

    Edge a -> b when W[a,b] - W[b,a] <= tol (a first is no worse, up to rounding). Sorting by
    out-degree (descending) lists the strong components of this semicomplete digraph
    contiguously and in topological order; we cut wherever no edge points back across the
    cut, so for a in an earlier block and b in a later one W[b,a] - W[a,b] > tol > 0.
    """
    n = W.shape[0]
    if n <= 1:
        return [np.arange(n)]
    scale = float(np.max(np.abs(W))) if W.size else 0.0
    tol = rel_tol * scale
    edge = (W - W.T) <= tol
    np.fill_diagonal(edge, False)
    perm = np.argsort(-edge.sum(axis=1), kind="stable")
    E = edge[np.ix_(perm, perm)]
    back = np.tril(E, -1).astype(np.int64)  # edges from a later position to an earlier one
    # crossing(k) = number of back edges from positions >= k to positions < k
    suffix = np.cumsum(back[::-1], axis=0)[::-1]  # suffix[v, u] = sum_{v' >= v} back[v', u]
    blocks, start = [], 0
    for k in range(1, n):
        if suffix[k, :k].sum() == 0:
            blocks.append(perm[start:k])
            start = k
    blocks.append(perm[start:])
    return blocks


def three_cycles(before: np.ndarray, limit: int = 20_000) -> list[Triple]:
    """Sorted triples (a<b<c) carrying a 3-cycle of the tournament `before` (a before b).

    A tournament is transitive iff it has no 3-cycle, so an empty list certifies a total order.
    """
    Y = before.astype(np.float64)
    paths = Y @ Y  # paths[a, c] = number of b with a -> b -> c
    hits = np.argwhere((paths > 0) & before.T)  # a -> b -> c and c -> a
    found: set[Triple] = set()
    for a, c in hits:
        for b in np.nonzero(before[a] & before[:, c])[0][:4]:
            t = tuple(sorted((int(a), int(b), int(c))))
            found.add((t[0], t[1], t[2]))
        if len(found) >= limit:
            break
    return sorted(found)


def order_from_before(before: np.ndarray) -> list[int]:
    """Order by number of predecessors (exact for a transitive tournament; a repair otherwise)."""
    preds = before.sum(axis=0)
    return [int(i) for i in np.argsort(preds, kind="stable")]


def before_matrix(order: Sequence[int], n: int) -> np.ndarray:
    pos = np.empty(n, dtype=np.int64)
    pos[np.asarray(order, dtype=np.int64)] = np.arange(n)
    return pos[:, None] < pos[None, :]


def triangles_all(n: int) -> list[Triple]:
    return list(itertools.combinations(range(n), 3))


# ---- back ends ------------------------------------------------------------------------------
@dataclass
class RoundResult:
    """One solve of the current (possibly relaxed) block model.

    `before`: the tournament of the best solution found (None if none); `proven`: the solver
    proved it optimal for the current model; `bound`: a proven lower bound on the current
    model's optimal pair cost (so also on the full block's), or None.
    """

    before: np.ndarray | None
    proven: bool
    bound: float | None
    stats: dict[str, Any] = field(default_factory=dict)


def skipped_round() -> RoundResult:
    """The result of a round not started: handing the model to the solver, which its time
    limit does not cover, would not fit in the time left."""
    return RoundResult(None, False, None, {"rounds_skipped_for_time": 1})


class BlockModel(Protocol):
    """A block LOP model: triangles can be added; `solve` runs until the deadline at most."""

    def add_triangles(self, triples: Sequence[Triple]) -> None: ...

    def solve(self, deadline: Deadline, hint: Sequence[int] | None) -> RoundResult: ...


#: Builds a block's model from its pair costs, the deadline and the block's slack (how far its
#: bound may stay below its cost: `block_slacks`); DeadlineExceeded once the deadline passes.
ModelFactory = Callable[[np.ndarray, Deadline, float], BlockModel]


@dataclass
class BlockOutcome:
    order: list[int]
    cost: float
    bound: float
    proven: bool
    stats: dict[str, Any]


_ADD_CHUNK = 4096
#: Memory reserved per variable pair of a block model (CP-SAT/PuLP), in bytes.
MODEL_BYTES_PER_PAIR = 400


def preference_tournament(W: np.ndarray) -> np.ndarray:
    """before[a, b]: a first is strictly cheaper, exact ties broken by index (a tournament)."""
    D = W - W.T
    idx = np.arange(W.shape[0])
    pref = (D < 0) | ((D == 0) & (idx[:, None] < idx[None, :]))
    np.fill_diagonal(pref, False)
    return pref


def rounded_order(W: np.ndarray, Y: np.ndarray) -> list[int]:
    """An order from a fractional tournament Y (Y[a, b]: share of a before b): jobs by their
    'before' mass, then insertion descent on the pair costs W (lpcut's LP and packing duals),
    by the compiled descent (`order_search.descend`): it runs after every LP round
    (docs/lop.md has its cost against the numpy loop it replaced)."""
    rank = np.argsort(-Y.sum(axis=1), kind="stable")
    return [int(i) for i in descend(W, rank)]


def insertion_descent(W: np.ndarray, order: Sequence[int], max_sweeps: int = 50) -> list[int]:
    """Local optimum of the pair cost under single-job insertion moves, from `order`.

    Moving the job at position x behind position y changes the cost by
    sum_{x<k<=y} (W[o_k, o_x] - W[o_x, o_k]) (and symmetrically forward); each job in turn
    takes its best move while one lowers the cost by more than 1e-13 max|W|. Compiled
    (`order_search.job_descent`, the same moves; docs/lop.md).
    """
    return [int(i) for i in job_descent(W, order, max_sweeps)]


def solve_block(
    Wb: np.ndarray,
    factory: ModelFactory,
    triangles: str,
    deadline: Deadline,
    shortcut: bool,
    warm_start: bool = False,
    slack: float = 0.0,
) -> BlockOutcome:
    """Exact LOP on one block with all or lazily added triangles, within the deadline.

    With `shortcut`, a transitive preference tournament is returned at once: its order puts
    every pair at min(W[a,b], W[b,a]), which is a lower bound on every order's cost. Without
    it (the plain model) the bound comes from the back end alone, so a plain run proves only
    what its solver proves. `slack` goes to the factory (`block_slacks`).
    """
    nb = Wb.shape[0]
    bound = pairwise_min_bound(Wb) if shortcut or nb <= 1 else -math.inf
    pref = preference_tournament(Wb)
    best_order = order_from_before(pref)
    best_cost = lop_cost(Wb, best_order)
    stats: dict[str, Any] = {"rounds": 0, "triangles": 0, "solver_calls": 0}
    if nb <= 1 or (shortcut and not three_cycles(pref, limit=1)):
        return BlockOutcome(best_order, best_cost, bound, True, stats)
    if warm_start:  # a good incumbent and MIP start / hint for the back end
        t = time.perf_counter()
        best_order = insertion_descent(Wb, best_order)
        stats["search_s"] = time.perf_counter() - t
        best_cost = lop_cost(Wb, best_order)
    proven = False
    if deadline.passed():
        return BlockOutcome(best_order, best_cost, bound, proven, stats)
    check_alloc(
        MODEL_BYTES_PER_PAIR * nb * (nb - 1) / 2,
        f"an exact model of a block of {nb} jobs",
        fix="use a heuristic (e.g. --method batchlocal)",
    )
    try:
        model = factory(Wb, deadline, slack)
    except DeadlineExceeded:
        stats["stopped_while_building"] = 1  # an int: solve_lop_matrix sums block stats
        return BlockOutcome(best_order, best_cost, bound, proven, stats)
    first: Iterator[Triple] = (
        itertools.combinations(range(nb), 3)
        if triangles == "all"
        else iter(())
        if triangles == "separate"
        else iter(three_cycles(pref))
    )
    while chunk := list(itertools.islice(first, _ADD_CHUNK)):  # building is slow: watch time
        if deadline.passed():
            return BlockOutcome(best_order, best_cost, bound, proven, stats)
        model.add_triangles(chunk)
        stats["triangles"] += len(chunk)
    while not deadline.passed():
        r = model.solve(deadline, best_order)
        stats["rounds"] += 1
        stats["solver_calls"] += 1
        for k, v in r.stats.items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                stats[k] = stats.get(k, 0) + v
            elif k == "route":
                stats["route"] = v  # the route the back end took (lpcut), kept per block
        if r.bound is not None:
            bound = max(bound, r.bound)
        if r.before is None:
            break
        cand = order_from_before(r.before)
        cost = lop_cost(Wb, cand)
        if cost < best_cost:
            best_order, best_cost = cand, cost
        cycles = three_cycles(r.before)
        if not cycles:
            proven = r.proven  # optimal for a relaxation and feasible for the full model
            break
        if not r.proven:
            break  # stopped inside a relaxed round: keep the repaired order and the bound
        model.add_triangles(cycles)
        stats["triangles"] += len(cycles)
    return BlockOutcome(best_order, best_cost, bound, proven, stats)


def solve_lop_matrix(
    W: np.ndarray,
    factory: ModelFactory,
    *,
    deadline: Deadline,
    triangles: str = "lazy",
    decompose: bool = True,
    warm_start: bool = False,
    extra_stats: dict[str, Any] | None = None,
    offset: float = 0.0,
    integral: bool = False,
) -> BlockOutcome:
    """The linear-ordering core on a raw cost matrix W >= 0: min over orders of
    sum_{a before b} W[a, b], block by block (`decompose`), each block by `solve_block` with
    its slack (`block_slacks`; `offset`: the part of the value outside W, B's constant term).

    Returns the order, its pair cost, a proven lower bound on every order's pair cost, whether
    every block closed, and the stats (numbers summed over blocks; `routes`: the route each
    block that ran a solver took, when its back end names one). A sojourn objective builds W
    from its instance (`solve_lop`); a benchmark matrix from its file (`lop_matrix`).
    `integral` (W of integers, `is_integral`): every block's slack is INTEGER_SLACK and its
    bound rounds up (`integer_bound`), instead of the shares of the relative proof tolerance.
    """
    n = W.shape[0]
    blocks = preference_blocks(W) if decompose else [np.arange(n)]
    order: list[int] = []
    bound = 0.0
    proven = True
    stats: dict[str, Any] = {
        "blocks": len(blocks),
        "largest_block": max(len(b) for b in blocks),
        "solver_calls": 0,
        "lazy_rounds": 0,  # most model solves any one block needed (>= 2: lazy re-solves ran)
    }
    stats.update(extra_stats or {})
    routes: list[str] = []
    solved = 0
    label = np.empty(n, dtype=np.int64)
    slacks = [INTEGER_SLACK] * len(blocks) if integral else block_slacks(W, blocks, offset)
    for bi, blk in enumerate(blocks):
        label[blk] = bi
        Wb = W[np.ix_(blk, blk)]
        out = solve_block(Wb, factory, triangles, deadline, decompose, warm_start, slacks[bi])
        stats["lazy_rounds"] = max(stats["lazy_rounds"], out.stats["rounds"])
        order.extend(int(blk[i]) for i in out.order)
        bound += integer_bound(out.bound) if integral else out.bound
        proven &= out.proven
        solved += out.proven
        for k, v in out.stats.items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                stats[k] = stats.get(k, 0) + v
            elif k == "route":
                routes.append(str(v))
    if len(blocks) > 1:  # cross-block pairs sit in block order in every optimal order
        o = np.asarray(order, dtype=np.int64)
        cross = label[o][:, None] != label[o][None, :]
        bound += float(np.triu(W[np.ix_(o, o)] * cross, 1).sum())
    stats["blocks_proven"] = solved
    if routes:
        stats["routes"] = routes
    return BlockOutcome(order, lop_cost(W, order), bound, proven, stats)
