"""The shared policy interface: a priority key per job and checkpoint level (lower first).

A policy is static per (job, level): the simulator asks for the whole key table once per
replication. Non-preemptive policies only use level 0 and run each job to its realized size;
preemptive ones may switch jobs when a running job reaches a checkpoint without being
cancelled. Ties are broken by arrival order (earlier first) in the simulator.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from schedlab.experiments.sojourn.workload_model import Workload

SUBJECT = "sojourn"


class Policy(ABC):
    """Subclass per policy, one small module each named `policy_*`, decorated with
    `@register_policy("sojourn", name, summary=..., preemptive=...)` (and `uses_outcomes=True`
    for a policy that reads the realized outcomes); `get_policy(name)` builds it with what was
    registered. Found by discovery; plugins may live in any module."""

    def __init__(
        self, *, name: str, summary: str, preemptive: bool, uses_outcomes: bool = False
    ) -> None:
        self.name = name
        self.summary = summary
        self.preemptive = preemptive
        self.uses_outcomes = uses_outcomes  # only the oracle reads the realized outcomes

    @abstractmethod
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        """(n, K) priority keys, lower first; `levels` are the realized outcome indices.

        Policies that do not use outcomes must ignore `levels`.
        """


def lower_first(index: np.ndarray) -> np.ndarray:
    """Turn a higher-first index into a lower-first key (NaN levels are never used)."""
    return -index
