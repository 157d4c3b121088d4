"""Pareto pre-filter: drop configurations dominated in (stage latency, cost)."""

from __future__ import annotations

import numpy as np


def pareto_indices(lat: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated configurations, by increasing latency (decreasing cost).

    A configuration is dominated when another is no slower and no dearer (ties: the first in
    (latency, cost, index) order is kept). Filtering keeps every optimum of a chain or DAG plan,
    since replacing a dominated choice never raises latency or cost.
    """
    order = np.lexsort((np.arange(len(lat)), cost, lat))
    keep, best = [], np.inf
    for k in order:
        if cost[k] < best:
            keep.append(int(k))
            best = cost[k]
    return np.array(keep, dtype=np.int64)
