"""Moved to the exact back ends' kit (`schedlab.solvers.kit`): `run_cbc` and `interrupt_after`
are in `kit.mip`, `cpsat_solver` in `kit.cpsat`. These names stay here one release for code
written against them; import them from the kit."""

from __future__ import annotations

from schedlab.solvers.kit.cpsat import cpsat_solver
from schedlab.solvers.kit.mip import CBC_KILL_GRACE_S, interrupt_after, run_cbc

__all__ = ["CBC_KILL_GRACE_S", "cpsat_solver", "interrupt_after", "run_cbc"]
