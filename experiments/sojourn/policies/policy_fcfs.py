"""FCFS: first come, first served (non-preemptive)."""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT, "fcfs", summary="first come, first served (non-preemptive)", preemptive=False
)
class FCFS(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return np.repeat(workload.arrival_s[:, None], workload.dists.width, axis=1)
