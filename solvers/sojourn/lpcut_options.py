"""lpcut's options, apart from the solver: a module that imports no solver, numba or HiGHS.

`schedlab lop solve` builds these for every file it reads, and a crossing graph whose blocks
need no LP never imports lpcut itself (`lop_graph.solve_graph`): the process then skips
numba's and HiGHS's start-up. `exact_lpcut` re-exports every name here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from schedlab.solvers.options import shared

ROUTES = ("auto", "packing", "lp", "full")  # lpcut's routes per block (`pick_route`)
Route = Literal["auto", "packing", "lp", "full"]
MasterLp = Literal["pdlp", "ipm"]  # OR-Tools' PDLP, or HiGHS's interior point (no crossover)


@dataclass(frozen=True)
class LpcutOptions:
    """Options of `lpcut`."""

    decompose: bool = field(
        default=True, metadata={"help": "solve the preference blocks separately"}
    )
    hint: bool = shared("hint")  # each block starts from an insertion-descent order
    packing: bool = field(
        default=True,
        metadata={"help": "certify by a cycle packing (column generation) before the triangle LP"},
    )
    packing_master: MasterLp = field(
        default="pdlp",
        metadata={"help": "the packing LP solver of loose rounds: pdlp (OR-Tools), ipm (HiGHS)"},
    )
    route: Route = field(
        default="auto",
        metadata={
            "help": "per block: auto (chosen from the block), packing (cycle packing, LP "
            "rounds, MIP), lp (LP rounds, MIP), full (every triangle row, MIP)"
        },
    )
    # the packing's PDLP masters run on `threads` (the result does not depend on them:
    # PDLP_SHARDS fixed shards); HiGHS runs on one
    threads: int = shared("threads")
    packing_fill: bool = field(
        default=True,
        metadata={
            "help": "fill the capacity each packing master leaves with 3-cycles that join the "
            "next master (off: the pricing's columns alone, as before)"
        },
    )


def lpcut_stats(options: LpcutOptions) -> dict[str, Any]:
    """The options a result's stats record."""
    return {
        "decompose": options.decompose,
        "warm_start": options.hint,
        "packing": options.packing,
        "packing_master": options.packing_master,
        "route_option": options.route,
        "threads": options.threads,
        "packing_fill": options.packing_fill,
    }
