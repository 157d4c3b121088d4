"""CP-SAT model of the linear-ordering objectives A and B (OR-Tools).

Per block (see `solvers.lop.core`): Boolean x_ab = "a precedes b" for a < b, transitivity
as two clauses per triple (x_ab & x_bc -> x_ac, !x_ab & !x_bc -> !x_ac), all up front or
lazily. CP-SAT needs integer objective coefficients: each pair is written with a non-negative
cost, d_ab x_ab = |d_ab| lit_ab + min(0, d_ab) with lit_ab = x_ab (d_ab >= 0) or not x_ab
(d_ab < 0), d_ab = W[a,b] - W[b,a]; |d| is scaled by s (max |d| * s = 2^scale_bits) and
rounded *down*. The scaled model is then a relaxation of the true one (every order costs at
least its scaled cost / s), so CP-SAT's bound L converts soundly as P + L / s with no slack
term, where P = sum over pairs of min(W[a,b], W[b,a]) (= const + shift, summed without
cancellation), and the returned order, re-evaluated by the closed form, is off that bound only
by the rounding of the pairs it places against their preference (at most 1 / s each), not by a
worst case over all pairs (which, against a large const, could exceed the proof tolerance).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.cpsat import cpsat_solver
from schedlab.solvers.lop.core import RoundResult, Triple, pairwise_min_bound, skipped_round
from schedlab.solvers.options import shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.lop import refuse_non_lop, solve_lop
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING
from schedlab.solvers.sojourn.problem import SUBJECT, SojournProblem
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed

MAX_SCALE_BITS = 40
# CP-SAT copies the model to C++ and loads it before its clock starts: 0.2-0.35x the time spent
# adding the constraints in Python (plain model, n = 100..300); reserved with margin
HANDOVER_FACTOR = 0.5


def default_scale_bits(pairs: int) -> int:
    """Largest |coefficient| 2^bits, with bits <= 40 and sum of |coefficients| <= 2^60."""
    return max(8, min(MAX_SCALE_BITS, 60 - int(pairs).bit_length()))


def scale_costs(
    d: np.ndarray, bits: int | None = None
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(w, flip, s, shift): non-negative integer weights w = floor(s |d|), the literals to
    negate (flip = d < 0), the scale s and shift = sum of the negative d.

    For every 0/1 vector x, with lit = x where not flip and 1 - x where flip:
    sum d x = shift + sum |d| lit >= shift + (sum w lit) / s, so the scaled model is a
    relaxation and its bound needs no slack. An order's cost exceeds its scaled cost by at most
    1 / s per pair it places against the pair's preference (lit = 1); with 2^40 as the largest
    weight that is about 1e-12 of the largest |d| per such pair, far below the proof tolerance.
    """
    bits = default_scale_bits(d.size) if bits is None else bits
    a = np.abs(d)
    top = float(np.max(a)) if d.size else 0.0
    s = float(2**bits) / top if top > 0 else 1.0
    w = np.floor(a * s)
    w -= w / s > a  # the product s |d| may round up onto an integer: stay below |d|
    flip = d < 0
    return w.astype(np.int64), flip, s, float(d[flip].sum())


class CpSatBlockModel:
    """The transitivity model of one block, re-solved (with a hint) after each round."""

    def __init__(
        self,
        Wb: np.ndarray,
        *,
        num_workers: int,
        seed: int | None,
        max_deterministic_time: float | None,
        scale_bits: int | None,
        deadline: Deadline = NO_DEADLINE,
    ) -> None:
        self.n = n = Wb.shape[0]
        self.num_workers = num_workers
        self.seed = seed
        self.max_deterministic_time = max_deterministic_time
        # const + shift = sum over pairs of min(W[a,b], W[b,a]), summed without the cancellation
        # of sum_{a<b} W[b,a] against the negative d (1e7 against -1e7 lost a value of 1e-9)
        self.base = pairwise_min_bound(Wb)
        self.build_s = 0.0  # seconds spent adding triangles (predicts the hand-over)
        from ortools.sat.python import cp_model  # imported on use: listing methods stays light

        self.model = cp_model.CpModel()
        self.x = {}
        for a in range(n):
            deadline.check()  # building n^2/2 variables can outlast the time limit
            for b in range(a + 1, n):
                self.x[a, b] = self.model.new_bool_var(f"x_{a}_{b}")
        self.pairs = list(self.x)
        d = np.array([Wb[a, b] - Wb[b, a] for a, b in self.pairs], dtype=float)
        self.w, flip, self.s, _shift = scale_costs(d, scale_bits)
        xs = [self.x[p] for p in self.pairs]
        self.index = np.array([v.index for v in xs], dtype=np.int64)
        lits = [~v if f else v for v, f in zip(xs, flip, strict=True)]
        self.model.minimize(cp_model.LinearExpr.weighted_sum(lits, [int(v) for v in self.w]))

    def add_triangles(self, triples: Sequence[Triple]) -> None:
        t0 = time.perf_counter()
        for a, b, c in triples:
            xab, xbc, xac = self.x[a, b], self.x[b, c], self.x[a, c]
            self.model.add_bool_or([~xab, ~xbc, xac])
            self.model.add_bool_or([xab, xbc, ~xac])
        self.build_s += time.perf_counter() - t0

    def solve(self, deadline: Deadline, hint: Sequence[int] | None) -> RoundResult:
        # the hand-over is not under CP-SAT's time limit: skip a round it would not fit in
        # (more than 0.9 of the time left; at n = 300 with every triangle it overran a 60 s
        # limit by 11 s), and keep its time out of CP-SAT's limit
        handover = HANDOVER_FACTOR * self.build_s
        if deadline.passed(within=handover / 0.9):
            return skipped_round()
        if hint is not None:
            pos = np.empty(self.n, dtype=np.int64)
            pos[np.asarray(hint, dtype=np.int64)] = np.arange(self.n)
            self.model.clear_hints()
            for (a, b), v in self.x.items():
                self.model.add_hint(v, bool(pos[a] < pos[b]))
        solver = cpsat_solver(
            num_workers=self.num_workers,
            seed=solver_seed(self.seed),  # 0 when no seed is given
            deadline=deadline.minus(handover),
            max_deterministic_time=self.max_deterministic_time,
            floor=0.001,
        )
        status = solver.solve(self.model)
        from ortools.sat.python import cp_model

        has = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        before = None
        if has:
            sol = np.asarray(solver.response_proto.solution, dtype=np.int64)[self.index]
            before = np.zeros((self.n, self.n), dtype=bool)
            for (a, b), v in zip(self.pairs, sol, strict=True):
                before[a, b] = bool(v)
                before[b, a] = not v
        # CP-SAT leaves the bound at 0 when it stops before presolve ends (UNKNOWN), so only
        # a run that found a solution reports a bound we trust.
        lb = float(solver.best_objective_bound) if has else math.nan
        bound = self.base + lb / self.s if math.isfinite(lb) else None
        stats = {
            "cpsat_conflicts": int(solver.num_conflicts),
            "cpsat_branches": int(solver.num_branches),
            "cpsat_deterministic_time": float(solver.deterministic_time),
        }
        return RoundResult(before, status == cp_model.OPTIMAL, bound, stats)


@dataclass(frozen=True)
class CpsatOptions:
    """Options of `cpsat`."""

    num_workers: int = shared("num_workers")
    triangles: Literal["lazy", "all"] = field(
        default="lazy",
        metadata={"help": "triangle inequalities: added round by round (lazy) or all up front"},
    )
    decompose: bool = field(
        default=True, metadata={"help": "solve the preference blocks separately"}
    )
    max_deterministic_time: float | None = shared("max_deterministic_time")  # per round
    scale_bits: int | None = field(
        default=None,
        metadata={"help": f"largest objective coefficient 2^bits, 8..{MAX_SCALE_BITS}"},
    )
    hint: bool = shared("hint", default=False)  # each block: an insertion-descent order


@register_method(
    SUBJECT,
    "cpsat",
    exact=True,
    kinds=LINEAR_ORDERING,
    options=CpsatOptions,
    summary="CP-SAT linear-ordering model, A and B",
)
def solve_cpsat(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: CpsatOptions,
) -> SolveResult[list[str]]:
    """CP-SAT for A or B: `num_workers` search threads (1 = deterministic), `seed` its seed.

    `max_deterministic_time` caps CP-SAT's deterministic time per round (reproducible stops);
    `triangles` and `decompose` as for milp.
    """
    inst, objective = problem.instance, problem.objective
    o = options
    refuse_non_lop(objective, "cpsat")
    if o.num_workers < 1:
        raise InvalidInput(f"num_workers: must be a positive integer (got {o.num_workers!r})")
    if o.scale_bits is not None and not 8 <= o.scale_bits <= MAX_SCALE_BITS:
        raise InvalidInput(
            f"scale_bits: must lie in 8..{MAX_SCALE_BITS} (got {o.scale_bits!r}); leave it unset "
            "for the automatic choice"
        )
    t0 = time.perf_counter()
    res = solve_lop(
        inst,
        objective,
        "cpsat",
        lambda Wb, dl, _slack: CpSatBlockModel(
            Wb,
            num_workers=o.num_workers,
            seed=seed,
            max_deterministic_time=o.max_deterministic_time,
            scale_bits=o.scale_bits,
            deadline=dl,
        ),
        deadline=deadline,
        triangles=o.triangles,
        decompose=o.decompose,
        warm_start=o.hint,
        extra_stats={
            "num_workers": o.num_workers,
            "triangles_mode": o.triangles,
            "decompose": o.decompose,
        },
    )
    return replace(res, runtime_s=time.perf_counter() - t0)
