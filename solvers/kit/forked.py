"""Run a solver call in a forked child that is killed shortly after a deadline.

Some solver phases cannot be interrupted: HiGHS's MIP solves its root LP without polling the
interrupt callbacks or its own time limit (PACE #68: a 34 s root LP started with 22 s left, the
run ended 12 s past a 40 s limit; at 600 s, 47 s past; docs/lop.md). A forked child shares
the parent's model state copy-on-write, so the call needs no serialisation of its inputs; only
its progress reports and result cross a pipe. Off Linux (no `fork` on Windows; on macOS
Python's documentation calls `fork` unsafe, its children may crash), `forking_available` is
false and callers run in-process.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

from schedlab.solvers.validate import Deadline

T = TypeVar("T")

FORK_KILL_GRACE_S = 1.0  # a child still running this long after the deadline is killed


class ForkedCallFailed(RuntimeError):
    """The forked call raised: the exception's type and message, as the child formatted them."""


def forking_available() -> bool:
    """True on Linux, where `fork` is a start method and safe for a process holding HiGHS,
    unless this process is a daemonic one (a dask worker's, a `multiprocessing.Pool`'s), which
    multiprocessing does not let have children."""
    linux = sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods()
    return linux and not mp.current_process().daemon


Report = Callable[[dict[str, Any]], None]


def run_forked(
    call: Callable[[Report], T], deadline: Deadline, grace: float = FORK_KILL_GRACE_S
) -> tuple[T | None, bool, dict[str, Any]]:
    """`call(report)` run in a forked child: (its result, False, progress), or (None, True,
    progress) when the child is still running `grace` seconds after `deadline` (then killed) or
    died without answering. `report(d)` in the child sends `d` to the parent, which merges the
    dicts in order into `progress` (a killed call's incumbents and bounds survive it). An
    exception in the child is raised here as ForkedCallFailed."""
    ctx = mp.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(("ok", call(lambda d: send.send(("progress", d)))))
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises
            send.send(("error", f"{type(exc).__name__}: {exc}"))
        finally:
            send.close()

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    progress: dict[str, Any] = {}
    answer = _listen(receive, deadline, grace, progress)
    receive.close()
    if answer is None:
        proc.kill()
        proc.join()
        return None, True, progress
    proc.join()
    kind, value = answer
    if kind == "error":
        raise ForkedCallFailed(f"the forked solver call failed: {value}")
    return value, False, progress


def _listen(
    receive: Any, deadline: Deadline, grace: float, progress: dict[str, Any]
) -> tuple[str, Any] | None:
    """Read the child's messages until its answer (returned) or `grace` s past the deadline
    (None); progress reports are merged on the way (read at once: a report larger than the
    pipe's buffer blocks the child until read)."""
    left = deadline.remaining()
    hard = None if left is None else time.monotonic() + left + grace
    while True:
        wait = None if hard is None else max(0.0, hard - time.monotonic())
        if not receive.poll(wait):
            return None
        try:
            kind, value = receive.recv()
        except EOFError:  # the child died (killed by the system, a crash in the solver)
            return None
        if kind != "progress":
            return kind, value
        progress.update(value)
