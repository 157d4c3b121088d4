"""Every registered heuristic of every subject held to the proven optimum, no test per heuristic.

For each subject (every package under theory/) and each of its methods tagged
"heuristic", hypothesis draws the subject's status cases (`tests/<subject>/status_cases.py`,
the same small problems off every grid that hold the exact methods to the enumeration oracle,
see `test_exact_status.py`) and checks the heuristic's answer against the oracle:

- a solution is feasible for the data as given and its value, recomputed from the raw data, is
  the reported one (`recheck`), and it exists only where the oracle proves an optimum;
- its value is never better than the oracle's proven optimum (within the one proof tolerance);
  the direction of "better" is the subject's sense, read from its gap-study registration;
- it says `optimal` only at the optimum, `infeasible` only where the oracle proves it, and never
  `error`.

A heuristic added in a new file (or a plugin) is checked here with no edit. The last test
shows the check failing on a heuristic that lies.
"""

from __future__ import annotations

import importlib
import math
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from schedlab.experiments.codeversion import package_root
from schedlab.experiments.gap.spec import GAP_FAMILIES
from schedlab.solvers.result import PROOF_TOL, SolveResult, Status
from schedlab.solvers.solve import METHODS, solve

EXAMPLES = 25  # cases per heuristic; the run prints them per heuristic


def subjects() -> list[str]:
    """Every subject: a package under theory/ (every subject has one; `codeversion`), so the
    list is the packages', not a hand-kept one (nor the registry's scopes, where a test may
    register a toy subject)."""
    root = package_root()
    return sorted(p.parent.name for p in (root / "theory").glob("*/__init__.py"))


def cases(subject: str) -> ModuleType:
    try:
        return importlib.import_module(f"tests.{subject}.status_cases")
    except ModuleNotFoundError as exc:
        raise AssertionError(f"{subject}: tests/{subject}/status_cases.py is missing") from exc


def sense(subject: str) -> str:
    """min or max, from the subject's gap-study families (one fact per subject)."""
    senses = {e.meta["sense"] for e in GAP_FAMILIES.entries(scope=subject)}
    assert len(senses) == 1, f"{subject}: gap families give the senses {senses or 'none'}"
    return senses.pop()


def heuristics() -> list[tuple[str, str]]:
    return [(s, e.name) for s in subjects() for e in METHODS.entries(scope=s, tag="heuristic")]


def test_every_subject_has_status_cases_a_sense_and_heuristics():
    assert len(subjects()) >= 4, subjects()
    for subject in subjects():
        mod = cases(subject)
        for name in ("problems", "oracle", "recheck", "options"):
            assert callable(getattr(mod, name, None)), f"tests/{subject}/status_cases.py: {name}"
        assert sense(subject) in ("min", "max")
        assert METHODS.names(scope=subject, tag="heuristic"), f"{subject} has no heuristic"


def held_to_oracle(mod: Any, sense: str, problem: Any, result: SolveResult) -> None:
    """Assert the module docstring's rules for one heuristic answer."""
    want, opt = mod.oracle(problem)
    where = f"{result.method} ({result.status}, value {result.value!r}) on {problem!r:.300}"
    assert result.status is not Status.ERROR, f"{where}: error {result.stats}"
    if result.value is None:
        assert result.status in (Status.INFEASIBLE, Status.TIMEOUT), f"{where}: no value"
        if result.status is Status.INFEASIBLE:
            assert want is Status.INFEASIBLE, f"{where}: says infeasible, the oracle has {opt!r}"
        return
    assert want is Status.OPTIMAL and opt is not None, f"{where}: a solution, oracle {want}"
    mod.recheck(problem, result)
    tol = PROOF_TOL * max(1.0, abs(opt))
    better = opt - result.value if sense == "min" else result.value - opt
    assert better <= tol, f"{where}: better than the proven optimum {opt!r}"
    if result.status is Status.OPTIMAL:
        assert math.isclose(result.value, opt, rel_tol=0, abs_tol=tol), f"{where}: not {opt!r}"


ROUNDS = 4  # at most this many rounds of EXAMPLES cases, until one case has an answer


@pytest.mark.parametrize(("subject", "method"), heuristics())
def test_heuristic_is_feasible_and_never_better_than_the_optimum(subject, method, record_property):
    """EXAMPLES cases, and more rounds (other seeds) while none had a value to check: a baseline
    confined to a small space (ESG's CPU-only BATCH) often finds no plan on a case, and which
    cases hypothesis draws depends on the literals of the modules loaded so far (its local
    constants), i.e. on the test order; the rounds keep the check from being vacuous in any
    order."""
    entry = METHODS.get(method, scope=subject)
    mod, direction = cases(subject), sense(subject)
    seen: list[str] = []
    answered: list[bool] = []

    def check(data: st.DataObject) -> None:
        problem = data.draw(mod.problems(entry))
        result = solve(problem, method, seed=0, options=mod.options(entry))
        held_to_oracle(mod, direction, problem, result)
        seen.append(str(result.status))
        answered.append(result.value is not None)

    for k in range(ROUNDS):
        chosen = settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=k == 0,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )

        # a fresh function each round: settings() marks the function it decorates, and a
        # second decoration of one function is refused
        def round_check(data: st.DataObject) -> None:
            check(data)

        run = given(st.data())(chosen(round_check))
        (run if k == 0 else seed(k)(run))()
        if any(answered):
            break
    counts = {s: seen.count(s) for s in sorted(set(seen))}
    record_property("cases", counts)
    print(f"heuristic property: {subject}/{method}: {len(seen)} cases {counts}")
    assert len(seen) >= EXAMPLES // 2, f"{subject}/{method}: only {len(seen)} cases ran"
    assert sum(answered) >= 1, f"{subject}/{method}: no case in {len(seen)} had an answer"


# ---- the check can fail --------------------------------------------------------------------
def _answered(subject: str, method: str) -> list[tuple[str, Any, SolveResult]]:
    """(method, case, answer) for each of 40 status cases, drawn deterministically, on which
    the oracle proves an optimum and `method` returns a value."""
    mod, entry = cases(subject), METHODS.get(method, scope=subject)
    found: list[tuple[str, Any, SolveResult]] = []

    @settings(max_examples=40, deadline=None, derandomize=True, database=None)
    @given(st.data())
    def draw(data: st.DataObject) -> None:
        problem = data.draw(mod.problems(entry))
        res = solve(problem, method, seed=0, options=mod.options(entry))
        if res.value is not None and mod.oracle(problem)[0] is Status.OPTIMAL:
            found.append((method, problem, res))

    draw()
    return found


def _answered_case(subject: str) -> tuple[str, Any, SolveResult]:
    """The first heuristic of `subject` (by name) with an answered case (`_answered`)."""
    for method in sorted(METHODS.names(scope=subject, tag="heuristic")):
        found = _answered(subject, method)
        if found:
            return found[0]
    raise AssertionError(f"{subject}: no heuristic answered a status case with an optimum")


@pytest.mark.parametrize("subject", subjects())
def test_a_lying_heuristic_is_caught(subject):
    """A value better than the optimum, a wrong `optimal`, a wrong `infeasible` and `error` each
    fail the check (on a real heuristic's answer, altered)."""
    mod, direction = cases(subject), sense(subject)
    method, problem, res = _answered_case(subject)
    held_to_oracle(mod, direction, problem, res)  # the honest answer passes
    want, opt = mod.oracle(problem)
    assert want is Status.OPTIMAL and opt is not None and res.value is not None
    step = 1e-3 * max(1.0, abs(opt))
    better = opt - step if direction == "min" else opt + step
    lies = [
        SolveResult(res.status, better, None, res.solution, method, 0.0, {}),
        SolveResult(
            Status.OPTIMAL,
            opt + step if direction == "min" else opt - step,
            None,
            res.solution,
            method,
            0.0,
            {},
        ),  # fmt: skip
        SolveResult(Status.INFEASIBLE, None, None, None, method, 0.0, {}),
        SolveResult(Status.ERROR, res.value, None, res.solution, method, 0.0, {}),
    ]
    trusting = SimpleNamespace(oracle=mod.oracle, recheck=lambda p, r: None)  # values only
    for k, lie in enumerate(lies):
        with pytest.raises(AssertionError):
            held_to_oracle(trusting if k < 2 else mod, direction, problem, lie)
