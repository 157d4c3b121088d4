"""The ESG method "split": the dominator-based SLO split (`dag_split`), A* on each segment.

The split itself lives in `dag_split`, below this method and the method "astar" (which plans a
DAG by the same split); its names stay importable from here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

# "astar" registers before "split" (the registry lists a subject's methods in registration
# order, and every importer of this module used to load exact_astar first)
from schedlab.solvers.esg import exact_astar  # noqa: F401
from schedlab.solvers.esg.dag_split import (  # noqa: F401  the split's names, importable here
    Rule,
    merged_segments,
    rule_budgets,
    seg_latency,
    segments,
    split_budget,
    split_solve,
)
from schedlab.solvers.esg.plan import result
from schedlab.solvers.esg.problem import APP_KINDS, App
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


@dataclass(frozen=True)
class SplitOptions:
    rule: Rule = field(default="min_latency", metadata={"help": "how the SLO is split"})


@register_method(
    "esg",
    "split",
    exact=False,
    kinds=APP_KINDS,
    options=SplitOptions,
    summary="dominator-tree SLO split, each segment/branch by A* as a chain",
)
def solve_split(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: SplitOptions
) -> SolveResult:
    """Heuristic plan by the SLO split; infeasible only when even the fastest plan misses."""
    t0 = time.perf_counter()
    choice, stats = split_solve(app, options.rule, deadline=deadline)
    return result(app, choice, "split", t0, exact=False, proven_infeasible=True, stats=stats)
