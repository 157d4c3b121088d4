"""Success-only index gamma(a) = pi / E[(X - a)^+], highest first, preemptive at checkpoints.

gamma never decreases with age, so a job that survives a checkpoint only gains priority; it
is preempted when a waiting job's index is higher.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.sojourn.policies.base import Policy, lower_first, register_policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy
class Gamma(Policy):
    name = "gamma"
    summary = "success-only index pi / E[(X-a)^+], highest first (preemptive at checkpoints)"
    preemptive = True

    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return lower_first(workload.indices["gamma"])
