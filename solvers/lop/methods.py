"""The linear-ordering engine's methods in the one registry: `solve(problem, "lpcut", ...)` on
a LOLIB matrix (`matrix.LopMatrix`) or a PACE crossing graph (`graph.OcrGraph`).

Both problems belong to the "lop" scope of `solve`'s methods (the engine is a shared package,
not a subject: `solvers.subjects.SHARED_PACKAGES`), so they get `solve`'s one door: its checks
of the time limit, seed and options, its one deadline, and the usual `SolveResult` and
statuses. Light at import: lpcut (numba, HiGHS) loads only where a block needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedlab.solvers.lop.graph import OcrGraph
from schedlab.solvers.lop.graph_route import solve_graph
from schedlab.solvers.lop.lpcut.options import LpcutOptions
from schedlab.solvers.lop.matrix import LopMatrix, solve_lop_benchmark
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline

#: The scope of the engine's methods in `solve`'s registry (the problems' `subject`).
SCOPE = "lop"
#: The problem kinds: a dense matrix, a crossing graph.
KINDS = ("matrix", "crossings")


@dataclass(frozen=True)
class LopLpcutOptions(LpcutOptions):
    """Options of the engine's `lpcut`: lpcut's, and what a crossing graph adds."""

    fix_forced: bool = field(
        default=True,
        metadata={"help": "crossing graphs: fix the pairs every optimal order decides first"},
    )


@register_method(
    SCOPE,
    "lpcut",
    exact=True,
    kinds=KINDS,
    options=LopLpcutOptions,
    summary="HiGHS: per preference block the cycle packing, triangle LP rounds or the full "
    "triangle model; LOLIB matrices (max above the diagonal), PACE graphs (fewest crossings)",
)
def solve_lpcut(
    problem: LopMatrix | OcrGraph,
    *,
    deadline: Deadline = NO_DEADLINE,
    seed: int | None = None,
    options: LopLpcutOptions,
) -> SolveResult[list[int]]:
    """A matrix: the largest above-diagonal sum (`value`) and a proven upper bound; a graph:
    the fewest crossings and a proven lower bound. The solution lists 0-based rows or free
    vertices (`OcrGraph.ids_of` gives the file's ids)."""
    if isinstance(problem, OcrGraph):
        return solve_graph(
            problem, deadline=deadline, seed=seed, options=options, fix_forced=options.fix_forced
        )
    return solve_lop_benchmark(problem.M, deadline=deadline, seed=seed, options=options)
