"""SEPT: shortest expected processing time E[X] first (non-preemptive)."""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT, "sept", summary="shortest expected size E[X] first (non-preemptive)", preemptive=False
)
class SEPT(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return np.repeat(workload.expected_size[:, None], workload.dists.width, axis=1)
