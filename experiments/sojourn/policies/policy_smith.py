"""Smith's rule with weight pi: highest pi / E[X] first (non-preemptive).

Optimal for E[sum of successful completion times] on one server with all jobs at time 0.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy, lower_first
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT,
    "smith",
    summary="Smith's rule pi / E[X], highest first (non-preemptive)",
    preemptive=False,
)
class Smith(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        g0 = workload.indices["gamma"][:, :1]  # gamma at age 0 = pi / E[X]
        return np.repeat(lower_first(g0), workload.dists.width, axis=1)
