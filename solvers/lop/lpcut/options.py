"""lpcut's options and tuning, apart from the solver: a module that imports no solver, numba or
HiGHS.

`LpcutOptions` are the user's choices (the method's registered options: `--route`, `--hint`,
...). `LpcutTuning` is the engine's tuning, one frozen object passed to each block model
(`lpcut.model.HighsCutModel`) instead of module constants: the defaults are lpcut's, and the
crossing blocks of a PACE graph get theirs from `graph_route.CrossingTuning.for_block`. Why each
default is what it is (the runs that chose it) is in docs/lop.md, "lpcut's tuning".
`schedlab lop solve` builds the options for every file it reads, and a crossing graph whose
blocks need no LP never imports lpcut itself: the process then skips numba's and HiGHS's
start-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from schedlab.solvers.options import shared

ROUTES = ("auto", "packing", "lp", "full")  # lpcut's routes per block (`pick_route`)
Route = Literal["auto", "packing", "lp", "full"]
MasterLp = Literal["pdlp", "ipm"]  # OR-Tools' PDLP, or HiGHS's interior point (no crossover)
LpSolver = Literal["simplex", "ipm"]  # the LP rounds' HiGHS solver


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


@dataclass(frozen=True)
class PackingTuning:
    """The tuning of the cycle packing (`lop.cyclepack.CyclePacker`; docs/lop.md,
    "Measurements behind the packing's settings", has the runs behind each default)."""

    hop: float = 1e-4  # pricing length added per arc (scaled units): shorter cycles first
    per_arc_pdlp: int = 8  # columns priced per reversed arc and round, PDLP masters ...
    per_arc_ipm: int = 3  # ... and interior point masters
    first_max: float = 1e-2  # the longest arc of the first pricing
    loose_tol: float = 1e-3  # PDLP's relative optimality tolerance in the first rounds
    fine_tol: float = 1e-4  # the master's tolerance after a stall at loose_tol
    early_tol: float = 1e-2  # the coarsest master tolerance, while the gap is large ...
    gap_share: float = 0.1  # ... a master's tolerance: this share of the gap over the deficit
    tight_tol: float = 1e-5  # the master's tolerance when every-cycle pricing stalls too
    tail_gain: float = 0.05  # once every cycle is priced, a stall gains less than this share
    purge_rel: float = 1e-4  # columns below this share of the largest weight leave the master
    max_rounds: int = 100
    stall_rounds: int = 2  # rounds over which a stall is judged
    stall_need: float = 0.5  # ... and the share of what the bound lacked that is no stall
    general_limit: int = 20_000  # columns per round of the general pricing
    exact_tol: float = 1e-9  # the master's optimality tolerance once loose rounds price nothing
    pdlp_shards: int = 8  # PDLP's shards whatever its threads (the rounds do not depend on them)


@dataclass(frozen=True)
class LpcutTuning:
    """The tuning of one block model of lpcut (docs/lop.md, "lpcut's tuning", has the runs).

    The first group holds for every block; the second is off by default and set per crossing
    block (`graph_route.CrossingTuning.for_block`)."""

    viol_tol: float = 1e-7  # an LP triangle counts as violated above this (scaled units)
    max_lp_rounds: int = 200
    lp_time_share: float = 0.95  # at most this share of the block's time goes to LP rounds
    per_pair: int = 12  # incumbent cycles per pair that the LP reverses, per round
    cuts_min: int = 2000  # the general separation's cuts per round: at least this many ...
    cuts_per_n: int = 20  # ... and this many per vertex (`cuts_per_round`)
    purge_slack: float = 0.1  # rows slack by more at the LP optimum are deleted
    stall_search_chunk: int = 1000  # kicks per call of the stall search (`stall_search`)
    mip_root_factor: float = 2.0  # a MIP needs this many LP-round times to be worth starting
    lp_stall_rounds: int = 3  # rounds whose own bound gained less than the closing slack: stop
    packing_max_deficit: float = 1e-4  # auto: the packing up to this deficit share
    simplex_min_deficit: float = 1e-4  # LP rounds by dual simplex above this deficit share
    ipm_switch_floor_s: float = 0.3  # a dual simplex round shorter than this never switches
    search_starts: int = 8  # rotations of the starting order searched before the packing
    search_kicks: int = 100  # kicks (a segment moved, then descent) per rotation
    search_segment: int = 30  # the longest segment a kick moves
    start_kick_length: int = 10  # the longest segment a kick of the start search moves
    # per crossing block (None / 0 / False: off)
    lp_solver: LpSolver | None = None  # the LP rounds' solver, whatever the deficit
    ipm_switch_ratio: float | None = None  # a simplex round this many times slower per row
    # than the block's first hands the remaining rounds to the interior point
    crossover_min_rows_per_n: float | None = None  # the first round with rows by the interior
    # point with crossover where it has at least this many rows per vertex
    ipm_optimality_tol: float | None = None  # the interior point's rounds' tolerance
    start_kicks: int = 0  # kicks of an iterated search from the hint before the LP rounds
    start_patience: int | None = None  # ... stopped after this many in a row without gain
    stall_general: bool = False  # one round of the general separation at a stall
    stall_search_share: float | None = None  # a search for this share of the LP seconds after
    # rounds that stalled short of the incumbent
    packing: PackingTuning = PackingTuning()  # the cycle packing's (route packing)


#: lpcut's tuning where none is passed (the sojourn objectives and the LOLIB matrices).
DEFAULT_TUNING = LpcutTuning()


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
