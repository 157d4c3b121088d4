"""`schedlab lop solve FILE`: the exact linear-ordering core (lpcut) on a benchmark file.

Two formats, told apart by the first line that is not a comment: a PACE 2024 one-sided
crossing graph (`p ocr n0 n1 m`, then the edges; `solvers.lop.graph`), or a LOLIB-style
matrix (the first token n, then the n x n entries; `solvers.lop.matrix`). Either is solved by
`solve(problem, "lpcut")`, the one door of every method (`solvers.lop.methods`). The value is
in the file's own convention: the fewest crossings (a minimum, `bound` below it) or the largest
sum above the diagonal (a maximum, `bound` above it); `order` lists the file's own ids (the
free vertices' ids n0+1..n0+n1, or the matrix rows 1..n). The status is `certify`'s, as in
`schedlab sojourn solve`. Light at import: the solvers load inside the command.
"""

from __future__ import annotations

import resource
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cli_registry import LazyChoice
from schedlab.experiments.cliflags import SEED, TIME_LIMIT, bounded_int
from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.registry import register_command

MIN_LIMIT_S = 1e-9  # the limit `solve` gets when reading used all of it: it stops at once


def _routes() -> tuple[str, ...]:
    """lpcut's routes (`lpcut.options.ROUTES`), read when the command needs them."""
    from schedlab.solvers.lop.lpcut.options import ROUTES

    return ROUTES


@register_command("lop")
@click.group()
def lop() -> None:
    """The exact linear-ordering core on LOLIB matrices and PACE 2024 crossing graphs.

    \b
    Example:
      schedlab lop solve exact-public/50.gr --time-limit 600 --json
      schedlab lop solve be75eec.mat --json
    """


def solve_file(
    path: Path, *, time_limit: float | None, seed: int | None, route: str, fix_forced: bool
) -> dict[str, Any]:
    """Read `path` (either format) and solve it; the JSON object `lop solve` prints. One
    limit covers reading and solving: `solve` gets the time the reading left."""
    from schedlab.solvers.lop.graph import is_ocr_text, parse_ocr_text
    from schedlab.solvers.lop.matrix import LopMatrix, parse_lop_text
    from schedlab.solvers.solve import solve
    from schedlab.solvers.validate import Deadline, read_text_file

    deadline = Deadline.after(time_limit)  # one limit for reading, preparing and solving
    text = read_text_file(path, "a LOLIB matrix or a PACE .gr graph")
    problem: Any
    if is_ocr_text(text):  # the readers' errors name the file, line and field
        g = problem = parse_ocr_text(text, str(path), deadline)
        head = {"format": "pace-ocr", "sense": "min", "n": g.n1, "n0": g.n0, "m": g.m}
    else:
        M = parse_lop_text(text, str(path), deadline)
        problem = LopMatrix(path.name, M)
        head = {"format": "lolib", "sense": "max", "n": int(M.shape[0])}
    del text
    left = deadline.remaining(floor=MIN_LIMIT_S)  # what reading left of the one limit
    r = solve(problem, "lpcut", time_limit=left, seed=seed,
              options={"route": route, "fix_forced": fix_forced})  # fmt: skip
    found = r.solution or []  # none only if the limit passed while a model was built
    if head["format"] == "pace-ocr":
        order = problem.ids_of(found)
    else:
        order = [int(i) + 1 for i in found]
    d = r.to_dict()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return {"name": path.name, **head, "status": d["status"], "value": d["value"],
            "bound": d["bound"], "gap": d["gap"], "order": order, "method": r.method,
            "runtime_s": r.runtime_s, "max_rss_mb": round(rss_mb, 1),
            "stats": r.stats}  # fmt: skip


@lop.command("solve")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--time-limit", type=TIME_LIMIT, default=None,
              help="Seconds, reading and preparation included; a stopped run says so.")  # fmt: skip
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the searches.")
@click.option("--route", type=LazyChoice(_routes), default="auto", show_default=True,
              help="lpcut's route per block (auto: chosen from the block).")  # fmt: skip
@click.option("--fix-forced/--no-fix-forced", default=True, show_default=True,
              help="Graphs: fix the pairs every optimal order decides first.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve_cmd(
    file: Path,
    time_limit: float | None,
    seed: int | None,
    route: str,
    fix_forced: bool,
    as_json: bool,
) -> None:
    """Best order of a LOLIB matrix or a PACE 2024 graph, with a proven bound.

    `value`: the largest above-diagonal sum (matrix) or the fewest crossings (graph) found;
    `bound`: a proven bound on it (above, or below); status optimal when they meet.

    \b
    Example:
      schedlab lop solve exact-public/50.gr --time-limit 600 --json
    """
    out = solve_file(file, time_limit=time_limit, seed=seed, route=route, fix_forced=fix_forced)
    if as_json:
        emit_json(out)
        return
    click.echo(
        format_table(
            ["name", "n", "status", "value", "bound", "runtime_s", "max_rss_mb"],
            [
                [
                    out["name"],
                    out["n"],
                    out["status"],
                    out["value"],
                    out["bound"],
                    out["runtime_s"],
                    out["max_rss_mb"],
                ]
            ],  # fmt: skip
        )
    )
    click.echo("order: " + " ".join(str(i) for i in out["order"]))


class IntList(click.ParamType):
    """Comma-separated integers in lo..hi, e.g. 10,20,50 (a clear usage error otherwise)."""

    name = "N,N,..."

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def convert(self, value: Any, param: Any, ctx: Any) -> list[int]:
        if isinstance(value, list):
            return value
        parts = [p.strip() for p in str(value).split(",")]
        if not all(p.isascii() and p.isdigit() for p in parts):
            self.fail(f"{value!r}: not comma-separated integers (e.g. 10,20,50)", param, ctx)
        ns = [int(p) for p in parts]
        if not all(self.lo <= n <= self.hi for n in ns):
            self.fail(f"{value!r}: every n must be in {self.lo}..{self.hi}", param, ctx)
        return ns


NS = IntList(1, 1000)


def _ladders() -> tuple[str, ...]:
    """The route study's ladders (`bench_exact.STUDY_LADDERS`), read when the command needs them."""
    from schedlab.experiments.sojourn.bench_exact import STUDY_LADDERS

    return tuple(STUDY_LADDERS)


@lop.group("study")
def study() -> None:
    """The engine's documented studies (docs/lop.md, docs/sojourn.md): tables on stdout.

    \b
    Example:
      schedlab lop study deficit-shares --ns 10,20,30
    """


@study.command("component-sizes")
@click.option("--ns", type=NS, default="10,20,50,100,200,300", show_default=True,
              help="Instance sizes n.")  # fmt: skip
@click.option("--seeds", type=bounded_int(1, 1000), default=10, show_default=True,
              help="Instances per n and family (seeds 0..K-1).")  # fmt: skip
def component_sizes_cmd(ns: list[int], seeds: int) -> None:
    """Sojourn B's largest preference block per family and n (min, median, max share of n).

    \b
    Example:
      schedlab lop study component-sizes --ns 10,20,50 --seeds 5
    """
    from schedlab.experiments.sojourn.bench_exact import print_component_sizes

    print_component_sizes(ns, seeds)


@study.command("deficit-shares")
@click.option("--ns", type=NS, default="10,20,30,45,60,80,100,150,200", show_default=True,
              help="Instance sizes n (the route study's first instance per n).")  # fmt: skip
def deficit_shares_cmd(ns: list[int]) -> None:
    """The deficit share that `route auto` reads, cyclic (sojourn B) and dense matrices.

    \b
    Example:
      schedlab lop study deficit-shares --ns 10,20,30
    """
    from schedlab.experiments.sojourn.bench_exact import print_deficit_shares

    print_deficit_shares(ns)


@study.command("routes")
@click.option("--limit", "limit_s", type=TIME_LIMIT, default=60.0, show_default=True,
              help="Seconds per solve.")  # fmt: skip
@click.option("--count", type=bounded_int(1, 100), default=1, show_default=True,
              help="Instances per n.")  # fmt: skip
@click.option("--ladder", type=LazyChoice(_ladders), default="full",
              show_default=True, help="full: every family's ladder; quick: short ones "
              "(seconds, not hours); dense-seeds: the dense family's n = 44-100 only.")  # fmt: skip
def routes_cmd(limit_s: float, count: int, ladder: str) -> None:
    """lpcut's routes (packing, lp, full, auto) on the default, cyclic and dense ladders.

    \b
    Example:
      schedlab lop study routes --ladder quick --limit 5
      schedlab lop study routes --ladder dense-seeds --count 3
    """
    from schedlab.experiments.sojourn.bench_exact import STUDY_LADDERS, print_route_study

    print_route_study(STUDY_LADDERS[ladder], limit_s, count)


@study.command("cyclic-ladder")
@click.option("--ns", type=NS, default="300,350,400,450,500", show_default=True,
              help="Instance sizes n.")  # fmt: skip
@click.option("--count", type=bounded_int(1, 100), default=2, show_default=True,
              help="Instances per n.")  # fmt: skip
@click.option("--limit", "limit_s", type=TIME_LIMIT, default=60.0, show_default=True,
              help="Seconds per solve.")  # fmt: skip
@click.option("--threads", type=bounded_int(1, 256), default=1, show_default=True,
              help="The packing masters' PDLP threads.")  # fmt: skip
def cyclic_ladder_cmd(ns: list[int], count: int, limit_s: float, threads: int) -> None:
    """lpcut's default route on every cyclic ladder instance (none skipped after a failure).

    \b
    Example:
      schedlab lop study cyclic-ladder --ns 300 --count 1 --threads 2
    """
    from schedlab.experiments.sojourn.bench_exact import print_cyclic_ladder

    print_cyclic_ladder(tuple(ns), count, limit_s, threads)


@study.command("start-search")
def start_search_cmd() -> None:
    """The packing's starting order: closing slacks gained per (rotations, kicks) setting.

    \b
    Example:
      schedlab lop study start-search
    """
    from schedlab.experiments.sojourn.bench_exact import print_start_search

    print_start_search()
