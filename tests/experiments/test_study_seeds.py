"""The study commands refuse a seed outside 0..2^63-1 at the door (exit 2, nothing computed)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli


@pytest.mark.parametrize(
    "args",
    [
        ["figure", "sojourn-gap", "--seed", "-1"],
        ["reproduce", "--seed", "-1"],
        ["verify", "4", "--seed", "-1"],
        ["figure", "sojourn-gap", "--seed", str(2**63)],
        ["gap", "sojourn", "--seed", "-1"],
    ],
)
def test_bad_study_seed_is_a_usage_error(args, tmp_path):
    res = CliRunner().invoke(cli, [*args, "--out", str(tmp_path)])
    assert res.exit_code == 2
    assert "--seed" in res.output
    assert not any(tmp_path.iterdir())
