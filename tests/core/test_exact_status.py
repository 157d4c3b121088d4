"""One meaning of each status, in every subject: every exact method against an enumeration oracle.

For each registered exact method of each subject, hypothesis draws small problems whose numbers
sit on no grid (and, where the subject has a budget, an SLO or a capacity, ones placed exactly at
and a hair around the optimum). The method must give the oracle's status (`optimal` or
`infeasible`), the oracle's value within the one proof tolerance, and a solution that re-checks
against the raw data.

Each subject supplies `tests/<subject>/status_cases.py` with

- `problems(entry) -> SearchStrategy`: problems the registered method `entry` accepts;
- `oracle(problem) -> tuple[Status, float | None]`: the proven status and optimal value, by an
  enumeration written in the test (independent of every method under test);
- `recheck(problem, result) -> None`: asserts that `result.solution` is feasible for the raw data
  and that its value, recomputed from the raw data, is `result.value`;
- `options(entry) -> dict`: the options the method is run with (may be empty);
- `BOTH_STATUSES: bool`: True where the subject has a budget or capacity, so that its cases must
  reach both `optimal` and `infeasible` for every method; optionally `both_statuses(entry) ->
  bool` overrides it per method (e.g. ESG's many-queue methods: a queue may always miss, so
  those problems are never infeasible).
"""

from __future__ import annotations

import importlib
import math
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.solvers.registry import Entry
from schedlab.solvers.result import PROOF_TOL, SolveResult, Status
from schedlab.solvers.solve import METHODS, solve
from schedlab.solvers.subjects import subjects

SUBJECTS = subjects()  # the packages of solvers/: a new subject is held to its oracle at once
EXAMPLES = 40  # cases per exact method (hypothesis examples); the run prints them per method


def _cases(subject: str) -> ModuleType:
    return importlib.import_module(f"tests.{subject}.status_cases")


def _exact_methods() -> list[tuple[str, str]]:
    return [(e.scope, e.name) for s in SUBJECTS for e in METHODS.entries(scope=s, tag="exact")]


def test_every_subject_registers_exact_methods_and_heuristics():
    assert set(METHODS.scopes()) >= set(SUBJECTS)
    for subject in SUBJECTS:
        assert METHODS.names(scope=subject, tag="exact"), f"{subject}: no exact method"
        assert METHODS.names(scope=subject, tag="heuristic"), f"{subject}: no heuristic"


def test_every_subject_supplies_status_cases():
    for subject in SUBJECTS:
        mod = _cases(subject)
        for name in ("problems", "oracle", "recheck", "options"):
            assert callable(getattr(mod, name, None)), f"tests/{subject}/status_cases.py: {name}"
        assert isinstance(getattr(mod, "BOTH_STATUSES", None), bool), f"{subject}: BOTH_STATUSES"


def _agrees(subject: str, entry: Entry, problem: object, result: SolveResult) -> None:
    mod = _cases(subject)
    want_status, want_value = mod.oracle(problem)
    where = f"{subject}/{entry.name} on {problem!r:.300}"
    assert result.status == want_status, f"{where}: {result.status} != oracle {want_status}"
    if want_status == Status.OPTIMAL:
        assert result.value is not None and want_value is not None
        tol = PROOF_TOL * max(1.0, abs(want_value))
        assert math.isclose(result.value, want_value, rel_tol=0, abs_tol=tol), (
            f"{where}: value {result.value!r} != oracle {want_value!r}"
        )
        mod.recheck(problem, result)
    else:
        assert result.value is None, f"{where}: infeasible with a value {result.value!r}"


@pytest.mark.parametrize(("subject", "method"), _exact_methods())
def test_exact_method_agrees_with_the_enumeration_oracle(subject, method, record_property):
    entry = METHODS.get(method, scope=subject)
    mod = _cases(subject)
    seen: list[str] = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def check(data: st.DataObject) -> None:
        problem = data.draw(mod.problems(entry))
        result = solve(problem, method, seed=0, options=mod.options(entry))
        _agrees(subject, entry, problem, result)
        seen.append(str(result.status))

    check()
    counts = {s: seen.count(s) for s in sorted(set(seen))}
    record_property("cases", counts)
    print(f"status property: {subject}/{method}: {len(seen)} cases {counts}")
    assert len(seen) >= EXAMPLES // 2, f"{subject}/{method}: only {len(seen)} cases ran"
    both = getattr(mod, "both_statuses", lambda _: mod.BOTH_STATUSES)(entry)
    if both:
        assert counts.get("optimal") and counts.get("infeasible"), f"{subject}/{method}: {counts}"
