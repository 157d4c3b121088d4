"""A toy SLAQ heuristic in one file (a plugin: `SCHEDLAB_PLUGINS=tests.slaq.toy_heuristic`):
every free core to the first job that has a loss history. One decorator; `schedlab gap slaq`
then compares it."""

import time

from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.slaq.heuristics import allocation_of
from schedlab.solvers.slaq.quality import quality_model
from schedlab.solvers.solve import register_method


@register_method("slaq", "toy", exact=False, summary="all free cores to the first old job")
def solve_toy(snap, *, deadline=None, seed=None, options=None):
    t0 = time.perf_counter()
    qm = quality_model(snap)
    extra = [qm.free] + [0] * (len(qm.old) - 1) if qm.old else []
    alloc = allocation_of(snap, qm, extra)
    value = qm.objective(alloc.cores, snap.objective)
    return SolveResult(Status.FEASIBLE, value, None, alloc, "toy", time.perf_counter() - t0)
