"""SERPT: shortest expected remaining size E[X - a | X > a] first, preemptive at checkpoints."""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT,
    "serpt",
    summary="shortest expected remaining size first (preemptive at checkpoints)",
    preemptive=True,
)
class SERPT(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return workload.indices["serpt"]
