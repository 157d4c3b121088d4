"""The `schedlab` command line: `schedlab <subject> <verb>` plus cross-cutting commands.

Each subject adds its click group in `experiments/<subject>/cli.py`, listed in SUBJECT_GROUPS.
Errors: bad input exits 2 with a message on stderr; an internal failure exits 1 with a
readable message (the traceback only with --debug).
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

import click

from schedlab.solvers.errors import InvalidInput

# (module, attribute) of each subject's click group, imported when the CLI starts.
SUBJECT_GROUPS: list[tuple[str, str]] = [
    ("schedlab.experiments.sojourn.cli", "sojourn"),
    ("schedlab.experiments.synergy.cli", "synergy"),
]
# Cross-cutting commands (figure, reproduce, verify, ...).
COMMANDS: list[tuple[str, str]] = [
    ("schedlab.experiments.commands", "figure"),
    ("schedlab.experiments.commands", "reproduce"),
    ("schedlab.experiments.theory_cli", "verify"),
]


class SchedlabGroup(click.Group):
    """Click group that turns InvalidInput into exit 2 and other failures into exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InvalidInput as exc:
            click.echo(f"schedlab: error: {exc}", err=True)
            ctx.exit(2)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("schedlab: interrupted; finished results were kept", err=True)
            ctx.exit(130)
        except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
            if ctx.find_root().params.get("debug"):
                traceback.print_exc()
            else:
                click.echo(
                    f"schedlab: internal error: {type(exc).__name__}: {exc}\n"
                    "(rerun with --debug for the traceback)",
                    err=True,
                )
            ctx.exit(1)


@click.group(cls=SchedlabGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.version_option(package_name="schedlab")
def cli(debug: bool) -> None:
    """schedlab: exact optima and heuristics for scheduling ML jobs on GPU clusters.

    \b
    Examples:
      schedlab sojourn generate --n 6 --seed 1 > inst.json
      schedlab sojourn solve inst.json --objective B --method dp
      schedlab reproduce --size small
    """


def _attach() -> None:
    for module, attr in SUBJECT_GROUPS + COMMANDS:
        cli.add_command(getattr(importlib.import_module(module), attr))


_attach()


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    cli.main(args=argv, prog_name="schedlab", standalone_mode=True)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
