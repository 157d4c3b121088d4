"""The one sweep runner: a study's cells run in-process, on local processes or on a Dask cluster.

A study is a list of cells (one config dict per cell), a pure module-level cell function
``fn(cell) -> dict`` (a `functools.partial` of one is fine: it must pickle to reach a worker)
and, usually, a journal (`store.RowStore`, keyed by the study's settings and the code version).
`run_cells` computes every cell the journal does not hold yet, appends each row to the journal
as it finishes (so a killed sweep resumes), keeps going past failing cells and raises one
`SweepError` listing them with their configs at the end, and returns the rows in cell order, so
the output is the same whatever the engine and the order in which cells finished.

Engines: `SerialEngine` (in this process), `PoolEngine` (a local process pool, the CLI's
default with one worker per core) and `DaskEngine` (a Dask distributed scheduler; optional
extra ``pip install schedlab[cluster]``). The CLI picks one with ``--workers N`` and
``--scheduler ADDRESS`` (or ``$SCHEDLAB_DASK_SCHEDULER``) through `using`; library code that
sets none runs serially.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import BrokenExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import click

from schedlab.experiments import runstate
from schedlab.solvers.errors import InvalidInput

CellFn = Callable[[dict[str, Any]], dict[str, Any]]
SCHEDULER_ENV = "SCHEDLAB_DASK_SCHEDULER"
START_ENV = "SCHEDLAB_SWEEP_START"  # process start method of the local pool (fork, spawn, ...)
CLUSTER_HINT = "install the cluster extra: pip install 'schedlab[cluster]'"
CONNECT_TIMEOUT_S = 30.0  # how long to try reaching a Dask scheduler
CANCEL_TIMEOUT_S = 5.0  # how long an interrupted run waits for the cluster to cancel its cells
LOST_WORKERS_GRACE_S = 5.0  # how long a sweep whose workers died waits for an interrupt to land


@dataclass(frozen=True)
class Outcome:
    """What a worker sends back for one cell: its row fields, or the error text, and what the
    cell cost (`wall_s`, `cpu_s`, `peak_mb`: see `call_cell`). `lost`: no worker answered (the
    pool broke: its workers died), not an error of the cell."""

    ok: bool
    value: Any
    code: str
    cost: dict[str, float] | None = None
    lost: bool = False


def _peak_rss_mb(reset: bool = False) -> float:
    """This process's peak resident memory (VmHWM) in MB; `reset` starts a new peak (Linux's
    /proc/self/clear_refs), so a worker's peak is the cell's, not its lifetime's. 0 where
    /proc is not there."""
    try:
        if reset:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
            return 0.0
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _process_and_children_cpu() -> float:
    """CPU seconds of this process and of the children it waited for (a solver that runs as a
    subprocess, as PuLP's CBC does, counts in the cell that called it)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def call_cell(fn: CellFn, cell: dict[str, Any], clock: str = "process") -> Outcome:
    """Run one cell where it is executed (any engine); never raises, so no cell loses others.

    BLAS runs on one thread inside a cell, whatever the engine: a multithreaded BLAS sums in
    another order (last-bit differences), and Dask's workers pin it to one thread anyway, so
    without this the rows would depend on the engine. Cells run side by side instead.
    The cost is measured around the call: CPU time of the worker process and its waited-for
    children (`clock` "process"), or of the calling thread in the main process ("thread", where
    other studies' threads share the process), and the peak memory of the process during the
    cell."""
    from threadpoolctl import threadpool_limits

    from schedlab.experiments.codeversion import code_version

    cpu = _process_and_children_cpu if clock == "process" else time.thread_time
    if clock == "process":
        _peak_rss_mb(reset=True)
    t0, c0 = time.perf_counter(), cpu()
    value: Any
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            value = fn(cell)
        ok = True
    except Exception as exc:  # noqa: BLE001 - reported with the cell's config by the runner
        tb = traceback.format_exc(limit=-3).strip()
        value, ok = f"{type(exc).__name__}: {exc}\n{tb}", False
    cost = {"wall_s": time.perf_counter() - t0, "cpu_s": cpu() - c0, "peak_mb": _peak_rss_mb()}
    return Outcome(ok, value, code_version(), cost)


@dataclass(frozen=True)
class CellFailure:
    index: int
    cell: dict[str, Any]
    error: str


class SweepError(InvalidInput):
    """Some cells failed; every other cell finished and is journaled (exit code 2 in the CLI)."""

    def __init__(self, study: str, failures: Sequence[CellFailure], total: int):
        self.failures = list(failures)
        lines = [
            f"sweep {study!r}: {len(failures)} of {total} cells failed; every other cell "
            "finished (a journaled study keeps them: a rerun computes only the failed cells)"
        ]
        for f in failures[:20]:
            first = f.error.splitlines()[0] if f.error else "?"
            lines.append(f"  cell {f.index} {json.dumps(f.cell, sort_keys=True)}: {first}")
        if len(failures) > 20:
            lines.append(f"  ... and {len(failures) - 20} more")
        if failures and len(failures[0].error.splitlines()) > 1:
            lines.append(f"first failure (cell {failures[0].index}), last frames:")
            lines += ["    " + ln for ln in failures[0].error.splitlines()[1:]]
        super().__init__("\n".join(lines))


# ---- engines -------------------------------------------------------------------------------
class Engine(Protocol):
    """Runs cells somewhere and yields (index, outcome) as they finish, in any order."""

    name: str

    def run(
        self, fn: CellFn, todo: Sequence[tuple[int, dict[str, Any]]]
    ) -> Iterator[tuple[int, Outcome]]: ...

    def close(self) -> None: ...

    def terminate(self) -> None: ...


class Interrupted(KeyboardInterrupt):
    """The run was interrupted (Ctrl-C or SIGTERM): a sweep stops taking outcomes, every
    finished row is already journaled, and no manifest or result file is written after it.

    Once the run is interrupted, `run_cells` ends only with this: a sweep that starts then
    submits nothing, and an error of the ended workers (a broken or shut-down pool) is this
    interrupt, not a failed cell or study. A `KeyboardInterrupt`, so a study's `except
    Exception` does not record it as a failure."""


_STOP = threading.Event()
_LIVE: set[Any] = set()  # engines that may hold workers; `interrupt` ends them
_LIVE_LOCK = threading.Lock()


def interrupt() -> None:
    """Stop every sweep of this process now: end the workers of every live engine (local
    processes killed, Dask futures cancelled) and make each `run_cells` raise `Interrupted` at
    its next outcome. Called from the main thread on Ctrl-C or SIGTERM (`studies.run_studies`,
    `using`, the CLI); idempotent."""
    _STOP.set()
    with _LIVE_LOCK:
        engines = list(_LIVE)
    for engine in engines:
        engine.terminate()


def interrupted() -> bool:
    """True once `interrupt` was called in this process."""
    return _STOP.is_set()


def _track(engine: Any, live: bool) -> None:
    with _LIVE_LOCK:
        (_LIVE.add if live else _LIVE.discard)(engine)


class SerialEngine:
    """In this process, one cell after another (for debugging: `--workers 1`)."""

    name = "serial"

    def run(
        self, fn: CellFn, todo: Sequence[tuple[int, dict[str, Any]]]
    ) -> Iterator[tuple[int, Outcome]]:
        for i, cell in todo:
            yield i, call_cell(fn, cell, clock="thread")

    def close(self) -> None:
        pass

    def terminate(self) -> None:
        pass


class PoolEngine:
    """A local process pool, started on first use and reused by every sweep of a `using`
    block. Linux forks the workers: they inherit the imported modules and compiled kernels, so
    a pool starts in well under a second (forkserver or spawn re-import everything in each
    worker, seconds per worker, and re-run a main script that lacks a __main__ guard)."""

    name = "processes"

    def __init__(self, workers: int):
        self.workers = workers
        self._pool: Any = None
        self._ended = False  # set by `terminate`: this engine starts no pool again
        # Held around starting the pool and submitting to it, and by `terminate`: a pool is
        # never forked, nor cells submitted, while (or after) it is ended.
        self._lock = threading.RLock()

    def _executor(self) -> Any:
        """The pool, started on first use; `Interrupted` once the run was interrupted or this
        engine terminated, instead of forking workers that nothing would end. Call it holding
        `_lock`."""
        if self._ended or interrupted():
            raise Interrupted("the run was interrupted: no new worker pool is started")
        if self._pool is None:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            ctx = mp.get_context(start_method())
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=ctx, initializer=_quiet_worker
            )
            _track(self, True)
        return self._pool

    def start(self) -> None:
        """Start every worker now, from the calling thread, with the registries loaded.

        Call it before other threads run (`studies.run_studies` does): a forked worker copies
        the locks of the parent as they are at that instant, and a lock another thread holds
        (the registries' discovery lock, an import) would stay held in the worker forever.
        Forked now, the workers also inherit the imported registries instead of each
        importing them again."""
        from schedlab.solvers.registry import load_all

        load_all()
        with self._lock:
            pool = self._executor()
            futures = [pool.submit(_ready) for _ in range(self.workers)]
        for fut in futures:
            fut.result()

    def run(
        self, fn: CellFn, todo: Sequence[tuple[int, dict[str, Any]]]
    ) -> Iterator[tuple[int, Outcome]]:
        from concurrent.futures import as_completed

        require_picklable(fn)
        with self._lock:
            pool = self._executor()
            futures = {pool.submit(call_cell, fn, cell): i for i, cell in todo}
        for fut in as_completed(futures):
            yield futures[fut], _result(fut)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        _track(self, False)

    def terminate(self) -> None:
        """End the pool now and for good: kill every worker (a cell may run for minutes) and
        drop queued cells; what they had not finished is not journaled and a rerun computes it.
        A sweep that asks this engine for workers afterwards gets `Interrupted`. Idempotent.

        Taken under `_lock`, so a sweep submitting in that instant has forked its workers
        before they are listed here, or forks none."""
        with self._lock:
            self._ended = True
            pool, self._pool = self._pool, None
            _track(self, False)
            if pool is None:
                return
            # The executor keeps its worker processes in `_processes` (no public accessor).
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                if proc.is_alive():
                    proc.kill()
            pool.shutdown(wait=False, cancel_futures=True)


class DaskEngine:
    """A Dask distributed cluster at `address` (schedlab must be installed on its workers)."""

    name = "dask"

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError as exc:
            raise InvalidInput(f"--scheduler needs Dask distributed: {CLUSTER_HINT}") from exc
        self._futures: list[Any] = []
        self._ended = False  # set by `terminate`: this client submits nothing again
        self._lock = threading.Lock()
        try:
            self.client = Client(address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            shown = address if len(address) <= 60 else address[:60] + "..."
            raise InvalidInput(
                f"--scheduler {shown}: cannot reach a Dask scheduler there ({exc}); start one "
                "with `dask scheduler` and workers with `dask worker ADDRESS`, or unset "
                f"${SCHEDULER_ENV}"
            ) from exc
        self.address = address
        _track(self, True)

    @property
    def workers(self) -> int | None:
        """The cells the cluster runs at once now (its workers' threads; None if unreachable)."""
        try:
            return int(sum(self.client.nthreads().values()))
        except (OSError, TimeoutError, RuntimeError, ValueError):
            return None

    def run(
        self, fn: CellFn, todo: Sequence[tuple[int, dict[str, Any]]]
    ) -> Iterator[tuple[int, Outcome]]:
        with self._lock:
            if self._ended or interrupted():
                raise Interrupted("the run was interrupted: no cell is sent to the cluster")
            futures = {self.client.submit(call_cell, fn, cell, pure=False): i for i, cell in todo}
            self._futures += list(futures)
        from distributed import as_completed

        for fut in as_completed(list(futures)):
            yield futures[fut], _result(fut)

    def close(self) -> None:
        _track(self, False)
        self.client.close()

    def terminate(self) -> None:
        """Cancel every cell this client submitted and disconnect (the cluster stays up).

        Idempotent, and bounded: the cancel waits at most `CANCEL_TIMEOUT_S` for a scheduler
        that does not answer (the cluster also drops the cells when the connection closes)."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
            futures, self._futures = self._futures, []
        _track(self, False)
        try:
            _within(CANCEL_TIMEOUT_S, lambda: self.client.cancel(futures, force=True))
        finally:
            self.client.close(timeout=CANCEL_TIMEOUT_S)


def _within(timeout_s: float, call: Callable[[], Any]) -> None:
    """Run `call` in a daemon thread and wait for it at most `timeout_s`; its errors and its
    result are dropped (a best-effort step of ending a run, which must not hang the exit)."""

    def quiet() -> None:
        try:
            call()
        except Exception:  # noqa: BLE001 - best effort: the caller goes on regardless
            pass

    thread = threading.Thread(target=quiet, name="schedlab-cancel", daemon=True)
    thread.start()
    thread.join(timeout_s)


def require_picklable(fn: CellFn) -> None:
    """InvalidInput unless `fn` can be sent to a worker process: a study never falls back to
    running its cells serially in the main process."""
    try:
        pickle.dumps(fn)
    except Exception as exc:  # noqa: BLE001 - any pickling failure is the same mistake
        name = getattr(fn, "__qualname__", repr(fn))
        raise InvalidInput(
            f"sweep: the cell function {name} cannot be sent to worker processes ({exc}); "
            "make it a module-level function (or a functools.partial of one)"
        ) from None


def _ready() -> bool:
    return True


def _quiet_worker() -> None:
    """Worker start-up: C libraries that print to file descriptor 1 whatever their output flag
    (HiGHS's MIP solver prints "HighsMipSolverData::transformNewIntegerFeasibleSolution ...")
    write to /dev/null instead of the run's terminal; a cell's result is its return value.

    A terminal's Ctrl-C reaches the whole process group: the workers ignore SIGINT (one raised
    inside a pool worker leaves the pool waiting forever) and the main process ends them
    (`PoolEngine.terminate`); SIGTERM keeps its default action, ending the worker at once (a
    handler the main process set would otherwise be inherited through fork)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:  # pragma: no cover - no descriptors to redirect
        pass


def _result(fut: Any) -> Outcome:
    """A future's outcome; a lost worker or an unpicklable row becomes a failed cell."""
    try:
        out: Outcome = fut.result()
    except Exception as exc:  # noqa: BLE001 - e.g. BrokenProcessPool, KilledWorker
        return Outcome(False, f"{type(exc).__name__}: {exc}", "", lost=_lost(exc))
    return out


def _lost(exc: BaseException) -> bool:
    """True for the error of a pool whose workers died (BrokenProcessPool)."""
    return isinstance(exc, BrokenExecutor)


def _await_interrupt() -> bool:
    """Wait up to `LOST_WORKERS_GRACE_S` for an interrupt of this process; True if it came.

    A sweep whose workers died may be seeing a signal to the whole process group (a terminal's
    SIGTERM, `kill -TERM -PGID`) before this process's own handler ran: the workers die of it
    at once (its default action) while the handler waits for the main thread. Called once per
    sweep on the first lost worker, so the sweep ends as interrupted, not failed; a pool that
    broke for another reason (a worker crashed) is reported as before, that much later."""
    return _STOP.wait(LOST_WORKERS_GRACE_S)


def start_method() -> str:
    """`$SCHEDLAB_SWEEP_START` if set, else fork on Linux and spawn elsewhere."""
    return os.environ.get(START_ENV) or ("fork" if sys.platform.startswith("linux") else "spawn")


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def make_engine(workers: int | None = None, scheduler: str | None = None) -> Engine:
    """Dask at `scheduler` if given, else `workers` local processes (None: all cores; 1: here)."""
    if scheduler:
        return DaskEngine(scheduler)
    n = default_workers() if workers is None else workers
    if n < 1:
        raise InvalidInput(f"--workers: must be at least 1 (got {n})")
    return SerialEngine() if n == 1 else PoolEngine(n)


_CURRENT: ContextVar[Engine | None] = ContextVar("schedlab_sweep_engine", default=None)


@contextmanager
def using(workers: int | None = None, scheduler: str | None = None) -> Iterator[Engine]:
    """Run every sweep inside the block on this engine (closed at the end of the block)."""
    engine = make_engine(workers, scheduler)
    token = _CURRENT.set(engine)
    try:
        yield engine
    except KeyboardInterrupt:
        interrupt()
        raise
    finally:
        _CURRENT.reset(token)
        if interrupted():
            engine.terminate()
        else:
            engine.close()


def current_engine() -> Engine:
    """The engine set by `using`, else serial in this process."""
    return _CURRENT.get() or SerialEngine()


# ---- the runner ----------------------------------------------------------------------------
class Journal(Protocol):
    """What a sweep reads and appends of its journal (`store.RowStore`, which runs its cells
    here: the store sits above the sweep and the sweep imports no store)."""

    path: Path
    rows: list[dict[str, Any]]

    def key(self, row: dict[str, Any]) -> tuple[Any, ...]: ...

    def cost_of(self, key: tuple[Any, ...]) -> dict[str, float]: ...

    def add(self, row: dict[str, Any], *, cost: dict[str, float] | None = None) -> None: ...


def run_cells(
    fn: CellFn,
    cells: Iterable[Mapping[str, Any]],
    *,
    store: Journal | None = None,
    desc: str = "",
    engine: Engine | None = None,
) -> list[dict[str, Any]]:
    """Rows ``{**cell, **fn(cell)}`` of every cell, in cell order; finished cells come from
    `store`'s journal, new ones are appended to it (with what they cost) as they finish. Raises
    `SweepError` (after finishing every other cell) if any cell failed.

    Once the run is interrupted (`interrupt`, the console's Ctrl-C), it raises `Interrupted`
    instead: before submitting anything, at its next outcome, on any error of the ended
    workers, and in place of its result or its `SweepError`, so a study thread never records
    an interrupted sweep as failed nor writes results after the interrupt. Workers lost before
    the interrupt landed (a signal to the process group ends them first) get it a grace
    period to land (`_await_interrupt`).

    Inside a study (`studies.run_study`) the cells count in its manifest and in the run's one
    progress bar; elsewhere the sweep draws a bar of its own."""
    from schedlab.experiments.codeversion import code_version

    if interrupted():
        raise Interrupted("the run was interrupted: no sweep starts")
    cell_list = [dict(c) for c in cells]
    engine = engine or current_engine()
    done = {store.key(r): r for r in store.rows} if store is not None else {}
    rows: dict[int, dict[str, Any]] = {}
    todo: list[tuple[int, dict[str, Any]]] = []
    reused_cpu: list[float] = []
    for i, cell in enumerate(cell_list):
        row = done.get(store.key(cell)) if store is not None else None
        if row is None or store is None:
            todo.append((i, cell))
        else:
            rows[i] = row
            reused_cpu.append(float(store.cost_of(store.key(cell)).get("cpu_s", 0.0)))
    name = desc or (store.path.stem if store is not None else "sweep")
    stats = runstate.STUDY.get()
    if stats is not None:
        stats.count_cells(len(cell_list), reused_cpu)
    bar = _Bar(name, len(cell_list), len(rows))
    failures: list[CellFailure] = []
    here = code_version()
    waited = False  # for an interrupt behind lost workers (`_await_interrupt`), once a sweep
    try:
        for i, out in engine.run(fn, todo):
            if out.lost and not waited:
                _await_interrupt()
                waited = True
            _stop_if_interrupted(name)
            if out.ok and out.code != here:
                out = Outcome(False, f"worker runs other code ({out.code}; here {here})", "")
            if out.ok:
                row = _normalized({**cell_list[i], **out.value})
                if store is not None:
                    store.add(row, cost=out.cost)
                rows[i] = row
            else:
                failures.append(CellFailure(i, cell_list[i], str(out.value)))
            if stats is not None:
                stats.count_computed(out.cost, out.ok)
            bar.update()
    except Exception as exc:
        # The ended workers fail in their own ways (BrokenProcessPool on submit, a shut-down
        # pool's RuntimeError, a closed Dask client): after an interrupt, that is the interrupt.
        if _lost(exc) and not waited:
            _await_interrupt()
        _stop_if_interrupted(name, exc)
        raise
    finally:
        bar.close()
    _stop_if_interrupted(name)
    if failures:
        raise SweepError(name, sorted(failures, key=lambda f: f.index), len(cell_list))
    return [rows[i] for i in range(len(cell_list))]


def _stop_if_interrupted(name: str, cause: BaseException | None = None) -> None:
    """`Interrupted` (from `cause`, the error the ended workers gave) if the run was
    interrupted; nothing otherwise."""
    if interrupted():
        raise Interrupted(f"sweep {name!r} interrupted") from cause


class _Bar:
    """A sweep's progress: the run's one bar when there is one, else a bar of its own."""

    def __init__(self, name: str, total: int, done: int) -> None:
        from tqdm import tqdm

        self.shared = runstate.PROGRESS.get()
        self.own = None
        if self.shared is not None:
            self.shared.add(total, done)
        else:
            self.own = tqdm(total=total, initial=done, desc=name, unit="cell", file=sys.stderr,
                            disable=None, leave=False, dynamic_ncols=True)  # fmt: skip

    def update(self) -> None:
        if self.shared is not None:
            self.shared.advance(1)
        elif self.own is not None:
            self.own.update(1)

    def close(self) -> None:
        if self.own is not None:
            self.own.close()


def _normalized(row: dict[str, Any]) -> dict[str, Any]:
    """The row as its journal line reads back, so a fresh and a resumed run give equal rows."""
    out: dict[str, Any] = json.loads(json.dumps(row))
    return out


# ---- command-line options ------------------------------------------------------------------
def engine_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--workers N`` and ``--scheduler ADDRESS`` to a click command."""
    func = click.option(
        "--scheduler",
        metavar="ADDRESS",
        envvar=SCHEDULER_ENV,
        default=None,
        help=f"Run cells on a Dask distributed scheduler (e.g. tcp://host:8786; env "
        f"{SCHEDULER_ENV}); needs schedlab[cluster] on every worker.",
    )(func)
    from schedlab.experiments.cliflags import WORKERS

    return click.option(
        "--workers",
        type=WORKERS,
        default=None,
        help="Local worker processes for the cells (default: all cores; 1: in this process).",
    )(func)
