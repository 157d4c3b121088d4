"""Gittins index for discrete sizes (every departure counts), preemptive at checkpoints.

G(a) = max over quanta ending at a size s_j > a of P(a < X <= s_j) / E[min(X, s_j) - a; X > a].
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy, lower_first
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT,
    "gittins",
    summary="Gittins index of the discrete size, highest first (preemptive at checkpoints)",
    preemptive=True,
)
class Gittins(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return lower_first(workload.indices["gittins"])
