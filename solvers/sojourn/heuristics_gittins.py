"""The short paper's prior policies as non-preemptive orders: Gittins index and Sevcik's rank.

The SIGMETRICS PER version names the Gittins index and Sevcik's smallest-rank (SR) rule as
the policies that minimize the mean sojourn time of *all* jobs (every departure, success or
cancellation, counts as done). On one server with every job present they become orders by
the value at age 0, each job then running to its end (no preemption):

- `gittins`: highest Gittins index first, G = max over quanta D of P(X <= D) / E[min(X, D)];
  with discrete sizes the maximum is attained at a quantum ending at one of the job's sizes
  (computed by `indices.level_table`, the table the online policies use).
- `sevcik`: smallest rank first, R = min over the same quanta of E[min(X, D)] / P(X <= D)
  (Sevcik 1974's expected service invested per expected completion), computed here directly
  from the sizes. R = 1 / G for every job, so the two orders coincide (ties in file order
  for both); the two are kept apart because the paper names both and each is computed from
  its own definition, which the tests cross-check.

Neither weighs success: they are what the paper's approach is compared against.
"""

from __future__ import annotations

import numpy as np

from schedlab.solvers.sojourn.heuristics import INDEX
from schedlab.solvers.sojourn.indices import Padded, level_table, pad
from schedlab.solvers.sojourn.problem import SUBJECT, Instance
from schedlab.solvers.solve import register_method


def padded(inst: Instance) -> Padded:
    """The instance's jobs as padded (n, K) size and probability arrays."""
    return pad([(j.sizes, j.probs) for j in inst.jobs])


@register_method(
    SUBJECT,
    "gittins",
    exact=False,
    tags=(INDEX, "baseline"),
    summary="Gittins index at age 0, highest first (all jobs count; non-preemptive)",
)
def gittins_key(inst: Instance) -> np.ndarray:
    """-G_i(0), ascending: the highest Gittins index at age 0 first."""
    return -level_table(padded(inst))["gittins"][:, 0]


def sevcik_rank(inst: Instance) -> np.ndarray:
    """Sevcik's rank at age 0 per job: min over quanta ending at a size s_j of
    E[min(X, s_j)] / P(X <= s_j) (quanta with P(X <= s_j) = 0 are never the minimum)."""
    out = np.empty(inst.n)
    for i, job in enumerate(inst.jobs):
        s, p = np.asarray(job.sizes), np.asarray(job.probs)
        done = np.cumsum(p)  # P(X <= s_j)
        invested = np.cumsum(p * s) + (1.0 - done) * s  # E[min(X, s_j)]
        ratio = np.full(len(s), np.inf)
        np.divide(invested, done, out=ratio, where=done > 0)
        out[i] = ratio.min()
    return out


@register_method(
    SUBJECT,
    "sevcik",
    exact=False,
    tags=(INDEX, "baseline"),
    summary="Sevcik's smallest rank at age 0 first (all jobs count; non-preemptive)",
)
def sevcik_key(inst: Instance) -> np.ndarray:
    """Sevcik's rank at age 0, ascending."""
    return sevcik_rank(inst)
