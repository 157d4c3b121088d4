"""Smith's rule with weight pi: highest pi / E[X] first (non-preemptive).

Optimal for E[sum of successful completion times] on one server with all jobs at time 0.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.sojourn.policies.base import Policy, lower_first, register_policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy
class Smith(Policy):
    name = "smith"
    summary = "Smith's rule pi / E[X], highest first (non-preemptive)"
    preemptive = False

    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        g0 = workload.indices["gamma"][:, :1]  # gamma at age 0 = pi / E[X]
        return np.repeat(lower_first(g0), workload.dists.width, axis=1)
