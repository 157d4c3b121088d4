"""Human output shows a missing value as a word or a dash, never Python's "None" (issue #62:
"bound None" in `schedlab slaq solve`), and the same way in every subject's solve verb."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.output import MISSING, format_table, labelled, shown


@pytest.mark.parametrize("missing", [None, math.nan, np.float64("nan"), np.float32("nan")])
def test_a_missing_value_is_shown_as_the_missing_mark(missing):
    assert shown(missing) == MISSING
    assert labelled("bound", missing) == "no bound"


def test_present_values_are_shown_as_before():
    assert shown(12.345678901) == "12.3457"
    assert shown(np.float64(0.5)) == "0.5"
    assert shown(3) == "3" and shown("feasible") == "feasible" and shown(0.0) == "0"
    assert labelled("bound", 0.0) == "bound 0"  # zero is a value, not a missing one
    assert shown(math.inf) == "inf" and shown(np.int64(7)) == "7"  # an infinity is a value


def test_a_table_shows_a_missing_cell_as_the_missing_mark_not_blank_or_none():
    table = format_table(["value", "bound"], [[1.5, None], [2.0, math.nan]])
    rows = [line.split() for line in table.splitlines()[2:]]
    assert rows == [["1.5", MISSING], ["2", MISSING]]


def _human(tmp_path: Path, generate: list[str], solve: list[str]) -> str:
    """A subject's generated file solved by a heuristic (no bound), as a person reads it."""
    runner = CliRunner()
    made = runner.invoke(cli, generate)
    assert made.exit_code == 0, made.output
    path = tmp_path / "problem.json"
    path.write_text(made.stdout)
    res = runner.invoke(cli, [solve[0], "solve", str(path), *solve[1:]])
    assert res.exit_code == 0, res.output
    return res.stdout


SUBJECTS = {
    "sojourn": (["sojourn", "generate", "--n", "5", "--seed", "1"],
                ["sojourn", "--method", "smith", "--objective", "B"]),
    "slaq": (["slaq", "snapshot", "--jobs", "4", "--cores", "8", "--seed", "1"],
             ["slaq", "--method", "greedy"]),
    "esg": (["esg", "generate", "--stages", "3", "--configs", "5", "--seed", "1"],
            ["esg", "--method", "greedy"]),
    "synergy": (["synergy", "snapshot", "--servers", "2", "--jobs", "4", "--seed", "1"],
                ["synergy", "--method", "greedy"]),
}  # fmt: skip


@pytest.mark.parametrize("subject", sorted(SUBJECTS))
def test_no_solve_verb_prints_none_for_what_a_heuristic_does_not_prove(tmp_path, subject):
    out = _human(tmp_path, *SUBJECTS[subject])
    assert "None" not in out and "nan" not in out.lower().split()
    if subject == "slaq":
        assert "(no bound)" in out
    if subject in ("sojourn", "synergy"):  # a table with a bound column
        header, _, first = out.splitlines()[:3]
        assert first.split()[header.split().index("bound")] == MISSING
