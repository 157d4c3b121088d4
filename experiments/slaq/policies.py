"""SLAQ simulator policies: how an epoch's free cores are shared among the running jobs.

A policy is `allocate(qualities, base, free, fair) -> extra cores per old job`, where
`qualities` are the old jobs' Q_j (a `solvers.slaq.quality.QualityBatch`: arrays, and a
sequence of `JobQuality`; an empty list when the policy declares `needs_quality=False`),
`base` their minimum cores and `fair` = floor(C / J). A policy that declares
`needs_level=True` receives instead each old job's quality level after the epoch
(`heuristics.QualityLevel`: its predicted normalized loss reduction since it started).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedlab.experiments.registry import register_policy
from schedlab.solvers.slaq.heuristics import (
    fair_extra,
    greedy_extra,
    maxmin_extra,
    maxmin_quality_extra,
)

SUBJECT = "slaq"


@register_policy(
    SUBJECT,
    "slaq",
    summary="SLAQ: each free core to the largest predicted quality gain",
    needs_quality=True,
    tags=("figure",),
)
def slaq_policy(qs: Sequence[Any], base: Sequence[int], free: int, fair: int) -> list[int]:
    return greedy_extra(qs, base, free)


@register_policy(
    SUBJECT,
    "fair",
    summary="fair share floor(C/J), the remainder one core each",
    needs_quality=False,
    tags=("figure",),
)
def fair_policy(qs: Sequence[Any], base: Sequence[int], free: int, fair: int) -> list[int]:
    return fair_extra(len(base), base, fair, free)


@register_policy(
    SUBJECT,
    "maxmin",
    summary="max-min on quality: each free core to the job of lowest quality level",
    needs_quality=True,
    needs_level=True,
    tags=("figure",),
)
def maxmin_policy(qs: Sequence[Any], base: Sequence[int], free: int, fair: int) -> list[int]:
    """The paper's max-min on quality: water-filling on the quality level after the epoch."""
    return maxmin_quality_extra(qs, base, free)


@register_policy(
    SUBJECT,
    "maxmin-gain",
    summary="max-min on predicted gain: each free core to the job of lowest Q_j",
    needs_quality=True,
)
def maxmin_gain_policy(qs: Sequence[Any], base: Sequence[int], free: int, fair: int) -> list[int]:
    """Water-filling on this epoch's predicted gain Q_j (not the paper's max-min; kept named)."""
    return maxmin_extra(qs, base, free)
