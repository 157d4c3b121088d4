"""The MILP glue of every exact back end: HiGHS in process and the CBC binary on a `LinearModel`
(or the same model as arrays, a `CscModel`), and the same two solvers on a PuLP model, each
with one reading of what the solver proved.

- `solve_mip(model, solver=...)`: HiGHS (highspy, stopped on the wall clock) or CBC (an MPS file
  that HiGHS writes, the binary killed shortly after the limit: its root LP overruns `-sec`).
- `solve_pulp(prob, solver=...)`: a PuLP model, for a back end that re-solves one model after
  adding rows: HiGHS through PuLP's own interface step by step (so that the time limit is what
  is left after PuLP's hand-over, with the interrupt callbacks armed), CBC through the same
  killed binary. The PuLP rule: `prob.sol_status` (1 proven optimal, 2 feasible), never
  `prob.status` or PuLP's "Optimal" string, which PuLP also reports after a time limit with an
  incumbent (`pulp_solution`).

Every outcome is a `MipOutcome`: the solution (None: none), its objective recomputed from the
solution, a proven bound on the model's optimum (lower when minimizing, upper when maximizing;
None: none), whether the solver proved it optimal, and the status `certify` gives them in model
units. HiGHS's bound is its MIP dual bound; CBC's is the value within the gap it was allowed
after a proof, else the bound its log prints (rounded past its printed digits).
"""

from __future__ import annotations

import math
import re
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.solvers.kit.linear import CscModel, LinearModel
from schedlab.solvers.result import PROOF_TOL, Status, certify
from schedlab.solvers.validate import NO_DEADLINE, Deadline, solver_seed

#: The absolute MIP gap asked of HiGHS by default (a solver setting, with a zero relative gap;
#: the status is decided by `certify`).
MIP_ABS_GAP = 1e-9
#: CBC's default absolute gap: a tenth of the proof tolerance, so that its proof (the value
#: within the gap) still certifies optimality.
CBC_GAP_ABS = PROOF_TOL / 10
#: CBC overruns `-sec` inside its root LP; it is killed this long after the limit.
CBC_KILL_GRACE_S = 1.0
#: HiGHS's model statuses that mean a limit stopped it: the time limit, the interrupt callbacks,
#: or a work limit the caller set (`mip_max_nodes` ends in kSolutionLimit, an iteration cap in
#: kIterationLimit): a stop, never a failure.
_STOPPED = ("kTimeLimit", "kInterrupt", "kSolutionLimit", "kIterationLimit")


@dataclass(frozen=True)
class MipOutcome:
    """What a MILP or CP-SAT solve found: `x` the column values (None: no solution), `value`
    their objective, `bound` a proven bound on the model's optimum (None: none), `proven` the
    solver's own optimality proof, `status` from `certify` (or INFEASIBLE, ERROR, TIMEOUT)."""

    status: Status
    x: np.ndarray | None
    value: float | None
    bound: float | None
    stats: dict[str, Any] = field(default_factory=dict)
    proven: bool = False

    @property
    def infeasible(self) -> bool:
        return self.status is Status.INFEASIBLE


def outcome(
    x: np.ndarray | None,
    value: float | None,
    bound: float | None,
    maximize: bool,
    *,
    proven: bool = False,
    infeasible: bool = False,
    failed: bool = False,
    stats: dict[str, Any] | None = None,
) -> MipOutcome:
    """The outcome of a finished solve: INFEASIBLE when proven so, ERROR when the solver failed
    with nothing to show, else `certify` of the value against the bound."""
    stats = dict(stats or {})
    if infeasible:
        return MipOutcome(Status.INFEASIBLE, None, None, None, stats)
    if failed and value is None:
        return MipOutcome(Status.ERROR, None, None, bound, stats)
    cert = certify(value, bound, "max" if maximize else "min")
    stats.update(cert.stats)
    return MipOutcome(cert.status, x if value is not None else None, cert.value, cert.bound,
                      stats, proven and value is not None)  # fmt: skip


# ---- processes and callbacks ---------------------------------------------------------------
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


_NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"


def _floor_printed(text: str) -> float:
    """The printed number minus one unit of its last printed digit (CBC rounds when printing)."""
    x = float(text)
    mant = text.lower().split("e")[0]
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    exp = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    return x - 10.0 ** (exp - decimals)


def cbc_log_bound(log: str) -> float | None:
    """A sound lower bound (CBC minimizes) read from the log of a stopped CBC run (None if it
    printed none): the final "Lower bound:" line or else the last "best possible" progress
    figure, lowered by one unit of the last printed digit because CBC rounds what it prints."""
    for pat in (r"Lower bound:\s*" + _NUM, r"best possible\s*" + _NUM):
        m = re.findall(pat, log)
        if m:
            return _floor_printed(m[-1])
    return None


def _cbc_options(
    gap_rel: float, gap_abs: float, threads: int | None, seed: int | None
) -> list[str]:
    opts = [] if seed is None else ["-randomCbcSeed", str(solver_seed(seed) + 1)]
    opts += ["-ratio", repr(gap_rel), "-allow", repr(gap_abs), "-threads", str(threads or 1)]
    return [*opts, "-timeMode", "elapsed", "-solve"]


def _proof_gap(value: float, gap_abs: float, gap_rel: float) -> float:
    """What a CBC proof leaves open: it proved no solution better by more than this."""
    return max(gap_abs, gap_rel * abs(value))


# ---- HiGHS on a LinearModel ----------------------------------------------------------------
def solve_highs(
    model: LinearModel | CscModel,
    *,
    integer: bool = True,
    deadline: Deadline = NO_DEADLINE,
    simplex: bool = True,
    start: np.ndarray | None = None,
    threads: int = 1,
    gap_abs: float = MIP_ABS_GAP,
    gap_rel: float = 0.0,
    options: Mapping[str, Any] | None = None,
) -> MipOutcome:
    """Solve with HiGHS (silent) given the time left before `deadline`; MILPs to the gaps
    asked (default: zero relative, MIP_ABS_GAP absolute); LPs by simplex unless told not;
    `start`: a MIP start (HiGHS checks it and ignores it when infeasible); `options`: more
    HiGHS options (tolerances)."""
    import highspy

    h = _plain_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    left = deadline.remaining(floor=0.01)  # HiGHS's one conversion
    if left is not None:
        h.setOptionValue("time_limit", left)
    if integer:
        h.setOptionValue("mip_rel_gap", float(gap_rel))
        h.setOptionValue("mip_abs_gap", float(gap_abs))
    elif simplex:
        h.setOptionValue("solver", "simplex")
    for key, val in (options or {}).items():
        h.setOptionValue(key, val)
    h.passModel(model.to_highs(integer=integer))
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = np.asarray(start, dtype=float)
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    return highs_outcome(h, integer=integer, maximize=model.maximize)


def _plain_highs() -> Any:
    """A HiGHS instance without highspy's Python callback layer (`highspy.Highs` is the same
    C++ solver plus Python callback objects, one set per instance, which reference the instance
    back and wait for the garbage collector): `solve_highs` subscribes to no callback, and a
    solver built per model pays that layer's cost on every small model."""
    from highspy import _core

    return _core._Highs()


def highs_outcome(h: Any, *, integer: bool, maximize: bool) -> MipOutcome:
    """Solution, value, bound and the certified status of a finished HiGHS run."""
    import highspy

    ms = h.getModelStatus()
    info = h.getInfo()
    has_sol = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value, dtype=float) if has_sol else None
    stats: dict[str, Any] = {"highs_status": h.modelStatusToString(ms)}
    if ms == highspy.HighsModelStatus.kSolveError:
        stats["solve_error"] = 1
    value = float(info.objective_function_value) if has_sol else None
    bound: float | None = None
    if integer:
        stats["mip_nodes"] = int(info.mip_node_count)
        b = float(info.mip_dual_bound)
        bound = b if math.isfinite(b) and abs(b) < 1e30 else None
    optimal = ms == highspy.HighsModelStatus.kOptimal
    if optimal and bound is None:
        bound = value  # an LP solved to optimality (or a MIP solved in presolve)
    stopped = any(ms == getattr(highspy.HighsModelStatus, s) for s in _STOPPED)
    return outcome(
        x, value, bound, maximize, proven=optimal,
        infeasible=ms == highspy.HighsModelStatus.kInfeasible,
        failed=not (optimal or stopped), stats=stats,
    )  # fmt: skip


# ---- CBC on a LinearModel ------------------------------------------------------------------
def solve_cbc(
    model: LinearModel | CscModel,
    *,
    deadline: Deadline = NO_DEADLINE,
    threads: int = 1,
    gap_abs: float = CBC_GAP_ABS,
    gap_rel: float = 0.0,
    seed: int | None = None,
) -> MipOutcome:
    """Solve with the CBC binary on an MPS file written by HiGHS (CBC minimizes: a maximized
    objective is negated there); killed shortly after the limit (`run_cbc`)."""
    import highspy

    with tempfile.TemporaryDirectory(prefix="schedlab-cbc-") as tmp:
        mps, sol = Path(tmp) / "model.mps", Path(tmp) / "model.sol"
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.passModel(model.to_highs(integer=True, negate=model.maximize))
        h.writeModel(str(mps))
        opts = [*_cbc_options(gap_rel, gap_abs, threads, seed), "-solution", str(sol)]
        log, killed = run_cbc(mps, opts, deadline)
        head, x = ("killed after the time limit", None) if killed else _read_cbc(sol, model.n_cols)
    stats: dict[str, Any] = {"cbc_status": head, "cbc_killed": int(killed)}
    value = None if x is None else model.objective(x)
    proven = value is not None and head.startswith("Optimal")
    bound: float | None
    if proven:
        assert value is not None
        gap = _proof_gap(value, gap_abs, gap_rel)
        bound = value + gap if model.maximize else value - gap
    else:  # CBC's log counts the objective's constant (the MPS file holds it)
        low = cbc_log_bound(log)
        bound = None if low is None else (-low if model.maximize else low)
    return outcome(
        x, value, bound, model.maximize, proven=proven,
        infeasible=head.startswith("Infeasible"), stats=stats,
    )  # fmt: skip


def _read_cbc(path: Path, n: int) -> tuple[str, np.ndarray | None]:
    """CBC's status line and column values (None when it holds no integer solution)."""
    if not path.exists():
        return "no solution file", None
    lines = path.read_text().splitlines()
    head = lines[0].strip() if lines else ""
    if not (head.startswith("Optimal") or (head.startswith("Stopped") and "objective" in head)):
        return head, None
    x = np.zeros(n)
    for line in lines[1:]:
        tok = line.split()
        if tok and tok[0] == "**":  # CBC marks values outside tolerances; still its solution
            tok = tok[1:]
        if len(tok) >= 3:
            x[int(tok[0])] = float(tok[2])
    return head, x


def solve_mip(model: LinearModel | CscModel, *, solver: str = "highs", **kw: Any) -> MipOutcome:
    """`solve_highs` or `solve_cbc` of the model (`solver` "highs" or "cbc"); `seed` is CBC's,
    `start` and `options` HiGHS's."""
    if solver == "cbc":
        kw.pop("start", None)
        kw.pop("options", None)
        return solve_cbc(model, **kw)
    kw.pop("seed", None)
    return solve_highs(model, **kw)


# ---- a PuLP model --------------------------------------------------------------------------
def pulp_solution(sol_status: int) -> tuple[bool, bool]:
    """(has a solution, proven optimal) of a PuLP `sol_status`: the one PuLP rule."""
    import pulp

    proven = sol_status == pulp.LpSolutionOptimal
    return proven or sol_status == pulp.LpSolutionIntegerFeasible, proven


def solve_pulp(
    prob: Any,
    *,
    solver: str,
    deadline: Deadline,
    gap_abs: float,
    gap_rel: float = 0.0,
    threads: int | None = None,
    seed: int | None = None,
) -> MipOutcome:
    """Solve the (minimizing) PuLP problem with HiGHS or CBC within `deadline`; on a solution,
    every variable's `value()` is set. The bound is in the objective's units, its constant
    included. `threads` None: HiGHS's default (CBC: one). `stats["skipped"]` = 1 when no time
    was left once the model was handed over."""
    import pulp

    if prob.sense != pulp.LpMinimize:
        raise ValueError("solve_pulp: minimizing models only")
    if solver == "highs":
        return _pulp_highs(prob, deadline, gap_abs, gap_rel, threads, seed)
    return _pulp_cbc(prob, deadline, gap_abs, gap_rel, threads, seed)


def _skipped() -> MipOutcome:
    return MipOutcome(Status.TIMEOUT, None, None, None, {"skipped": 1})


def _pulp_highs(
    prob: Any,
    deadline: Deadline,
    gap_abs: float,
    gap_rel: float,
    threads: int | None,
    seed: int | None,
) -> MipOutcome:
    """PuLP's own HiGHS interface, step by step (as its actualSolve does), so that the time
    limit is what is left after the hand-over; status, bound and values read straight from
    HiGHS (PuLP's findSolutionValues also copies every row's slack and dual: seconds on
    millions of rows)."""
    import pulp

    params: dict[str, Any] = {} if seed is None else {"random_seed": solver_seed(seed)}
    api = pulp.HiGHS(msg=False, gapRel=gap_rel, gapAbs=gap_abs, threads=threads, **params)
    api.createAndConfigureSolver(prob)
    api.buildSolverModel(prob)
    h = prob.solverModel
    left = deadline.remaining()  # HiGHS's one conversion
    if left is not None:
        if left <= 0.01:
            return _skipped()
        h.setOptionValue("time_limit", left)
        interrupt_after(h, lambda: deadline)  # HiGHS checks its own limit between phases only
    api.callSolver(prob)
    out = highs_outcome(h, integer=True, maximize=False)
    if out.x is not None:
        for v in prob.variables():
            v.varValue = float(out.x[v.index])
    const = float(prob.objective.constant)
    shift = lambda b: None if b is None else b + const  # noqa: E731 - PuLP keeps it from HiGHS
    return MipOutcome(out.status, out.x, shift(out.value), shift(out.bound), out.stats, out.proven)


def _pulp_cbc(
    prob: Any,
    deadline: Deadline,
    gap_abs: float,
    gap_rel: float,
    threads: int | None,
    seed: int | None,
) -> MipOutcome:
    """The CBC binary on PuLP's MPS file, killed shortly after the limit; PuLP reads its
    solution, and `sol_status` says what it is (`pulp_solution`)."""
    import pulp
    from pulp.apis.coin_api import pulp_cbc_path

    cbc = pulp.COIN_CMD(path=pulp_cbc_path, msg=False)
    sol_status = pulp.LpSolutionNoSolutionFound
    with tempfile.TemporaryDirectory(prefix="schedlab-cbc-") as tmp:
        mps, sol = Path(tmp) / "model.mps", Path(tmp) / "model.sol"
        vs, vnames, cnames, _ = prob.writeMPS(str(mps), rename=1)
        if deadline.passed(within=0.01):
            return _skipped()
        opts = [*_cbc_options(gap_rel, gap_abs, threads, seed), "-printingOptions", "all"]
        log, killed = run_cbc(mps, [*opts, "-solution", str(sol)], deadline)
        if not killed and sol.exists():
            status, values, _, _, _, sol_status = cbc.readsol_MPS(
                str(sol), prob, vs, vnames, cnames
            )
            prob.assignVarsVals(values)
            prob.assignStatus(status, sol_status)
    has, proven = pulp_solution(sol_status)
    value = float(pulp.value(prob.objective)) if has else None
    bound: float | None
    if proven:
        assert value is not None
        bound = value - _proof_gap(value, gap_abs, gap_rel)
    else:
        low = cbc_log_bound(log)
        bound = None if low is None else low + float(prob.objective.constant)
    stats = {"cbc_killed": int(killed), "sol_status": pulp.LpSolution[sol_status]}
    x = np.array([v.value() for v in vs], dtype=float) if has else None
    return outcome(x, value, bound, False, proven=proven, stats=stats)
