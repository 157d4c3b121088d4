"""The one simulate verb: every subject's `simulate` is built by `simulate_command`, `--json`
prints the outcome's data and nothing else, and without it the subject's summary shows."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.cli_simulate import (
    Outcome,
    SimulateVerb,
    add_simulate,
    seed_flag,
    simulate_command,
)

SUBJECTS = ("sojourn", "synergy", "esg", "slaq")


@pytest.mark.parametrize("subject", SUBJECTS)
def test_every_subject_uses_the_one_verb(subject: str) -> None:
    ctx = click.Context(cli)
    group = cli.get_command(ctx, subject)
    assert isinstance(group, click.Group)
    cmd = group.get_command(ctx, "simulate")
    assert cmd is not None and cmd.callback is not None
    assert cmd.callback.__qualname__ == f"{simulate_command.__name__}.<locals>.simulate"
    names = [p.name for p in cmd.params]
    # the shared flags are there (a success-model plugin may append its own options after them)
    assert {"as_json", "seed"} <= set(names)


def _toy() -> click.Group:
    group = click.Group("toy")

    def simulator(ctx: click.Context, flags: dict[str, object]) -> Outcome:
        return Outcome({"seed": flags["seed"]}, lambda: click.echo(f"seed {flags['seed']}"))

    add_simulate(group, SimulateVerb("Toy simulation.", (seed_flag(),), simulator))
    return group


def test_json_prints_the_data_and_otherwise_the_summary() -> None:
    runner = CliRunner()
    res = runner.invoke(_toy(), ["simulate", "--seed", "7", "--json"])
    assert res.exit_code == 0 and json.loads(res.output) == {"seed": 7}
    res = runner.invoke(_toy(), ["simulate"])
    assert res.exit_code == 0 and res.output == "seed 0\n"
    res = runner.invoke(_toy(), ["simulate", "--seed", "-1"])
    assert res.exit_code == 2 and "--seed" in res.output
