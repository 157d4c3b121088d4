"""A refusal quotes the offending token, but never a huge one whole (issue #64)."""

from __future__ import annotations

from click.testing import CliRunner

from schedlab.experiments.cli import cli, excerpted

HUGE = "9" * 1_000_000


def test_a_long_token_is_cut_to_an_excerpt_with_its_length():
    msg = excerpted(f"--methods: unknown method '{HUGE}'; choose one of: a, b")
    assert len(msg) < 200 and "(1,000,003 characters)" in msg  # the quotes and ';' are in the run
    assert msg.endswith("choose one of: a, b")
    assert excerpted("line 3: '12x' is not a number") == "line 3: '12x' is not a number"


def test_refusals_of_every_kind_stay_short(tmp_path):
    runner = CliRunner()
    cases = [
        ["gap", "sojourn", "--methods", HUGE, "--out", str(tmp_path / "g")],  # our refusal
        ["figure", HUGE],  # a registry refusal
        ["report", "--results", str(tmp_path / ("x" * 5000))],  # a name the OS refuses
        ["report", "--results", str(tmp_path), "--diff", str(tmp_path / ("y" * 5000))],
    ]
    for args in cases:
        got = runner.invoke(cli, args)
        assert got.exit_code == 2, (args[:2], got.output[:300])
        assert len(got.output) < 1_000 and "internal error" not in got.output, got.output[:300]
    assert not (tmp_path / "g").exists()
