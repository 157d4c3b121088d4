"""Sevcik's smallest-rank (SR) rule, preemptive at checkpoints (Sevcik 1974 allows preemption).

rank(a) = min over quanta ending at a size s_j > a of E[min(X, s_j) - a | X > a] /
P(X <= s_j | X > a), lowest first: expected service invested per expected departure. It is
the reciprocal of the Gittins index of `policy_gittins`, so the two policies order every
queue the same way and give the same runs; both are kept because the short paper names both.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT,
    "sevcik",
    summary="Sevcik's smallest rank (all jobs count), lowest first (preemptive at checkpoints)",
    preemptive=True,
)
class Sevcik(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        return workload.indices["sevcik"]
