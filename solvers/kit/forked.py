"""Run a solver call in a forked child that is killed shortly after a deadline.

Some solver phases cannot be interrupted: HiGHS's MIP solves its root LP without polling the
interrupt callbacks or its own time limit (PACE #68: a 34 s root LP started with 22 s left, the
run ended 12 s past a 40 s limit; at 600 s, 47 s past; docs/sojourn.md). A forked child shares
the parent's model state copy-on-write, so the call needs no serialisation of its inputs; only
its result crosses a pipe. Where the platform has no `fork` (Windows; macOS's fork is unsafe
with the frameworks HiGHS links), `forking_available` is false and callers run in-process.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from schedlab.solvers.validate import Deadline

T = TypeVar("T")

FORK_KILL_GRACE_S = 1.0  # a child still running this long after the deadline is killed


class ForkedCallFailed(RuntimeError):
    """The forked call raised: its message, as the child printed it."""


def forking_available() -> bool:
    """True on Linux, where `fork` is a start method and safe for a process holding HiGHS."""
    return sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods()


def run_forked(
    call: Callable[[], T], deadline: Deadline, grace: float = FORK_KILL_GRACE_S
) -> tuple[T | None, bool]:
    """`call()` run in a forked child: (its result, False), or (None, True) when the child is
    still running `grace` seconds after `deadline` (then killed) or died without answering.
    An exception in the child is raised here as ForkedCallFailed."""
    ctx = mp.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(("ok", call()))
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises
            send.send(("error", f"{type(exc).__name__}: {exc}"))
        finally:
            send.close()

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    left = deadline.remaining()
    answer: Any = None
    if receive.poll(None if left is None else left + grace):
        try:
            answer = receive.recv()
        except EOFError:  # the child died (killed by the system, a crash in the solver)
            answer = None
    receive.close()
    if answer is None:
        proc.kill()
    proc.join()
    if answer is None:
        return None, True
    kind, value = answer
    if kind == "error":
        raise ForkedCallFailed(f"the forked solver call failed: {value}")
    return value, False
