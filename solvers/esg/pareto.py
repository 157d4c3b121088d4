"""Pareto pre-filter: drop configurations dominated in (stage latency, cost)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np


def pareto_indices(lat: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated configurations, by increasing latency (decreasing cost).

    A configuration is dominated when another is no slower and no dearer (ties: the first in
    (latency, cost, index) order is kept). Filtering keeps every optimum of a chain or DAG plan,
    since replacing a dominated choice never raises latency or cost.
    """
    order = np.lexsort((np.arange(len(lat)), cost, lat))
    c = np.asarray(cost, dtype=float)[order]
    best_before = np.fmin.accumulate(np.concatenate([[np.inf], c]))[:-1]  # fmin: NaN never best
    return order[c < best_before].astype(np.int64)


def path_count(sizes: Iterable[int]) -> float:
    """How many configuration paths the per-stage choice counts `sizes` give: the exact product,
    as a float (inf past its range, without numpy's overflow warning)."""
    count = math.prod(int(s) for s in sizes)
    return float(count) if count.bit_length() < 1024 else math.inf
