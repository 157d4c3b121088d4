"""Hypothesis profile of the door tests, and a count of the cases run per input kind.

Profile "ci" (the default; `HYPOTHESIS_PROFILE` picks another): derandomized (the same cases
on every run and machine), no example database, no per-example deadline, bounded examples
(each test sets its own `max_examples`), so the whole folder stays well under a minute.
The counts per input kind are printed at the end of the run (and are the numbers reported).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

CASES: Counter[str] = Counter()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if CASES:
        terminalreporter.write_sep("-", "door: property-test cases per input kind")
        for kind, n in sorted(CASES.items()):
            terminalreporter.write_line(f"{kind:32s} {n}")
        terminalreporter.write_line(f"{'total':32s} {sum(CASES.values())}")
