"""Token model "offers": the authors' task-offer order, one epoch event by event.

Their Spark fork (andrewor14/spark, branch approximate-scheduling, commit 087e7bc5) turns a
pool's cores into tokens, cores x T x 1000 core-ms per epoch (`PoolReweighterLoss.batchUpdate`),
and uses them only to order task offers: `FairSchedulingAlgorithm.comparator` sorts the pools
by tokens left, most first; `TaskSchedulerImpl.resourceOffers`, called whenever cores are
free, walks that order and lets each task set launch a task on every free core it has a
pending task for; each launch takes the pool's mean task time off its tokens (which may go
negative). So the pool with the most tokens takes every free core it can use, and a pool with
few tokens still runs when the pools ahead of it have no pending task. A job runs one Spark
job per iteration, with one task per partition, and submits the next iteration's tasks only
when all of this iteration's have ended (the barrier of an iteration).

`offer_cores` replays that order for one epoch of T seconds: a pool's pending tasks are those
of its current iteration not yet launched; its tasks take tau_j = W_j / n_j seconds on one
core (n_j tasks per iteration, perfect scaling); free cores are offered, at every completion,
to the pools in order of tokens left (ties: the earlier pool), each taking min(free, pending)
and paying tau_j per task. It returns each pool's core-seconds of work in the epoch over T,
the cores the simulator's `advance` runs it on. With every pool saturated (pending tasks at
least the cores) the order alone decides; with tasks ahead used up, cores flow down the order.

Not modelled: driver time between iterations, the second (tree-aggregate) stage of an
iteration, tokens and tasks carried across the epoch boundary (a task in flight at T counts the
part it ran; the next epoch restarts from the job's fractional progress, rounded to whole
tasks), the mean task time
they measure (CPU time, none before a pool's first task ends) where we take the true tau_j,
and the reset of every pool's tokens when a pool registers mid-epoch.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Pool:
    """One job's state inside an epoch: tokens left (core-s), task time, tasks to run."""

    tokens_s: float
    task_s: float  # tau_j = W_j / n_j
    tasks_per_iter: int
    tasks_left: int  # all tasks the job still has to run (current iteration included)
    pending: int  # tasks of the current iteration not launched yet
    in_flight: int = 0
    work_s: float = 0.0  # core-seconds done this epoch

    @classmethod
    def start(cls, tokens_s: float, w: float, tasks_per_iter: int, iters_left: float) -> Pool:
        """A pool at the epoch's start, `iters_left` (fractional) iterations from its end."""
        n = tasks_per_iter
        left = round(iters_left * n)  # a task begun last epoch counts as one left
        left = max(left, 1) if iters_left > 1e-9 else 0
        current = left % n or min(n, left)
        return cls(tokens_s, w / n, n, left, current)

    def launch(self, k: int) -> None:
        self.pending -= k
        self.in_flight += k
        self.tokens_s -= k * self.task_s

    def finish(self, k: int) -> None:
        """k tasks ended: their work is done; a finished iteration submits the next one."""
        self.in_flight -= k
        self.tasks_left -= k
        self.work_s += k * self.task_s
        if self.pending == 0 and self.in_flight == 0 and self.tasks_left > 0:
            self.pending = min(self.tasks_per_iter, self.tasks_left)


def offer_round(pools: list[Pool], free: int, now: float, events: list) -> int:  # type: ignore[type-arg]
    """One `resourceOffers` call: free cores to pools by tokens left (most first, ties by
    index), each taking as many as it has pending tasks; returns the cores still free."""
    order = sorted(
        (i for i, p in enumerate(pools) if p.pending > 0), key=lambda i: (-pools[i].tokens_s, i)
    )
    for i in order:
        if free == 0:
            break
        k = min(free, pools[i].pending)
        pools[i].launch(k)
        free -= k
        heapq.heappush(events, (now + pools[i].task_s, i, k, now))
    return free


def offer_cores(
    tokens: Sequence[float],
    w: Sequence[float],
    tasks_per_iter: Sequence[int],
    iters_left: Sequence[float],
    capacity: int,
    epoch_s: float,
) -> np.ndarray:
    """Cores per pool for one epoch under the task-offer order (see the module docstring):
    `tokens` in cores (x `epoch_s` core-seconds each), W_j core-seconds per iteration, n_j tasks
    per iteration, iterations left; returns core-seconds of work / `epoch_s` per pool."""
    pools = [
        Pool.start(b * epoch_s, wj, n, it)
        for b, wj, n, it in zip(tokens, w, tasks_per_iter, iters_left, strict=True)
    ]
    events: list[tuple[float, int, int, float]] = []
    free = offer_round(pools, capacity, 0.0, events)
    while events and events[0][0] <= epoch_s:
        now = events[0][0]
        while events and events[0][0] == now:  # every completion at this instant, then offer
            _, i, k, _ = heapq.heappop(events)
            pools[i].finish(k)
            free += k
        free = offer_round(pools, free, now, events)
    for _, i, k, started in events:  # in flight at the epoch's end: the part that ran
        pools[i].work_s += k * (epoch_s - started)
    return np.array([p.work_s / epoch_s for p in pools])
