"""A toy sojourn heuristic in one file (a plugin: `SCHEDLAB_PLUGINS=tests.sojourn.toy_heuristic`):
the jobs in reverse file order. One decorator; `schedlab gap sojourn` then compares it."""

import numpy as np

from schedlab.solvers.solve import register_method


@register_method("sojourn", "toy", exact=False, tags=("index",), summary="jobs in reverse order")
def toy_key(inst):
    return -np.arange(inst.n, dtype=float)  # ascending key: the last job first
