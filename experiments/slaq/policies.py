"""SLAQ simulator policies: how an epoch's free cores are shared among the running jobs.

A policy is `allocate(qualities, base, free, fair) -> extra cores per old job`, where
`qualities` are the old jobs' Q_j (a `solvers.slaq.quality.QualityBatch`: arrays, and a
sequence of `JobQuality`; an empty list when the policy declares `needs_quality=False`),
`base` their minimum cores and `fair` = floor(C / J).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedlab.experiments.registry import POLICIES
from schedlab.solvers.slaq.heuristics import fair_extra, greedy_extra, maxmin_extra


@POLICIES.register(
    "slaq",
    scope="slaq",
    summary="SLAQ: each free core to the largest predicted quality gain",
    needs_quality=True,
)
def slaq_policy(qs: Sequence[Any], base: Sequence[int], free: int, fair: int) -> list[int]:
    return greedy_extra(qs, base, free)


@POLICIES.register(
    "fair",
    scope="slaq",
    summary="fair share floor(C/J), the remainder one core each",
    needs_quality=False,
)
def fair_policy(qs: Sequence[Any], base: Sequence[int], free: int, fair: int) -> list[int]:
    return fair_extra(len(base), base, fair, free)


@POLICIES.register(
    "maxmin",
    scope="slaq",
    summary="each free core to the job of lowest predicted quality",
    needs_quality=True,
)
def maxmin_policy(qs: Sequence[Any], base: Sequence[int], free: int, fair: int) -> list[int]:
    return maxmin_extra(qs, base, free)
