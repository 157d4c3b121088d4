"""The ESG_1Q method "astar": A* (`astar.astar_chain`) on a chain, the SLO split on a DAG.

The search itself, its options and its pruning live in `astar`; the dominator SLO split in
`dag_split`, which runs the same search on each chain segment. `AStarOptions` and
`astar_chain` stay importable from here.
"""

from __future__ import annotations

import time

from schedlab.solvers.esg.astar import AStarOptions, astar_chain
from schedlab.solvers.esg.dag_split import split_solve
from schedlab.solvers.esg.plan import result
from schedlab.solvers.esg.problem import APP_KINDS, App
from schedlab.solvers.result import SolveResult
from schedlab.solvers.solve import register_method
from schedlab.solvers.validate import NO_DEADLINE, Deadline


@register_method(
    "esg",
    "astar",
    exact=True,
    kinds=APP_KINDS,
    options=AStarOptions,
    summary="ESG_1Q A* with latency/cost blades (exact on chains; DAGs via the SLO split)",
)
def solve_astar(
    app: App, *, deadline: Deadline = NO_DEADLINE, seed: int | None = None, options: AStarOptions
) -> SolveResult:
    """A* on a chain (proven optimal); on a DAG, the dominator SLO split with A* per branch."""
    t0 = time.perf_counter()
    if not app.is_chain:
        choice, stats = split_solve(app, "min_latency", options, deadline)
        # infeasible only when the fastest plan (the least longest path) does not fit
        return result(app, choice, "astar", t0, exact=False, proven_infeasible=True, stats=stats)
    order = app.topo_order()
    lats, costs = app.stage_latency(), app.stage_cost()
    ol, oc = [lats[i] for i in order], [costs[i] for i in order]
    s = astar_chain(ol, oc, app.budget, options, deadline=deadline)
    stats = {"nodes_expanded": s.nodes_expanded, "nodes_generated": s.nodes_generated}
    stats["raw_space"] = s.raw_space
    if s.stopped:
        stats["stopped_by_time_limit"] = True
        if s.choice is None:
            return result(app, None, "astar", t0, exact=True, bound=s.bound, stats=stats)
        choice = [0] * len(order)
        for pos, i in enumerate(order):
            choice[i] = s.choice[pos]
        return result(app, choice, "astar", t0, exact=True, bound=s.bound, stats=stats)
    if s.choice is None:
        return result(app, None, "astar", t0, exact=True, proven_infeasible=True, stats=stats)
    choice = [0] * len(order)
    for pos, i in enumerate(order):
        choice[i] = s.choice[pos]
    return result(app, choice, "astar", t0, exact=True, proven=True, stats=stats)
