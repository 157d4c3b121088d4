"""`schedlab synergy ...`: multi-resource allocation and round-based cluster simulation."""

from __future__ import annotations

import click

from schedlab.experiments.registry import register_command


@register_command("synergy")
@click.group()
def synergy() -> None:
    """Synergy (OSDI 2022): CPU/memory-aware allocation and packing on a GPU cluster.

    \b
    Example:
      schedlab synergy solve snapshot.json --method tune --json
      schedlab synergy simulate --workload philly-derived --policy fifo --alloc tune --load 9
    """


# Verbs live in their own modules and are attached below.
from schedlab.experiments.synergy.cli_simulate import simulate  # noqa: E402

synergy.add_command(simulate)
from schedlab.experiments.cli_solve import add_solve  # noqa: E402
from schedlab.experiments.synergy.cli_allocate import SOLVE, snapshot_cmd  # noqa: E402

add_solve(synergy, SOLVE, "allocate")
synergy.add_command(snapshot_cmd)
