"""`schedlab <subject> simulate`: the one simulate verb of every subject.

Each subject describes its verb once (`SimulateVerb`: its help text, its flags in the order
`--help` shows them, and its `Simulator`: the flags in, one `Outcome` out), and `add_simulate`
registers the command. What every subject shares is written here once:

- the shared flags, each declared by one function: `policy_flag`, `workload_flag`,
  `trace_flag` (the workload file), `load_flag`, `seed_flag` (0..2^63-1, default 0) and
  `--json` (added last by `add_simulate`);
- the output: with `--json` the outcome's `data`, one JSON object on stdout (`emit_json`),
  otherwise the subject's human summary (`Outcome.show`);
- bad input is the subject's `InvalidInput` (exit 2 with the flag or file named, by the door).
Heavy modules (the simulators) load inside each subject's `Simulator` only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cli_registry import RegistryChoice
from schedlab.experiments.cliflags import SEED
from schedlab.experiments.output import emit_json
from schedlab.experiments.registry import POLICIES, WORKLOADS

#: A click option decorator (what `click.option(...)` returns).
Flag = Callable[[Any], Any]
JSON_HELP = "Print one JSON object."


@dataclass(frozen=True)
class Outcome:
    """One simulation's result: `data` is the `--json` object, `show` prints the summary."""

    data: dict[str, Any]
    show: Callable[[], None]


#: A subject's simulator behind the verb: the context and the parsed flags (by parameter name)
#: in, one `Outcome` out. It loads its heavy modules itself and raises `InvalidInput` naming the
#: flag or file on bad input.
Simulator = Callable[[click.Context, dict[str, Any]], Outcome]


@dataclass(frozen=True)
class SimulateVerb:
    """One subject's `simulate`: `flags` in `--help` order (`--json` is added last);
    `command` extra keywords of `click.command` (e.g. `cls=OptionsCommand` for flags that
    come from the chosen workload's options)."""

    help: str
    flags: Sequence[Flag]
    simulator: Simulator
    command: dict[str, Any] = field(default_factory=dict)


def simulate_command(verb: SimulateVerb) -> click.Command:
    """The `simulate` command `verb` describes (`add_simulate` registers it in a group)."""

    def simulate(**flags: Any) -> None:
        as_json = flags.pop("as_json")
        outcome = verb.simulator(click.get_current_context(), flags)
        if as_json:
            emit_json(outcome.data)
        else:
            outcome.show()

    decorated: Any = click.option("--json", "as_json", is_flag=True, help=JSON_HELP)(simulate)
    for flag in reversed(verb.flags):
        decorated = flag(decorated)
    cmd: click.Command = click.command("simulate", help=verb.help, **verb.command)(decorated)
    return cmd


def add_simulate(group: click.Group, verb: SimulateVerb) -> click.Command:
    """Register `verb` as `group simulate` and return the command."""
    cmd = simulate_command(verb)
    group.add_command(cmd)
    return cmd


def policy_flag(
    subject: str, *, default: str | None = None, show_default: bool = False, help: str | None = None
) -> Flag:
    """`--policy`: the registered policies of `subject` (required without a default)."""
    return click.option(
        "--policy",
        type=RegistryChoice(POLICIES, scope=subject),
        default=default,
        required=default is None,
        show_default=show_default,
        help=help,
    )


def workload_flag(
    subject: str,
    *,
    default: str | None = None,
    required: bool = False,
    show_default: bool = False,
    help: str | None = None,
) -> Flag:
    """`--workload`: the registered workloads of `subject`."""
    return click.option(
        "--workload",
        type=RegistryChoice(WORKLOADS, scope=subject),
        default=default,
        required=required,
        show_default=show_default,
        help=help,
    )


def trace_flag(help: str, *, dir_okay: bool = True) -> Flag:
    """`--trace`: the workload's input file (a path; the workload reads and checks it)."""
    return click.option(
        "--trace", type=click.Path(dir_okay=dir_okay, path_type=Path), default=None, help=help
    )


def load_flag(type: click.ParamType, default: float | None, help: str) -> Flag:
    """`--load`: each subject's own unit and range (`help` says which)."""
    return click.option(
        "--load", type=type, default=default, show_default=default is not None, help=help
    )


def seed_flag(what: str = "") -> Flag:
    """`--seed`: 0..2^63-1, default 0; `what` (e.g. "Workload seed, ") says what it seeds."""
    return click.option("--seed", type=SEED, default=0, show_default=True, help=f"{what}0..2^63-1.")
