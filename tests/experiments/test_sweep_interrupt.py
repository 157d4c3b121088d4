"""After an interrupt a sweep ends only with `Interrupted`: it submits nothing, an error of the
ended workers is the interrupt, and no pool is forked again (issue #64's remaining race: a
study thread starting a sweep in the instant the workers ended recorded a "failed" manifest).

Deterministic: the engines are fakes or pools that never fork; the interrupt is set by the test
at a chosen point, not sent as a signal."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

from schedlab.experiments import studies, sweep
from schedlab.experiments.store import RowStore
from schedlab.experiments.sweep import Interrupted, Outcome, call_cell, run_cells

HANG_GUARD_S = 60.0  # a thread that should end at once: a hang detector, not a speed target


@pytest.fixture(autouse=True)
def fresh_interrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts uninterrupted and leaves the process's flag and live engines alone."""
    monkeypatch.setattr(sweep, "_STOP", threading.Event())
    monkeypatch.setattr(sweep, "_LIVE", set())


def cell_fn(cell: dict[str, Any]) -> dict[str, Any]:
    return {"y": cell["i"] * 2}


CELLS = [{"i": i} for i in range(4)]


class Recording:
    """An engine that records what it was asked to run; with `fail`, every cell fails as
    one on a killed worker does."""

    name = "recording"

    def __init__(self, fail: bool = False) -> None:
        self.submitted: list[int] = []
        self.fail = fail

    def run(self, fn: Any, todo: Sequence[tuple[int, dict[str, Any]]]) -> Iterator[Any]:
        self.submitted += [i for i, _ in todo]
        for i, cell in todo:
            lost = Outcome(False, "BrokenProcessPool: A child process terminated abruptly", "")
            yield i, lost if self.fail else call_cell(fn, cell, clock="thread")

    def close(self) -> None:
        pass

    def terminate(self) -> None:
        pass


def test_a_sweep_started_after_the_interrupt_submits_nothing(tmp_path):
    store = RowStore(tmp_path / "j.jsonl", ["i"], config={})
    engine = Recording()
    sweep._STOP.set()
    with pytest.raises(Interrupted):
        run_cells(cell_fn, CELLS, store=store, engine=engine)
    assert engine.submitted == []
    assert not (tmp_path / "j.jsonl").exists() or len(store.rows) == 0


class BrokenOnSubmit(Recording):
    """The pool's workers are killed between the sweep's start and its submit (the console's
    Ctrl-C: flag set, then every child killed): submitting raises as a broken pool does."""

    def run(self, fn: Any, todo: Sequence[tuple[int, dict[str, Any]]]) -> Iterator[Any]:
        sweep._STOP.set()
        raise BrokenProcessPool("A child process terminated abruptly")
        yield  # a generator, as the real engines are


def test_a_broken_pool_after_the_interrupt_is_the_interrupt_not_a_failure():
    with pytest.raises(Interrupted) as info:
        run_cells(cell_fn, CELLS, engine=BrokenOnSubmit())
    assert isinstance(info.value.__cause__, BrokenProcessPool)


def test_a_broken_pool_without_an_interrupt_is_still_an_error(monkeypatch):
    class Broken(Recording):
        def run(self, fn: Any, todo: Any) -> Iterator[Any]:
            raise BrokenProcessPool("A child process terminated abruptly")
            yield

    monkeypatch.setattr(sweep, "_STOP", LandsWhileWaited(lands=False))
    with pytest.raises(BrokenProcessPool):
        run_cells(cell_fn, CELLS, engine=Broken())


def test_failed_cells_then_the_interrupt_give_the_interrupt_not_a_sweep_error():
    """Every outcome was taken (failed: the workers were being killed), then the run is
    interrupted before the sweep ends: it must not end with a SweepError, which a study records
    as failed."""

    class FailsThenInterrupted(Recording):
        def run(self, fn: Any, todo: Any) -> Iterator[Any]:
            yield from super().run(fn, todo)
            sweep._STOP.set()  # after the last outcome was taken, before the sweep returns

    with pytest.raises(Interrupted):
        run_cells(cell_fn, CELLS, engine=FailsThenInterrupted(fail=True))


def test_a_study_whose_sweep_meets_the_interrupt_writes_no_manifest(tmp_path):
    def run() -> list[Any]:
        run_cells(cell_fn, CELLS, engine=BrokenOnSubmit())
        return []

    spec = studies.Study("toy", "figure", "", "small", 0, "toy command", run)
    with pytest.raises(Interrupted):
        studies.run_study(spec, tmp_path)
    assert not (tmp_path / "manifests").exists()


class LandsWhileWaited(threading.Event):
    """The interrupt flag of a process whose workers died of a SIGTERM to the process group:
    the handler sets it a moment later, here during the sweep's wait for it. Counts waits."""

    def __init__(self, lands: bool = True) -> None:
        super().__init__()
        self.lands, self.waits = lands, 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        if self.lands:
            self.set()
        return self.is_set()


class LostWorkers(Recording):
    """Every cell's worker died (the pool broke) before the interrupt landed."""

    def run(self, fn: Any, todo: Sequence[tuple[int, dict[str, Any]]]) -> Iterator[Any]:
        for i, _ in todo:
            yield i, Outcome(False, "BrokenProcessPool: terminated abruptly", "", lost=True)


def test_workers_lost_to_a_group_sigterm_wait_for_its_interrupt(monkeypatch):
    """SIGTERM to the group ends the workers at once (its default action) while this
    process's handler has not set the flag yet: the sweep must not be recorded as failed."""
    flag = LandsWhileWaited()
    monkeypatch.setattr(sweep, "_STOP", flag)
    with pytest.raises(Interrupted):
        run_cells(cell_fn, CELLS, engine=LostWorkers())
    assert flag.waits == 1


def test_a_submit_to_a_pool_broken_by_the_signal_waits_for_its_interrupt(monkeypatch):
    class BrokenBeforeTheFlag(Recording):
        def run(self, fn: Any, todo: Any) -> Iterator[Any]:
            raise BrokenProcessPool("A child process terminated abruptly")
            yield

    monkeypatch.setattr(sweep, "_STOP", LandsWhileWaited())
    with pytest.raises(Interrupted):
        run_cells(cell_fn, CELLS, engine=BrokenBeforeTheFlag())


def test_a_pool_broken_without_an_interrupt_is_reported_after_one_wait(monkeypatch):
    flag = LandsWhileWaited(lands=False)
    monkeypatch.setattr(sweep, "_STOP", flag)
    with pytest.raises(sweep.SweepError, match="4 of 4 cells failed"):
        run_cells(cell_fn, CELLS, engine=LostWorkers())
    assert flag.waits == 1  # once per sweep, not once per lost cell


class FakePool:
    """Stands for ProcessPoolExecutor: counts the pools made, runs submissions at once, forks
    nothing."""

    made: list[FakePool] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        FakePool.made.append(self)
        self._processes: dict[int, Any] = {}
        self.shut = False

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        if self.shut:
            raise RuntimeError("cannot schedule new futures after shutdown")
        fut: Future[Any] = Future()
        fut.set_result(fn(*args))
        return fut

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self.shut = True


@pytest.fixture
def fake_pool(monkeypatch: pytest.MonkeyPatch) -> type[FakePool]:
    import concurrent.futures

    FakePool.made = []
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", FakePool)
    return FakePool


def test_a_terminated_pool_forks_no_new_pool(fake_pool):
    engine = sweep.PoolEngine(2)
    assert len(run_cells(cell_fn, CELLS, engine=engine)) == len(CELLS)
    assert len(fake_pool.made) == 1
    engine.terminate()
    assert fake_pool.made[0].shut
    with pytest.raises(Interrupted):
        list(engine.run(cell_fn, [(0, {"i": 0})]))
    assert len(fake_pool.made) == 1  # no second pool: nothing would end its workers
    engine.terminate()  # idempotent


def test_an_interrupted_run_starts_no_pool(fake_pool):
    sweep._STOP.set()
    with pytest.raises(Interrupted):
        list(sweep.PoolEngine(2).run(cell_fn, [(0, {"i": 0})]))
    assert fake_pool.made == []


class StuckClient:
    """A Dask client whose scheduler never answers a cancel."""

    def __init__(self) -> None:
        self.cancels = self.closes = 0
        self.never = threading.Event()

    def cancel(self, futures: Any, force: bool = False) -> None:
        self.cancels += 1
        self.never.wait()

    def close(self, timeout: float | None = None) -> None:
        self.closes += 1


def _dask_engine(client: StuckClient) -> sweep.DaskEngine:
    engine = object.__new__(sweep.DaskEngine)  # no cluster: the client is a fake
    engine.client = client  # type: ignore[assignment]  # a fake of its two methods used
    engine._futures = ["f1", "f2"]
    engine._ended = False
    engine._lock = threading.Lock()
    return engine


def test_dask_terminate_is_bounded_and_idempotent(monkeypatch):
    monkeypatch.setattr(sweep, "CANCEL_TIMEOUT_S", 0.01, raising=False)
    client = StuckClient()
    engine = _dask_engine(client)
    ender = threading.Thread(target=lambda: (engine.terminate(), engine.terminate()), daemon=True)
    ender.start()
    ender.join(HANG_GUARD_S)
    client.never.set()
    assert not ender.is_alive(), "terminate waited on a cancel the scheduler never answered"
    assert (client.cancels, client.closes) == (1, 1)
    with pytest.raises(Interrupted):
        list(engine.run(cell_fn, [(0, {"i": 0})]))
