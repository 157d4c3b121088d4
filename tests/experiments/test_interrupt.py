"""Ctrl-C and SIGTERM end a real multi-worker run: exit 130/143 at once, no process of the run
left, every journaled row kept, and a rerun resumes from them.

Each run is a `schedlab` subprocess in a session of its own, signalled as a terminal would
(the whole process group). The waits are capped hang detectors, never speed targets: the
signal is sent once the run has journaled rows, however long that takes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads process groups from /proc"
)

SCHEDLAB = str(Path(sys.executable).with_name("schedlab"))
DASK = str(Path(sys.executable).with_name("dask"))
EXIT_BOUND_S = 15.0  # from the signal to the exit: a hang detector
ROWS_CAP_S = 300.0  # for the run to journal its first rows
FINISH_CAP_S = 600.0  # for a rerun left to finish


def _start(out: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [SCHEDLAB, *args, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _journals(out: Path) -> dict[Path, list[bytes]]:
    """Every journal under `out`, as its complete lines (a torn last line left out)."""
    found = {}
    for path in sorted(out.rglob("*.jsonl")):
        data = path.read_bytes()
        found[path] = data[: data.rfind(b"\n") + 1].splitlines()
    return found


def _row_count(out: Path) -> int:
    return sum(max(0, len(lines) - 1) for lines in _journals(out).values())


def _wait_for_rows(proc: subprocess.Popen[bytes], out: Path, rows: int) -> None:
    """Until the run has journaled `rows` rows; fails if it ends first or takes past the cap."""
    deadline = time.monotonic() + ROWS_CAP_S
    while _row_count(out) < rows:
        assert proc.poll() is None, f"the run ended before {rows} rows were journaled"
        assert time.monotonic() < deadline, f"no {rows} journaled rows in {ROWS_CAP_S} s"
        time.sleep(0.05)


def _signal_and_wait(proc: subprocess.Popen[bytes], sig: int) -> tuple[int, float, str]:
    """Signal the run's process group; its exit code, the seconds it took to exit, stderr."""
    t0 = time.monotonic()
    os.killpg(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=EXIT_BOUND_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the run did not exit within {EXIT_BOUND_S} s of the signal")
    return proc.returncode, time.monotonic() - t0, err.decode(errors="replace")


def _live_in_group(pgid: int) -> list[int]:
    """Processes of group `pgid` that are not zombies (a zombie has ended; its reaping is the
    init process's business once its parent exited)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(int(stat.parent.name))
    return live


def _assert_group_gone(pgid: int) -> None:
    deadline = time.monotonic() + EXIT_BOUND_S
    while (left := _live_in_group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes of the run still alive: {left}"


def _assert_only_grew(before: dict[Path, list[bytes]], after: dict[Path, list[bytes]]) -> None:
    """Every journal line there before is still there, in place; nothing was computed twice."""
    for path, lines in before.items():
        assert after[path][: len(lines)] == lines, f"{path} lost or changed rows"
    for path, lines in after.items():
        rows = [json.loads(line) for line in lines[1:]]
        for row in rows:
            row.pop("_cost", None)
        unique = {json.dumps(r, sort_keys=True) for r in rows}
        assert len(unique) == len(rows), f"{path} holds a row computed twice"


def _assert_no_failed_manifest(out: Path) -> None:
    """A study that finished before the signal may record its manifest; none records the
    interrupt as a failure (a study thread starting a sweep in the instant the workers end
    gets `sweep.Interrupted`, not a broken pool)."""
    for path in (out / "manifests").glob("*.json"):
        assert json.loads(path.read_text())["status"] == "ok", path.read_text()


def test_reproduce_ends_on_ctrl_c_and_on_sigterm_keeping_its_rows(tmp_path):
    """The reproduction runs its studies in threads on two local workers: Ctrl-C (exit 130),
    then SIGTERM on the rerun (exit 143), each within the bound, with no process left and no
    manifest saying "failed"."""
    args = ("reproduce", "--size", "small", "--workers", "2")
    proc = _start(tmp_path, *args)
    _wait_for_rows(proc, tmp_path, 2)
    code, _, err = _signal_and_wait(proc, signal.SIGINT)
    assert code == 130, err
    assert "interrupted; finished results were kept" in err
    assert "Traceback" not in err
    _assert_group_gone(proc.pid)
    _assert_no_failed_manifest(tmp_path)
    first = _journals(tmp_path)
    assert sum(len(lines) - 1 for lines in first.values()) >= 2  # the rows are still there

    proc = _start(tmp_path, *args)
    _wait_for_rows(proc, tmp_path, _row_count(tmp_path) + 2)
    code, _, err = _signal_and_wait(proc, signal.SIGTERM)
    assert code == 143, err
    assert "Traceback" not in err
    _assert_group_gone(proc.pid)
    _assert_no_failed_manifest(tmp_path)
    _assert_only_grew(first, _journals(tmp_path))


def test_figure_ends_on_sigterm_and_its_rerun_computes_only_the_rest(tmp_path):
    args = ("figure", "sojourn-heuristics", "--size", "small", "--workers", "2")
    proc = _start(tmp_path, *args)
    _wait_for_rows(proc, tmp_path, 3)
    code, _, err = _signal_and_wait(proc, signal.SIGTERM)
    assert code == 143, err
    _assert_group_gone(proc.pid)
    assert not (tmp_path / "manifests").exists()  # nothing recorded for an unfinished study
    kept = _row_count(tmp_path)

    rerun = subprocess.run(
        [SCHEDLAB, *args, "--out", str(tmp_path)],
        capture_output=True,
        timeout=FINISH_CAP_S,
    )
    assert rerun.returncode == 0, rerun.stderr.decode(errors="replace")
    manifest = json.loads((tmp_path / "manifests" / "sojourn-heuristics.json").read_text())
    assert manifest["status"] == "ok"
    assert manifest["computed"] == manifest["cells"] - kept  # every kept row was reused


#: A command interrupted in its main thread, whose study thread starts its next sweep just after
#: the command ended its workers (before the fix it forked a fresh pool there); what the late
#: sweep met and the ids of any workers it forked go to argv[1].
LATE_SWEEP = """
import sys, threading
import click
from schedlab.experiments import cli, sweep
from schedlab.experiments.registry import register_command

ENGINE = []
end_workers = cli._end_workers


def cell(c):
    return {"x": c["i"]}


def late_sweep():
    try:
        sweep.run_cells(cell, [{"i": i} for i in range(4)], engine=ENGINE[0])
        met = "rows"
    except sweep.Interrupted:
        met = "interrupted"
    except Exception as exc:
        met = type(exc).__name__
    pool = ENGINE[0]._pool
    pids = [p.pid for p in pool._processes.values() if p.is_alive()] if pool else []
    with open(sys.argv[1], "w") as fh:
        fh.write(" ".join([met, *map(str, pids)]))


def end_workers_then_late_sweep():
    end_workers()
    if not ENGINE[1:]:
        ENGINE.append("late sweep started")
        thread = threading.Thread(target=late_sweep)
        thread.start()
        thread.join(timeout=120)


@register_command("late-sweep")
@click.command()
def command():
    with sweep.using(2) as engine:
        ENGINE.append(engine)
        raise KeyboardInterrupt  # Ctrl-C in the main thread


cli._end_workers = end_workers_then_late_sweep
cli.main(["late-sweep"])
"""


def test_a_sweep_started_after_the_interrupt_forks_nothing_and_nothing_outlives_it(tmp_path):
    """A study thread's sweep started after Ctrl-C ended the workers is interrupted and forks
    no pool (workers forked then would ignore SIGINT and, left alone, run on as orphans); no
    process of the command is left."""
    pids_file, err_file = tmp_path / "pids", tmp_path / "stderr"
    with open(err_file, "wb") as err:  # a file: a live orphan would hold a pipe open
        proc = subprocess.Popen(
            [sys.executable, "-c", LATE_SWEEP, str(pids_file)],
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail("the command did not end")
    assert proc.returncode == 130, err_file.read_text(errors="replace")
    met, *pids = pids_file.read_text().split()
    assert (met, pids) == ("interrupted", [])  # no pool forked after the interrupt
    try:
        _assert_group_gone(proc.pid)
    finally:
        for pid in _live_in_group(proc.pid):
            os.kill(pid, signal.SIGKILL)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _background(*args: str) -> subprocess.Popen[bytes]:
    """A quiet process in a session of its own (not reached by the run's signals)."""
    return subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


@pytest.fixture
def dask_cluster() -> Iterator[str]:
    """A Dask scheduler and a worker of two processes on 127.0.0.1, shut down at the end."""
    pytest.importorskip("distributed")
    from distributed import Client

    address = f"tcp://127.0.0.1:{_free_port()}"
    host, port = address[6:].split(":")
    procs = [
        _background(DASK, "scheduler", "--host", host, "--port", port, "--no-dashboard"),
        _background(
            DASK, "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"
        ),
    ]
    try:
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_ctrl_c_on_a_dask_cluster_leaves_the_cluster_serving(tmp_path, dask_cluster):
    """Ctrl-C cancels the run's cells and disconnects (exit 130); the cluster stays up, none of
    the run's tasks stays on its workers, and they still run new work."""
    from distributed import Client

    args = ("figure", "sojourn-heuristics", "--size", "small", "--scheduler", dask_cluster)
    proc = _start(tmp_path, *args)
    _wait_for_rows(proc, tmp_path, 3)
    code, _, err = _signal_and_wait(proc, signal.SIGINT)
    assert code == 130, err
    assert "Traceback" not in err and "internal error" not in err
    _assert_group_gone(proc.pid)

    with Client(dask_cluster, timeout=30) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        deadline = time.monotonic() + EXIT_BOUND_S
        while busy := _cluster_work(client):
            assert time.monotonic() < deadline, f"the run's tasks are still on the cluster: {busy}"
            time.sleep(0.1)
        assert client.submit(sum, [1, 2], pure=False).result(timeout=60) == 3


def _cluster_work(client: Any) -> list[str]:
    """The tasks the cluster's workers are running or hold results of."""
    held = [*client.processing().values(), *client.has_what().values()]
    return [str(key) for keys in held for key in keys]
