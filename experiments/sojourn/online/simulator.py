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
    n = len(arrival)
    classes = sorted(set(gpus))
    if classes and classes[-1] > servers:
        raise InvalidInput(
            f"servers: a job needs {classes[-1]} GPUs but only {servers} servers exist"
        )
    queues: dict[int, list[tuple[float, int]]] = {g: [] for g in classes}
    single = queues[classes[0]] if len(classes) == 1 else None
    g_single = classes[0] if classes else 1
    heappush, heappop = heapq.heappush, heapq.heappop
    events: list[tuple[float, int]] = []
    level = [0] * n
    nq = [len(q) for q in quanta]
    running = [False] * n
    depart = [INF] * n
    free = servers
    waiting = 0
    preemptions = 0
    dispatches = 0
    area = 0.0
    t_prev = arrival[0] if n else 0.0
    ia = 0
    while True:
        ta = arrival[ia] if ia < n else INF
        te = events[0][0] if events else INF
        t = ta if ta < te else te
        if t == INF:
            break
        busy = servers - free
        if busy:
            area += busy * (t - t_prev)
        t_prev = t
        requeued = None
        while events and events[0][0] == t:
            _, j = heappop(events)
            lv = level[j] + 1
            if lv == nq[j]:
                depart[j] = t
                running[j] = False
                free += gpus[j]
                if log is not None:
                    log.append((t, "depart", j))
            elif waiting == 0 and ta != t and (not events or events[0][0] != t):
                # a quantum ended, nothing else competes at this instant: keep running
                level[j] = lv
                heappush(events, (t + quanta[j][lv], j))
            else:
                level[j] = lv
                running[j] = False
                free += gpus[j]
                if log is not None:
                    log.append((t, "pause", j))
                heappush(queues[gpus[j]], (keys[j][lv], j))
                waiting += 1
                if requeued is None:
                    requeued = [j]
                else:
                    requeued.append(j)
        while ia < n and arrival[ia] == t:
            heappush(queues[gpus[ia]], (keys[ia][0], ia))
            waiting += 1
            if log is not None:
                log.append((t, "arrive", ia))
            ia += 1
        if waiting and free:
            dispatches += 1
            if single is not None:
                while single and free >= g_single:
                    _, j = heappop(single)
                    waiting -= 1
                    free -= g_single
                    running[j] = True
                    heappush(events, (t + quanta[j][level[j]], j))
                    if log is not None:
                        log.append((t, "start", j))
            else:
                while waiting and free:
                    best = None
                    for g in classes:
                        if g > free:
                            break
                        q = queues[g]
                        if q and (best is None or q[0] < best):
                            best = q[0]
                            bq = q
                    if best is None:
                        break
                    _, j = heappop(bq)
                    waiting -= 1
                    free -= gpus[j]
                    running[j] = True
                    heappush(events, (t + quanta[j][level[j]], j))
                    if log is not None:
                        log.append((t, "start", j))
            if log is not None:
                log.append((t, "dispatched", free))
        if requeued is not None:
            for j in requeued:
                if not running[j]:
                    preemptions += 1
    return depart, preemptions, area, dispatches


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
