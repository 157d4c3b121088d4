"""Fast-forward of the Synergy simulator: the rounds between two events in one bulk step.

Internal to `simulator.py`. After a round with no completion the next rounds see the same jobs;
as long as none arrives, none finishes, none starts starving and the policy's order stays the
same, they get the same allocation (the cached one) and repeat the same per-round arithmetic.
`FastForward` runs that many rounds at once: each check and update is the round-by-round
expression evaluated for every round at once (elementwise, or a sequential accumulate), so every
float is the one the round-by-round loop computes. It is a class of its own because it is a
second way of computing rounds, with its own back-off state, next to the loop in `simulator.py`.
"""

from __future__ import annotations

import math

import numpy as np

from schedlab.experiments.synergy.policies import Policy
from schedlab.experiments.synergy.sim_state import DONE_RTOL, Jobs, UtilLog, policy_view

# Rounds one fast-forward step may jump at most (bounds its per-round arrays).
_FF_MAX_ROUNDS = 4096
# After failed fast-forward attempts, rounds to wait at most before the next one.
_FF_MAX_WAIT = 15


class FastForward:
    """Jumps runs of unchanged rounds for one simulation, updating its jobs and records."""

    def __init__(
        self,
        jobs: Jobs,
        log: UtilLog,
        policy: Policy,
        *,
        round_s: float,
        max_rounds: int,
        max_t: float,
        starv_s: float,
        integer: bool,
        static_key: bool,
        totals: tuple[float, float, float],
    ) -> None:
        self.jobs, self.log, self.policy = jobs, log, policy
        self.R, self.max_rounds, self.max_t, self.starv_s = round_s, max_rounds, max_t, starv_s
        self.integer = integer  # whole iterations (theirs)
        self.static_key = static_key  # FIFO: the order never changes between events
        self.totals = totals
        self.wait = self.next_k = 0  # back-off of attempts that failed

    def jump(
        self,
        ordered: np.ndarray,
        pos: np.ndarray,
        k: int,
        rounds: int,
        next_arrival: float | None,
        rate: np.ndarray,
    ) -> int:
        """From round k (`rounds` simulated so far), with the jobs `ordered[pos]` running at
        per-GPU speed `rate` under the cached allocation: jump the rounds before the next event,
        updating the jobs and the utilization records; returns how many were jumped (the
        caller advances its round counters by that)."""
        if pos.size == 0 or k < self.next_k:
            return 0
        m = self._horizon(k, rounds, next_arrival)
        if m < 1:
            return 0
        if self.integer:
            jumped = self._iterations(ordered[pos], rate, k, m)
        else:
            jumped = self._work(ordered, pos, rate, k, m)
        # an attempt that jumps nothing costs about a round: after failures, try less often
        self.wait = 0 if jumped else min(2 * self.wait + 1, _FF_MAX_WAIT)
        self.next_k = k + jumped + self.wait
        return jumped

    def _horizon(self, k: int, rounds: int, next_arrival: float | None) -> int:
        """How many rounds from round k on may be jumped at most: none past the work caps or
        at or after the next arrival (a job arriving at a round's start is admitted in it)."""
        R = self.R
        m = min(self.max_rounds - rounds - 1, int(self.max_t // R) - k, _FF_MAX_ROUNDS)
        if next_arrival is not None:
            a = next_arrival
            kk = max(k, math.ceil(a / R))  # the first round starting at or after the arrival
            while kk > k and (kk - 1) * R >= a:
                kk -= 1
            while kk * R < a:
                kk += 1
            m = min(m, kk - k)
        return m

    def _work(self, ordered: np.ndarray, pos: np.ndarray, rate: np.ndarray, k: int, m: int) -> int:
        """Continuous work: jump the rounds before the first completion and the first change
        of order (see the module docstring); returns how many were jumped."""
        jobs, R = self.jobs, self.R
        run_idx = ordered[pos]
        n = run_idx.size
        step = rate * R
        # remaining work, attained service and work done before each of rounds k..k+m: one
        # sequential accumulate (x - s is x + (-s) exactly in IEEE arithmetic)
        acc = np.empty((m + 1, 3 * n))
        acc[0, :n], acc[0, n : 2 * n], acc[0, 2 * n :] = (
            jobs.remaining[run_idx], jobs.attained[run_idx], jobs.done[run_idx]
        )  # fmt: skip
        acc[1:, :n], acc[1:, n : 2 * n], acc[1:, 2 * n :] = -step, jobs.gpus[run_idx] * R, step
        np.add.accumulate(acc, axis=0, out=acc)
        rem, att = acc[:, :n], acc[:, n : 2 * n]
        need = np.where(rate > 0, rem[:m] / np.where(rate > 0, rate, 1), np.inf)
        m = _first_true(np.any(need <= R * (1.0 + DONE_RTOL), axis=1), m)
        if m >= 1 and not self.static_key:  # FIFO's order (arrival) never changes
            m = self._order_holds(ordered, pos, rem, att, k, m)
        if m < 1:
            return 0
        jobs.remaining[run_idx], jobs.attained[run_idx], jobs.done[run_idx] = (
            rem[m], att[m], acc[m, 2 * n :]
        )  # fmt: skip
        self._book(run_idx, k, m)
        return m

    def _book(self, run_idx: np.ndarray, k: int, m: int) -> None:
        """Book m jumped rounds from round k: last run times, the repeated utilization
        records (the caller counts the rounds)."""
        R = self.R
        self.jobs.last_run[run_idx] = (k + m - 1) * R + R
        self.log.repeat([(k + i) * R for i in range(m)])

    def _order_holds(
        self,
        ordered: np.ndarray,
        pos: np.ndarray,
        rem: np.ndarray,
        att: np.ndarray,
        k: int,
        m: int,
    ) -> int:
        """How many of the next m rounds keep exactly this order and bump no job: the
        policy's key for every round at once (rows: rounds k..k+m-1; columns: `ordered`),
        with the running jobs' remaining work and attained service from the trajectories."""
        jobs, R = self.jobs, self.R
        t = (k + np.arange(m)) * R
        bumped = jobs.bumped[ordered]
        if math.isfinite(self.starv_s):
            last = np.where(np.isnan(jobs.last_run[ordered]), jobs.arrival[ordered],
                            jobs.last_run[ordered])  # fmt: skip
            base = np.empty((m, ordered.size))
            base[:] = last
            base[1:, pos] = (t[:-1] + R)[:, None]  # running jobs ran through the last round
            new = (t[:, None] - base > self.starv_s) & ~bumped
            m = _first_true(new.any(axis=1), m)
            if m < 1:
                return 0
            t = t[:m]
        remaining, attained = np.empty((m, ordered.size)), np.empty((m, ordered.size))
        remaining[:], attained[:] = jobs.remaining[ordered], jobs.attained[ordered]
        remaining[:, pos], attained[:, pos] = rem[:m], att[:m]
        # one row per round: a column of round starts, rows of remaining and attained
        view = policy_view(jobs, ordered, remaining, attained, t[:, None], self.totals)
        key = np.broadcast_to(self.policy.key(view), (m, ordered.size))
        lead = ~bumped if self.policy.uses_bump else np.zeros(ordered.size, dtype=bool)
        ok = _strictly_sorted(lead, key, view.arrival_s, view.job_id)
        return _first_true(~ok, m)

    def _iterations(self, run_idx: np.ndarray, rate: np.ndarray, k: int, m: int) -> int:
        """Whole iterations (theirs), FIFO only: jump the rounds that surely end no job (two
        rounds of margin; whole numbers of iterations are exact in bulk); returns how many."""
        jobs, R = self.jobs, self.R
        per_round = np.floor(R / (jobs.iter_time[run_idx] / rate))
        left = jobs.iters_total[run_idx] - jobs.iters_done[run_idx]
        safe = np.floor(left / np.maximum(per_round, 1.0)) - 2
        m = int(min(safe.min(), m))
        if m < 2:
            return 0
        done = jobs.iters_done[run_idx] + m * per_round
        jobs.iters_done[run_idx] = done
        jobs.done[run_idx] = done * jobs.iter_time[run_idx]
        jobs.remaining[run_idx] = (jobs.iters_total[run_idx] - done) * jobs.iter_time[run_idx]
        att, gR = jobs.attained[run_idx], jobs.gpus[run_idx] * np.full(run_idx.size, R)
        for _ in range(m):
            att = att + gR
        jobs.attained[run_idx] = att
        self._book(run_idx, k, m)
        return m


def _first_true(flags: np.ndarray, m: int) -> int:
    """Index of the first True in `flags` (m when none)."""
    i = int(flags.argmax())
    return i if flags[i] else m


def _strictly_sorted(
    lead: np.ndarray, key: np.ndarray, arrival: np.ndarray, job_id: np.ndarray
) -> np.ndarray:
    """Per row of `key`: whether the columns are in strictly increasing (lead, key, arrival,
    id) order, i.e. whether `np.lexsort` would return them as they stand (NaN: no)."""
    a, b = slice(None, -1), slice(1, None)
    ka, kb = key[:, a], key[:, b]
    tie_key = (arrival[a] < arrival[b]) | ((arrival[a] == arrival[b]) & (job_id[a] < job_id[b]))
    by_key = (ka < kb) | ((ka == kb) & tie_key)
    less = (lead[a] < lead[b]) | ((lead[a] == lead[b]) & by_key)
    return np.asarray(less.all(axis=1))
