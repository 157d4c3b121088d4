"""Success-only index gamma(a) = pi / E[(X - a)^+], highest first, preemptive at checkpoints.

gamma never decreases with age, so a job that survives a checkpoint only gains priority; it
is preempted when a waiting job's index is higher.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy, lower_first
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT,
    "gamma",
    summary="success-only index pi / E[(X-a)^+], highest first (preemptive at checkpoints)",
    preemptive=True,
)
class Gamma(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return lower_first(workload.indices["gamma"])
