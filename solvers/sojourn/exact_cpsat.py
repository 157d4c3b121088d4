"""CP-SAT model of the linear-ordering objectives A and B (OR-Tools).

Per block (see `solvers.sojourn.lop`): Boolean x_ab = "a precedes b" for a < b, transitivity
as two clauses per triple (x_ab & x_bc -> x_ac, !x_ab & !x_bc -> !x_ac), all up front or
lazily. CP-SAT needs integer objective coefficients: d_ab = W[a,b] - W[b,a] is scaled by s
(max |d| * s = 2^scale_bits) and rounded. The returned order is re-evaluated by the closed
form; CP-SAT's bound L on sum round(s d) x is converted soundly to the true pair cost as
const + L / s - E with E = sum_ab max(0, round(s d_ab)/s - d_ab) (the most the rounding can
have lowered any x's true cost below its scaled cost).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from ortools.sat.python import cp_model

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.lop import (
    RoundResult,
    Triple,
    refuse_non_lop,
    skipped_round,
    solve_lop,
)
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


def scale_costs(d: np.ndarray, bits: int | None = None) -> tuple[np.ndarray, float, float]:
    """(d_int, s, E): integer coefficients round(s d), the scale s and the rounding slack E.

    For every 0/1 vector x: sum d x >= (sum d_int x) / s - E. With 2^40 as the largest
    coefficient, E is about 1e-12 of the largest |d| per pair, far below the proof tolerance
    (PROOF_TOL = 1e-9); 2^30 was measurably too coarse (gap 2.7e-9 at n = 100).
    """
    bits = default_scale_bits(d.size) if bits is None else bits
    top = float(np.max(np.abs(d))) if d.size else 0.0
    s = float(2**bits) / top if top > 0 else 1.0
    d_int = np.rint(d * s).astype(np.int64)
    slack = float(np.maximum(0.0, d_int / s - d).sum())
    return d_int, s, slack


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
        self.const = float(np.tril(Wb, -1).sum())  # sum_{a<b} W[b, a]
        self.build_s = 0.0  # seconds spent adding triangles (predicts the hand-over)
        self.model = cp_model.CpModel()
        self.x = {}
        for a in range(n):
            deadline.check()  # building n^2/2 variables can outlast the time limit
            for b in range(a + 1, n):
                self.x[a, b] = self.model.new_bool_var(f"x_{a}_{b}")
        self.pairs = list(self.x)
        d = np.array([Wb[a, b] - Wb[b, a] for a, b in self.pairs], dtype=float)
        self.d_int, self.s, self.slack = scale_costs(d, scale_bits)
        xs = [self.x[p] for p in self.pairs]
        self.index = np.array([v.index for v in xs], dtype=np.int64)
        self.model.minimize(cp_model.LinearExpr.weighted_sum(xs, [int(v) for v in self.d_int]))

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
        solver = cp_model.CpSolver()
        prm = solver.parameters
        prm.num_workers = self.num_workers
        prm.random_seed = solver_seed(self.seed)
        left = deadline.minus(handover).remaining(floor=0.001)  # CP-SAT's one conversion
        if left is not None:
            prm.max_time_in_seconds = left
        if self.max_deterministic_time is not None:
            prm.max_deterministic_time = float(self.max_deterministic_time)
        status = solver.solve(self.model)
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
        bound = self.const + lb / self.s - self.slack if math.isfinite(lb) else None
        stats = {
            "cpsat_conflicts": int(solver.num_conflicts),
            "cpsat_branches": int(solver.num_branches),
            "cpsat_deterministic_time": float(solver.deterministic_time),
        }
        return RoundResult(before, status == cp_model.OPTIMAL, bound, stats)


@dataclass(frozen=True)
class CpsatOptions:
    """Options of `cpsat`."""

    num_workers: int = field(
        default=1, metadata={"help": "CP-SAT search threads (1 = deterministic)"}
    )
    triangles: Literal["lazy", "all"] = field(
        default="lazy",
        metadata={"help": "triangle inequalities: added round by round (lazy) or all up front"},
    )
    decompose: bool = field(
        default=True, metadata={"help": "solve the preference blocks separately"}
    )
    max_deterministic_time: float | None = field(
        default=None, metadata={"help": "CP-SAT deterministic time per round (reproducible stops)"}
    )
    scale_bits: int | None = field(
        default=None,
        metadata={"help": f"largest objective coefficient 2^bits, 8..{MAX_SCALE_BITS}"},
    )
    warm_start: bool = field(
        default=False,
        metadata={"help": "hint each block with an insertion-descent order"},
    )


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
        lambda Wb, dl: CpSatBlockModel(
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
        warm_start=o.warm_start,
        extra_stats={
            "num_workers": o.num_workers,
            "triangles_mode": o.triangles,
            "decompose": o.decompose,
        },
    )
    return replace(res, runtime_s=time.perf_counter() - t0)
