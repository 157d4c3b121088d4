"""PuLP MILP for the linear-ordering objectives A and B (back ends CBC and HiGHS).

Per block (see `schedlab.solvers.lop.core`): x_ab = 1 iff a precedes b (a < b; x_ba is
1 - x_ab), written with binaries y_ab = 1 iff the pair is placed against its preference (y = x
where W[a,b] >= W[b,a], else y = 1 - x): objective P + sum_{a<b} |W[a,b] - W[b,a]| y_ab with
P = sum_{a<b} min(W[a,b], W[b,a]), and for a < b < c the triangle inequalities
x_ab + x_bc - x_ac <= 1 and x_ac - x_ab - x_bc <= 0 in y. The back end sees non-negative costs
and an objective of the size of the pair cost itself: the textbook form (costs W[a,b] - W[b,a]
plus sum_{a<b} W[b,a]) cancels a large constant against large negative costs, which lost a
value of 1e-9 next to a pair of 1e7 and made the relative gap 1e-11 of 1e7. The solve is the
kit's (`kit.mip.solve_pulp`): the status comes from HiGHS's model status and primal solution
status, or from CBC's `sol_status` (1 proven optimal, 2 feasible), never from PuLP's "Optimal"
string (which PuLP also reports after a time limit). The bound is HiGHS's MIP dual bound, or for
CBC the bound CBC prints in its log (rounded down to the printed digits); CBC runs as a
subprocess that is killed shortly after its time limit.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kit.mip import MipOutcome, solve_pulp
from schedlab.solvers.lop.core import (
    RoundResult,
    Triple,
    block_gap_abs,
    pairwise_min_bound,
    skipped_round,
)
from schedlab.solvers.options import MilpSolver, shared
from schedlab.solvers.result import SolveResult
from schedlab.solvers.sojourn.lop import refuse_non_lop, solve_lop
from schedlab.solvers.sojourn.objectives import LINEAR_ORDERING
from schedlab.solvers.sojourn.problem import SUBJECT, SojournProblem
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

MILP_SOLVERS = ("highs", "cbc")
GAP_REL = 1e-11  # relative MIP gap asked of the back end (below result.PROOF_TOL, 1e-9)
# PuLP's hand-over to the back end takes about this multiple of the time spent building the
# PuLP rows (measured at n = 80: HiGHS transfer 0.9x, MPS writing 0.45x; with margin).
HANDOVER_FACTOR = {"highs": 1.2, "cbc": 0.7}
# HiGHS overruns its time limit in steps that check neither it nor the interrupt callbacks
# (presolve and probing steps of about 4 s on 2.6 million triangle rows, at n = 200 after 20 s
# of building), and freeing the PuLP rows takes another 0.06x the building time: reserve this
# multiple of it (0.35 still overran by 2.2 s once)
POST_FACTOR = 0.5


class PulpBlockModel:
    """The triangle MILP of one block, re-solved after each round of added triangles."""

    def __init__(
        self,
        Wb: np.ndarray,
        solver: str,
        gap_abs: float,
        seed: int | None,
        deadline: Deadline = NO_DEADLINE,
    ) -> None:
        self.n = Wb.shape[0]
        self.solver = solver
        self.gap_abs = gap_abs
        self.seed = seed
        # the pair cost is P + sum |d_ab| y_ab with y_ab = 1 when the pair is placed against its
        # preference and P = sum of min(W[a,b], W[b,a]): no cancellation of a large constant
        # against large negative costs (1e7 against -1e7 lost a value of 1e-9)
        self.base = pairwise_min_bound(Wb)
        import pulp  # imported on use: listing methods stays light

        self.prob = pulp.LpProblem("lop_block", pulp.LpMinimize)
        self.build_s = 0.0  # seconds spent adding rows (predicts PuLP's hand-over time)
        self.x: dict[tuple[int, int], pulp.LpVariable] = {}  # y_ab (x_ab, or 1 - x_ab if flip)
        self.flip: dict[tuple[int, int], bool] = {}  # x_ab = 1 - y_ab: b first is preferred
        terms = []
        for a in range(self.n):
            deadline.check()  # building n^2/2 variables can outlast the time limit
            for b in range(a + 1, self.n):
                v = self.prob.add_variable(f"x_{a}_{b}", 0, 1, pulp.LpBinary)
                d = float(Wb[a, b] - Wb[b, a])
                self.x[a, b] = v
                self.flip[a, b] = d < 0
                terms.append((v, abs(d)))
        self.terms = terms
        self.prob.setObjective(pulp.LpAffineExpression(terms))

    def _row(self, coefs: Sequence[tuple[tuple[int, int], int]], rhs: int) -> Any:
        """sum k x_ab <= rhs in the variables y (x_ab = 1 - y_ab where flipped)."""
        import pulp

        terms = []
        for pair, k in coefs:
            if self.flip[pair]:
                terms.append((self.x[pair], -k))
                rhs -= k
            else:
                terms.append((self.x[pair], k))
        return pulp.LpConstraint(pulp.LpAffineExpression(terms), pulp.LpConstraintLE, rhs=rhs)

    def add_triangles(self, triples: Sequence[Triple]) -> None:
        t0 = time.perf_counter()
        for a, b, c in triples:
            ab, bc, ac = (a, b), (b, c), (a, c)
            self.prob.addConstraint(self._row([(ab, 1), (bc, 1), (ac, -1)], 1))
            self.prob.addConstraint(self._row([(ab, -1), (bc, -1), (ac, 1)], 0))
        self.build_s += time.perf_counter() - t0

    def _before(self) -> np.ndarray | None:
        B = np.zeros((self.n, self.n), dtype=bool)
        for (a, b), v in self.x.items():
            val = v.value()
            if val is None:
                return None
            B[a, b] = (val > 0.5) != self.flip[a, b]
            B[b, a] = not B[a, b]
        return B

    def solve(self, deadline: Deadline, hint: Sequence[int] | None) -> RoundResult:
        # PuLP hands the model over row by row in Python (HiGHS) or writes an MPS file (CBC)
        # before the solver's clock starts, and that cannot be interrupted: skip a round whose
        # hand-over alone would not fit (would take more than 0.9 of the time left).
        if deadline.passed(within=self.build_s * HANDOVER_FACTOR[self.solver] / 0.9):
            return skipped_round()
        if self.solver == "highs":
            return self._solve_highs(deadline)
        return self._solve_cbc(deadline)

    def _solve_highs(self, deadline: Deadline) -> RoundResult:
        # HiGHS gets what is left after PuLP's hand-over, less the reserve for what follows
        stop = deadline.minus(POST_FACTOR * self.build_s)
        out = solve_pulp(self.prob, solver="highs", deadline=stop, gap_abs=self.gap_abs,
                         gap_rel=GAP_REL, seed=self.seed)  # fmt: skip
        return self._round(out, {"mip_nodes": out.stats.get("mip_nodes", 0)})

    def _solve_cbc(self, deadline: Deadline) -> RoundResult:
        out = solve_pulp(self.prob, solver="cbc", deadline=deadline, gap_abs=self.gap_abs,
                         gap_rel=GAP_REL, threads=1, seed=self.seed)  # fmt: skip
        return self._round(out, {"cbc_killed": out.stats.get("cbc_killed", 0)})

    def _round(self, out: MipOutcome, stats: dict[str, Any]) -> RoundResult:
        """The round's order, proof and bound (`base` + the pair cost's bound) from the kit."""
        if out.stats.get("skipped"):
            return skipped_round()
        before = self._before() if out.x is not None else None
        bound = None if out.bound is None else self.base + out.bound
        return RoundResult(before, out.proven and before is not None, bound, stats)


@dataclass(frozen=True)
class MilpOptions:
    """Options of `milp`."""

    solver: MilpSolver = shared("solver")
    triangles: Literal["lazy", "all"] = field(
        default="lazy",
        metadata={"help": "triangle inequalities: added round by round (lazy) or all up front"},
    )
    decompose: bool = field(
        default=True, metadata={"help": "solve the preference blocks separately"}
    )


@register_method(
    SUBJECT,
    "milp",
    exact=True,
    kinds=LINEAR_ORDERING,
    options=MilpOptions,
    summary="PuLP MILP, A and B (CBC or HiGHS)",
)
def solve_milp(
    problem: SojournProblem,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: MilpOptions,
) -> SolveResult[list[str]]:
    """Linear-ordering MILP for A or B; `options.solver` is "highs" or "cbc".

    `triangles`: "lazy" (add violated triangle inequalities round by round) or "all";
    `decompose`: solve the preference blocks separately (see solvers/lop/core.py).
    """
    inst, objective = problem.instance, problem.objective
    solver, triangles, decompose = options.solver, options.triangles, options.decompose
    refuse_non_lop(objective, "milp")
    if solver not in MILP_SOLVERS:
        raise InvalidInput(
            f"solver: method milp takes one of {', '.join(MILP_SOLVERS)} (got {solver!r})"
        )
    t0 = time.perf_counter()
    res = solve_lop(
        inst,
        objective,
        "milp",
        lambda Wb, dl, _slack: PulpBlockModel(Wb, solver, block_gap_abs(Wb), seed, dl),
        deadline=deadline,
        triangles=triangles,
        decompose=decompose,
        extra_stats={"solver": solver, "triangles_mode": triangles, "decompose": decompose},
    )
    return replace(res, runtime_s=time.perf_counter() - t0)
