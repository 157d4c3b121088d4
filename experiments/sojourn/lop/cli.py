"""`schedlab lop solve FILE`: the exact linear-ordering core (lpcut) on a benchmark file.

Two formats, told apart by the first line that is not a comment: a PACE 2024 one-sided
crossing graph (`p ocr n0 n1 m`, then the edges; `solvers.lop.graph`), or a LOLIB-style
matrix (the first token n, then the n x n entries; `solvers.lop.matrix`). The value is
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
from schedlab.experiments.cliflags import SEED, TIME_LIMIT
from schedlab.experiments.output import emit_json, format_table
from schedlab.experiments.registry import register_command


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
    """Read `path` (either format) and solve it; the JSON object `lop solve` prints."""
    from schedlab.solvers.lop.graph import is_ocr_text, parse_ocr_text
    from schedlab.solvers.lop.graph_route import solve_graph
    from schedlab.solvers.lop.lpcut.options import LpcutOptions
    from schedlab.solvers.validate import Deadline, read_text_file

    deadline = Deadline.after(time_limit)  # one limit for reading, preparing and solving
    text = read_text_file(path, "a LOLIB matrix or a PACE .gr graph")
    opts = LpcutOptions(route=route)  # type: ignore[arg-type]
    if is_ocr_text(text):  # the readers' errors name the file, line and field
        g = parse_ocr_text(text, str(path), deadline)
        del text
        r = solve_graph(g, seed=seed, options=opts, fix_forced=fix_forced, deadline=deadline)
        head = {"format": "pace-ocr", "sense": "min", "n": g.n1, "n0": g.n0, "m": g.m}
        order = g.ids_of(r.solution)
    else:  # the matrix reader and solver load lpcut (numba, HiGHS) whatever the matrix
        from schedlab.solvers.lop.matrix import parse_lop_text, solve_lop_benchmark

        M = parse_lop_text(text, str(path), deadline)
        del text
        r = solve_lop_benchmark(M, seed=seed, options=opts, deadline=deadline)
        head = {"format": "lolib", "sense": "max", "n": int(M.shape[0])}
        order = [int(i) + 1 for i in r.solution]
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
