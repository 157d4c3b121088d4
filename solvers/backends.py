"""Solver back-end plumbing shared by the subjects: the CBC binary under a hard time limit,
HiGHS runs stopped on the wall clock (neither solver's own limit is checked everywhere), and
one CP-SAT solver set up from the options every subject names alike."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedlab.solvers.validate import Deadline, solver_seed

#: CBC overruns `-sec` inside its root LP; it is killed this long after the limit.
CBC_KILL_GRACE_S = 1.0


def run_cbc(mps: Path, options: list[str], deadline: Deadline) -> tuple[str, bool]:
    """Run PuLP's CBC binary on `mps` with `-sec` the time left before `deadline` (when it has
    one) and then `options`; kill it CBC_KILL_GRACE_S after the limit. Returns (its output so
    far, whether killed)."""
    from pulp.apis.coin_api import pulp_cbc_path

    args = [pulp_cbc_path, str(mps)]
    hard = None
    left = deadline.remaining(floor=0.01)  # CBC's one conversion
    if left is not None:
        args += ["-sec", f"{left:.3f}"]
        hard = left + CBC_KILL_GRACE_S
    try:
        run = subprocess.run(
            [*args, *options], capture_output=True, text=True, timeout=hard,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        return (out.decode(errors="replace") if isinstance(out, bytes) else out), True
    return run.stdout, False


def interrupt_after(h: Any, deadline_of: Callable[[], Deadline]) -> None:
    """Arm the simplex, interior-point and MIP interrupt callbacks of the highspy model `h`:
    a run stops once the deadline `deadline_of()` has passed. HiGHS checks its own time limit
    between phases only; the flag persists between runs, so it is set either way at every
    call."""

    def check(event: Any) -> None:
        event.interrupt(deadline_of().passed())

    for hook in (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt):
        hook.subscribe(check)


def cpsat_solver(
    *,
    num_workers: int,
    seed: int | None,
    deadline: Deadline,
    max_deterministic_time: float | None = None,
    floor: float = 0.01,
) -> Any:
    """A CP-SAT solver with `num_workers`, the seed rule (`solver_seed`; None: CP-SAT's own),
    the time left before `deadline` (CP-SAT's one conversion, at least `floor` seconds) and the
    deterministic limit when given."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    prm = solver.parameters
    prm.num_workers = num_workers
    if seed is not None:
        prm.random_seed = solver_seed(seed)
    left = deadline.remaining(floor=floor)
    if left is not None:
        prm.max_time_in_seconds = float(left)
    if max_deterministic_time is not None:
        prm.max_deterministic_time = float(max_deterministic_time)
    return solver
