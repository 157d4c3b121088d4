"""Oracle reference: knows every job's outcome and realized size (preemptive at checkpoints).

Jobs that will succeed go before jobs that will be cancelled; within each group the shortest
realized remaining size goes first (SRPT on realized sizes). It is a reference point, not a
proven lower bound: with several servers, GPU counts and checkpoint-only preemption no policy
here is proven optimal, and this one ignores that a cancelled job's wasted work delays others.
"""

from __future__ import annotations

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import SUBJECT, Policy
from schedlab.experiments.sojourn.workload_model import Workload


@register_policy(
    SUBJECT,
    "oracle",
    summary="reference (not a bound): successful jobs first, then SRPT on realized sizes",
    preemptive=True,
    uses_outcomes=True,
)
class Oracle(Policy):
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        d = workload.dists
        rows = np.arange(d.n)
        realized = d.sizes[rows, levels]
        ages = np.zeros_like(d.sizes)
        ages[:, 1:] = d.sizes[:, :-1]
        remaining = realized[:, None] - ages  # only levels <= realized level are used
        cancelled = levels < d.counts - 1
        offset = float(d.sizes.max()) * 2.0 + 1.0  # above every remaining size
        return remaining + np.where(cancelled, offset, 0.0)[:, None]
