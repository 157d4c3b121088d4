"""FCFS: first come, first served (non-preemptive)."""

from __future__ import annotations

import numpy as np

from schedlab.experiments.sojourn.policies.base import Policy, register_policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy
class FCFS(Policy):
    name = "fcfs"
    summary = "first come, first served (non-preemptive)"
    preemptive = False

    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return np.repeat(workload.arrival_s[:, None], workload.dists.width, axis=1)
