"""lpcut's MIP hand-off: the cut model made integer and run by HiGHS's MIP in a forked child.

The child is killed a grace period after the deadline (`kit.forked`: HiGHS's presolve and root
LP do not always stop at its time limit); a killed run gives the last dual bound and improving
point the child reported. In-process where the platform cannot fork.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedlab.solvers.kit.forked import Report, forking_available, run_forked
from schedlab.solvers.lop.lpcut.lp_model import CutLp
from schedlab.solvers.validate import Deadline


@dataclass(frozen=True)
class MipRun:
    """What a MIP run of a block leaves: proven optimal, its feasible point (None if it has
    none), HiGHS's dual bound in the model's scaled units, its node count (-1: unknown), and
    whether it was killed past the deadline (`MipHandoff._run_mip`)."""

    proven: bool
    x: np.ndarray | None
    dual: float
    nodes: int
    killed: bool = False


class MipHandoff(CutLp):
    """The MIP on the block's cut model (its columns made integer)."""

    gap_abs: float  # the MIP's absolute gap, unscaled (`HighsCutModel`)
    lp_done: bool  # the LP phase is over: the model is a MIP

    def _to_mip(self) -> None:
        """Make every column integer, with an absolute gap of `gap_abs` (scaled) and none
        relative."""
        self.lp_done = True
        P = len(self.d)
        self.h.changeColsIntegrality(P, np.arange(P, dtype=np.int32), np.ones(P, dtype=np.uint8))
        self.h.setOptionValue("mip_rel_gap", 0.0)
        self.h.setOptionValue("mip_abs_gap", self.gap_abs / self.s)

    def _run_mip(self, deadline: Deadline) -> MipRun:
        """HiGHS's MIP on the model as it stands, in a forked child killed FORK_KILL_GRACE_S
        after the deadline (`kit.forked`: its root LP does not stop at the limit); a killed
        run gives the last dual bound and improving point the child reported. In-process
        where the platform cannot fork."""
        self.time_limit(deadline)
        self.ipm_tolerance(None)
        if not forking_available():
            self.h.run()
            return self._mip_outcome()

        def go(report: Report) -> MipRun:
            self._report_progress(report)
            self.h.run()
            return self._mip_outcome()

        run, killed, seen = run_forked(go, deadline)
        if not killed and run is not None:
            return run
        x = seen.get("x")
        ok = x is not None and len(x) == len(self.d)
        return MipRun(False, x if ok else None, seen.get("dual", -math.inf), -1, killed=True)

    def _report_progress(self, report: Report) -> None:
        """In the MIP's child: report each improving point and each rise of the dual bound."""
        last = [-math.inf]

        def on_bound(event: Any) -> None:
            dual = float(event.data_out.mip_dual_bound)
            if math.isfinite(dual) and dual > last[0]:
                last[0] = dual
                report({"dual": dual})

        def on_solution(event: Any) -> None:
            report({"x": np.asarray(event.data_out.mip_solution, dtype=float)})

        self.h.cbMipInterrupt.subscribe(on_bound)
        self.h.cbMipImprovingSolution.subscribe(on_solution)

    def _mip_outcome(self) -> MipRun:
        info = self.h.getInfo()
        x = np.asarray(self.h.getSolution().col_value, dtype=float)
        has = len(x) == len(self.d) and math.isfinite(float(info.objective_function_value))
        feasible = has and info.primal_solution_status == 2  # kSolutionStatusFeasible
        return MipRun(
            proven=self.h.getModelStatus() == self.hs.HighsModelStatus.kOptimal,
            x=x if feasible else None,
            dual=float(info.mip_dual_bound),
            nodes=int(info.mip_node_count),
        )
