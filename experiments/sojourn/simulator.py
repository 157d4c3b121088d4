"""Discrete-event simulation of m identical servers with GPU-count-aware jobs.

Model. Job i arrives at a_i, needs g_i servers at once and runs at rate 1 on them; its realized
size X_i is one of its sizes (success at the largest; a cancelled job leaves when it reaches
its realized checkpoint size). A policy gives each job a priority key per checkpoint level
(lower first). The simulator sees a job as a chain of quanta: a non-preemptive policy runs it
in one quantum of length X_i; a preemptive policy runs it from checkpoint to checkpoint
(quantum l = s_{l+1} - s_l, up to the realized size). When a quantum ends short of the
realized size the job releases its servers and rejoins the queue with the key of its new
level: that is the preemption opportunity; it counts as a preemption when the job is not
restarted at that same instant.

Dispatch rule (greedy backfilling, no reservations). Whenever servers free up or jobs
arrive, scan the waiting jobs in priority order (ties: earlier arrival first) and start every
job whose g fits in the servers still free. A wide job can be overtaken by narrower jobs with
worse priority (possibly for a long time under heavy load); no head-of-line blocking, no
reservation. Waiting jobs are kept in one heap per distinct GPU count, so each start costs
O(#counts + log n). All events at the same instant (departures, quantum ends, arrivals) are
applied before dispatching.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from schedlab.solvers.errors import InvalidInput

INF = float("inf")


@dataclass(frozen=True)
class Run:
    """One simulated replication: per-job times and counters."""

    arrival_s: np.ndarray
    departure_s: np.ndarray
    success: np.ndarray  # bool
    gpus: np.ndarray
    realized_size: np.ndarray
    preemptions: int
    busy_server_s: float  # integral of busy servers over time (independent of realized_size)
    servers: int
    dispatches: int

    @property
    def sojourn_s(self) -> np.ndarray:
        return self.departure_s - self.arrival_s

    @property
    def makespan_s(self) -> float:
        return float(self.departure_s.max() - self.arrival_s.min())

    @property
    def utilization(self) -> float:
        """Busy server-time over servers x (last departure - first arrival)."""
        span = self.makespan_s
        return self.busy_server_s / (self.servers * span) if span > 0 else 1.0


class EventLoop:
    """State of one `simulate_quanta` run, advanced in steps: advance the clock, end quanta
    (depart, keep running or pause), admit arrivals, dispatch (start jobs), record preemptions.

    Plain lists and heaps for speed; `log` (tests) receives (time, what, job) for what in
    arrive/start/pause/depart/dispatched.
    """

    def __init__(
        self,
        arrival: list[float],
        gpus: list[int],
        quanta: list[list[float]],
        keys: list[list[float]],
        servers: int,
        log: list[tuple[float, str, int]] | None = None,
    ) -> None:
        n = len(arrival)
        classes = sorted(set(gpus))
        if classes and classes[-1] > servers:
            raise InvalidInput(
                f"servers: a job needs {classes[-1]} GPUs but only {servers} servers exist"
            )
        self.arrival, self.gpus, self.quanta, self.keys = arrival, gpus, quanta, keys
        self.n, self.servers, self.log, self.classes = n, servers, log, classes
        self.queues: dict[int, list[tuple[float, int]]] = {g: [] for g in classes}
        self.single = self.queues[classes[0]] if len(classes) == 1 else None
        self.g_single = classes[0] if classes else 1
        self.events: list[tuple[float, int]] = []  # (end of the running quantum, job)
        self.level = [0] * n
        self.nq = [len(q) for q in quanta]
        self.running = [False] * n
        self.depart = [INF] * n
        self.free = servers
        self.waiting = self.preemptions = self.dispatches = self.ia = 0
        self.area = 0.0
        self.t_prev = arrival[0] if n else 0.0

    def next_time(self) -> tuple[float, float]:
        """(time of the next event, time of the next arrival); INF when none is left."""
        ta = self.arrival[self.ia] if self.ia < self.n else INF
        te = self.events[0][0] if self.events else INF
        return (ta if ta < te else te), ta

    def advance(self, t: float) -> None:
        """Move the clock to t, adding busy server-seconds."""
        busy = self.servers - self.free
        if busy:
            self.area += busy * (t - self.t_prev)
        self.t_prev = t

    def end_quanta(self, t: float, ta: float) -> list[int]:
        """Apply every quantum ending at t; returns the jobs paused (requeued) at t.

        A job whose last quantum ends departs; otherwise it keeps running when nothing else
        competes at this instant (no waiting job, no arrival, no other quantum end), else it
        releases its servers and waits with the key of its new level.
        """
        events, level, log = self.events, self.level, self.log
        requeued = []
        while events and events[0][0] == t:
            _, j = heapq.heappop(events)
            lv = level[j] + 1
            level[j] = lv
            if lv == self.nq[j]:
                self.depart[j] = t
                self.running[j] = False
                self.free += self.gpus[j]
                if log is not None:
                    log.append((t, "depart", j))
            elif self.waiting == 0 and ta != t and (not events or events[0][0] != t):
                heapq.heappush(events, (t + self.quanta[j][lv], j))
            else:
                self.running[j] = False
                self.free += self.gpus[j]
                if log is not None:
                    log.append((t, "pause", j))
                heapq.heappush(self.queues[self.gpus[j]], (self.keys[j][lv], j))
                self.waiting += 1
                requeued.append(j)
        return requeued

    def admit(self, t: float) -> None:
        """Queue every job arriving at t with the key of its first quantum."""
        arrival, n, log = self.arrival, self.n, self.log
        while self.ia < n and arrival[self.ia] == t:
            ia = self.ia
            heapq.heappush(self.queues[self.gpus[ia]], (self.keys[ia][0], ia))
            self.waiting += 1
            if log is not None:
                log.append((t, "arrive", ia))
            self.ia = ia + 1

    def start(self, t: float, j: int) -> None:
        """Start job j's current quantum on gpus[j] free servers."""
        self.waiting -= 1
        self.free -= self.gpus[j]
        self.running[j] = True
        heapq.heappush(self.events, (t + self.quanta[j][self.level[j]], j))
        if self.log is not None:
            self.log.append((t, "start", j))

    def best_fitting(self) -> int | None:
        """The waiting job with the lowest key among those that fit the free servers."""
        best: tuple[float, int] | None = None
        bq: list[tuple[float, int]] = []
        for g in self.classes:
            if g > self.free:
                break
            q = self.queues[g]
            if q and (best is None or q[0] < best):
                best, bq = q[0], q
        return None if best is None else heapq.heappop(bq)[1]

    def dispatch(self, t: float) -> None:
        """Greedy backfilling in key order until nothing waiting fits (one dispatch round)."""
        if not (self.waiting and self.free):
            return
        self.dispatches += 1
        single = self.single
        if single is not None:
            while single and self.free >= self.g_single:
                self.start(t, heapq.heappop(single)[1])
        else:
            while self.waiting and self.free:
                j = self.best_fitting()
                if j is None:
                    break
                self.start(t, j)
        if self.log is not None:
            self.log.append((t, "dispatched", self.free))

    def record_preemptions(self, requeued: list[int]) -> None:
        """A paused job not restarted at the same instant was preempted."""
        for j in requeued:
            if not self.running[j]:
                self.preemptions += 1


def simulate_quanta(
    arrival: list[float],
    gpus: list[int],
    quanta: list[list[float]],
    keys: list[list[float]],
    servers: int,
    log: list[tuple[float, str, int]] | None = None,
) -> tuple[list[float], int, float, int]:
    """Core event loop on plain lists (arrival-sorted jobs).

    quanta[j]: service lengths of job j's quanta in order (the last one ends its run);
    keys[j][l]: its priority key while waiting to start quantum l (lower first).
    Returns (departure times, preemptions, busy server-seconds, dispatch rounds). With `log`
    (tests), appends (time, what, job) for what in arrive/start/pause/depart/dispatched.
    """
    loop = EventLoop(arrival, gpus, quanta, keys, servers, log)
    while True:
        t, ta = loop.next_time()
        if t == INF:
            break
        loop.advance(t)
        requeued = loop.end_quanta(t, ta)
        loop.admit(t)
        loop.dispatch(t)
        loop.record_preemptions(requeued)
    return loop.depart, loop.preemptions, loop.area, loop.dispatches


def simulate(
    arrival_s: np.ndarray,
    gpus: np.ndarray,
    quanta: list[list[float]],
    keys: list[list[float]],
    servers: int,
    log: list[tuple[float, str, int]] | None = None,
) -> tuple[np.ndarray, int, float, int]:
    """Checked wrapper around `simulate_quanta` returning numpy departure times."""
    if servers < 1:
        raise InvalidInput(f"servers: must be at least 1 (got {servers})")
    if not (len(arrival_s) == len(gpus) == len(quanta) == len(keys)):
        raise InvalidInput("simulate: arrival_s, gpus, quanta and keys differ in length")
    dep, pre, area, disp = simulate_quanta(
        arrival_s.tolist(), [int(g) for g in gpus.tolist()], quanta, keys, servers, log
    )
    return np.asarray(dep, dtype=float), pre, area, disp
