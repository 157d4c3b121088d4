"""The shared policy interface: a priority key per job and checkpoint level (lower first).

A policy is static per (job, level): the simulator asks for the whole key table once per
replication. Non-preemptive policies only use level 0 and run each job to its realized size;
preemptive ones may switch jobs when a running job reaches a checkpoint without being
cancelled. Ties are broken by arrival order (earlier first) in the simulator.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, TypeVar

import numpy as np

from schedlab.experiments.registry import POLICIES
from schedlab.experiments.sojourn.workload_model import Workload

SUBJECT = "sojourn"
P = TypeVar("P", bound="type[Policy]")


class Policy(ABC):
    """Subclass per policy, one small module each named `policy_*`, decorated with
    `@register_policy` (found by discovery; plugins may live in any module)."""

    name: ClassVar[str]
    summary: ClassVar[str]
    preemptive: ClassVar[bool]
    uses_outcomes: ClassVar[bool] = False  # only the oracle reads the realized outcomes

    @abstractmethod
    def keys(self, workload: Workload, levels: np.ndarray) -> np.ndarray:
        """(n, K) priority keys, lower first; `levels` are the realized outcome indices.

        Policies that do not use outcomes must ignore `levels`.
        """


def lower_first(index: np.ndarray) -> np.ndarray:
    """Turn a higher-first index into a lower-first key (NaN levels are never used)."""
    return -index


def register_policy(cls: P) -> P:
    """Class decorator: register the policy in `POLICIES` (scope "sojourn") under `cls.name`."""
    POLICIES.add(
        cls.name,
        cls,
        scope=SUBJECT,
        summary=cls.summary,
        preemptive=cls.preemptive,
        uses_outcomes=cls.uses_outcomes,
    )
    return cls
