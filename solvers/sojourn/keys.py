"""Static orders of an instance: a key per job, the jobs in ascending key order.

The arithmetic under the index methods of `heuristics` (which registers them), kept here so
that modules below the methods (`tables`, whose low-rank form needs Smith's order as its
reference) can use it without importing the methods.
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.sojourn.problem import Instance


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with +inf where den == 0 (a job that never succeeds goes last)."""
    out = np.full(num.shape, np.inf)
    np.divide(num, den, out=out, where=den > 0)
    return out


def order_by_index(index: np.ndarray) -> list[int]:
    """Ascending index; ties keep file order (stable sort)."""
    return [int(i) for i in np.argsort(index, kind="stable")]


def smith_ratio(inst: Instance) -> np.ndarray:
    """E[X_i] / pi_i per job: Smith's rule with weight pi, ascending (+inf when pi = 0)."""
    return safe_div(inst.mean, inst.pi)
