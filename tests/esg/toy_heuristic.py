"""A toy ESG heuristic in one file (a plugin: `SCHEDLAB_PLUGINS=tests.esg.toy_heuristic`): the
fastest configuration of every function (a plan exactly when one fits). One decorator;
`schedlab gap esg` then compares it."""

import time

import numpy as np

from schedlab.solvers.esg.plan import result
from schedlab.solvers.esg.problem import APP_KINDS
from schedlab.solvers.solve import register_method


@register_method("esg", "toy", exact=False, kinds=APP_KINDS, summary="fastest configurations")
def solve_toy(app, *, deadline=None, seed=None, options=None):
    t0 = time.perf_counter()
    choice = [int(np.argmin(lat)) for lat in app.stage_latency()]
    plan_fits = result(app, choice, "toy", t0, exact=False)
    if plan_fits.status.value == "error":  # the fastest plan misses the SLO: none fits
        return result(app, None, "toy", t0, exact=False, proven_infeasible=True)
    return plan_fits
