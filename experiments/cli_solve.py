"""`schedlab <subject> solve FILE --method M`: the one solve verb of every subject.

Each subject describes its verb once (`SolveVerb`: its file type, the problem kinds that file
holds, its own flags, how its flags turn the file into a problem, and how a result is shown),
and `add_solve` registers the command under `solve` and the subject's old names (`allocate`,
`plan`). What every subject shares is written here once:

- FILE is a path or `-` (standard input, with the file rules: UTF-8, size cap, guarded JSON);
- `--method` lists only the registered methods that solve that problem type (a method's
  `kinds` meet the file's kinds); each method's typed options are flags, and a flag of another
  method is refused (`cli_registry.OptionsCommand`);
- `--time-limit`, `--seed` and `--json` with one help text each;
- the JSON object: `SolveResult.to_dict()` (status, value, bound, gap, solution, method,
  runtime_s, stats), then `subject`, `source` (the file, or "<stdin>"), `problem` (what the
  subject says about the problem solved) and `warnings`; deprecated keys a subject keeps one
  release come last (ESG: `cost`, = `value`);
- a refusal (bad input, a method that does not take the problem) names the file, exit 2.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.cli_registry import LazyChoice, OptionsCommand, chosen_options
from schedlab.experiments.cliflags import SEED, TIME_LIMIT
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.registry import Entry
from schedlab.solvers.solve import METHODS

TIME_LIMIT_HELP = (
    "Seconds, model building included; a stopped exact method says so (status feasible with "
    "its bound, or timeout)."
)
SEED_HELP = "Seed of randomized methods and of the solvers (CP-SAT, CBC), 0..2^63-1."
JSON_HELP = "Print one JSON object (keys: docs/cli.md, 'The solve verb')."
STDIN = "-"


def methods_for(subject: str, kinds: Collection[str]) -> list[Entry[Any]]:
    """The registered methods of `subject` that solve a problem of one of `kinds` (a method
    without `kinds` solves every kind of its subject), in registration order."""
    wanted = set(kinds)
    return [
        e
        for e in METHODS.entries(scope=subject)
        if e.meta.get("kinds") is None or wanted & set(e.meta["kinds"])
    ]


def read_problem(file_type: Any, path: str | Path) -> Any:
    """`file_type.load(path)`, or `loads` of standard input when `path` is '-'."""
    if str(path) == STDIN:
        from schedlab.solvers.validate import read_stdin_text

        text = read_stdin_text(sys.stdin, file_type.FILE_WHAT)
        return file_type.loads(text, source="<stdin>")
    return file_type.load(path)


def solve_json(
    subject: str,
    source: str,
    result: Any,
    problem: dict[str, Any],
    warnings: Sequence[str] = (),
    deprecated: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The one JSON shape of every subject's solve verb (see the module doc)."""
    return {
        **result.to_dict(),
        "subject": subject,
        "source": source,
        "problem": problem,
        "warnings": list(warnings),
        **(deprecated or {}),
    }


@dataclass(frozen=True)
class SolveVerb:
    """What a subject says about its solve verb (see the module doc).

    `file_type()` and `kinds()` are read when the command is used (they import the solvers);
    `build(file, flags)` turns the loaded file and the subject's own flags into the problem
    `solve` takes; `describe(problem)` is the JSON's `problem`; `render(problem, result)` the
    human output."""

    subject: str
    file_type: Callable[[], Any]
    kinds: Callable[[], Collection[str]]
    build: Callable[[Any, dict[str, Any]], Any]
    describe: Callable[[Any], dict[str, Any]]
    render: Callable[[Any, Any], None]
    help: str
    params: Sequence[click.Parameter] = ()
    default_method: str | None = None
    warnings: Callable[[Any], list[str]] = field(default=lambda problem: [])
    deprecated: Callable[[Any], dict[str, Any]] = field(default=lambda result: {})
    epilog: str | None = None


def _run(verb: SolveVerb, ctx: click.Context, path: Path, method: str, time_limit: float | None,
         seed: int | None, as_json: bool, flags: dict[str, Any]) -> None:  # fmt: skip
    from schedlab.experiments.output import emit_json
    from schedlab.solvers.solve import solve

    cmd = ctx.command
    assert isinstance(cmd, OptionsCommand)
    own = {p.name for p in verb.params}
    subject_flags = {k: v for k, v in flags.items() if k in own}
    method_flags = {k: v for k, v in flags.items() if k not in own}
    opts = chosen_options(METHODS.get(method, scope=verb.subject), method_flags, cmd.option_names())
    source = "<stdin>" if str(path) == STDIN else str(path)
    try:
        problem = verb.build(read_problem(verb.file_type(), path), subject_flags)
        res = solve(problem, method, time_limit=time_limit, seed=seed, options=opts)
    except InvalidInput as exc:  # a refusal about this file: name it
        raise (exc if exc.source else exc.with_source(source)) from None
    warnings = verb.warnings(problem)
    if as_json:
        emit_json(solve_json(verb.subject, source, res, verb.describe(problem), warnings,
                             verb.deprecated(res)))  # fmt: skip
        return
    for w in warnings:
        click.echo(f"warning: {w}", err=True)
    verb.render(problem, res)


def solve_command(verb: SolveVerb) -> OptionsCommand:
    """The click command of `verb` (see the module doc)."""

    def entries() -> list[Entry[Any]]:
        return methods_for(verb.subject, verb.kinds())

    method = click.Option(
        ["--method"],
        type=LazyChoice(lambda: [e.name for e in entries()]),
        required=verb.default_method is None,
        default=verb.default_method,
        show_default=verb.default_method is not None,
        help="A registered method that solves this problem type: an exact method or a "
        "heuristic (and any plugin's).",
    )

    @click.pass_context
    def callback(ctx: click.Context, file: Path, method: str, time_limit: float | None,
                 seed: int | None, as_json: bool, **flags: Any) -> None:  # fmt: skip
        _run(verb, ctx, file, method, time_limit, seed, as_json, flags)

    params: list[click.Parameter] = [
        click.Argument(["file"], type=click.Path(allow_dash=True, path_type=Path)),
        method,
        *verb.params,
        click.Option(["--time-limit"], type=TIME_LIMIT, default=None, help=TIME_LIMIT_HELP),
        click.Option(["--seed"], type=SEED, default=None, help=SEED_HELP),
        click.Option(["--json", "as_json"], is_flag=True, help=JSON_HELP),
    ]
    return OptionsCommand(
        "solve",
        callback=callback,
        params=params,
        help=verb.help,
        epilog=verb.epilog,
        options_of=entries,
    )


def add_solve(group: click.Group, verb: SolveVerb, *aliases: str) -> click.Command:
    """Register `verb`'s command in `group` as `solve` and under each alias (the subject's old
    verb names, kept), whose one-line help says so."""
    cmd = solve_command(verb)
    group.add_command(cmd, "solve")
    for name in aliases:
        alias = copy.copy(cmd)
        alias.name = name
        alias.short_help = "The same as solve (its former name, kept)."
        alias.alias_of = "solve"  # type: ignore[attr-defined]  # tests walk each verb once
        group.add_command(alias, name)
    return cmd
